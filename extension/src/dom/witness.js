// The witness: where an act's trusted pointer and key events arrive in this
// frame. Asked to watch an element just before an act, the frame notes the
// events it sees from then on; the worker then asks what the pointer is
// over once it has arrived at the act's screen point, and, after the act,
// where its events landed. It only listens, passively, to trusted events: it
// dispatches nothing, cancels nothing and changes nothing, and it never
// computes where a screen point is, so a wrong mapping cannot hide from it.
//
// DOM side. Imports pure/reply.js, dom/accessible.js, dom/composed.js,
// dom/nav.js, dom/refs.js, dom/style.js and dom/window.js.

import { fail } from "../pure/reply.js";
import { forgetSecrets, nameOf, roleAsShown } from "./accessible.js";
import { composedContains, deepActive, deepFromPoint, shadowOf } from "./composed.js";
import { checkNav, doc, epoch } from "./nav.js";
import { elementOf } from "./refs.js";
import { forgetStyles } from "./style.js";
import { tagOf } from "./window.js";

// WatchLife in bridge/protocol: a watch not ended by then is dropped.
const WATCH_LIFE_MS = 30000;
// Typing has ended once no key or input has arrived for this long.
const TYPE_QUIET_MS = 40;
// How many of the latest pointer moves are kept to look for one near a point.
const MOVES = 64;
const NAME_MAX = 80;
const LISTEN = { capture: true, passive: true };
// Only pointermove places the pointer: a parent document sees a pointerover,
// never a pointermove, on an iframe the pointer has entered.
const EVENTS = [
  "pointermove", "pointerdown", "pointerup", "click", "dblclick", "contextmenu", "wheel",
  "keydown", "beforeinput", "input", "drop", "dragend", "focusin",
];
// The field of a watch whose event ends each kind of act; kinds not here
// end at once, but for keys.
const ENDS = { click: "click", double_click: "dblclick", right_click: "contextmenu", scroll: "wheel", drag: "up" };
const KEYED = new Set(["type", "key"]);

// The one watch of this frame, or null: {token, el, timer, moves, down, up,
// click, dblclick, contextmenu, wheel, keys, keysOn, keyAt, input, inputs,
// left, wakes}. Pointer moves, wheel and input events keep only their
// element, described when answering; the rest are described as they arrive,
// before the act's effect changes them.
let current = null;

// startWitness listens for the events an act sends, once per document.
export function startWitness() {
  for (const t of EVENTS) addEventListener(t, noted, LISTEN);
  addEventListener("pagehide", leaving, LISTEN);
  try {
    if (globalThis.navigation) {
      navigation.addEventListener("navigate", (e) => {
        if (!e.destination.sameDocument && !e.downloadRequest) leaving();
      });
    }
  } catch {}
}

// watch answers {doc, epoch, id} with a new watch of the element, which
// replaces any earlier one.
export function watch(p) {
  checkNav();
  if (p.doc !== doc) return fail("stale_ref", "the page has loaded a new document since the snapshot");
  if (p.epoch !== epoch) return fail("stale_ref", "the page has navigated since the snapshot");
  const el = elementOf(p.id);
  if (!el || !el.isConnected) return fail("stale_ref", "the element is no longer on the page");
  if (current) end(current);
  const w = {
    token: token(),
    el,
    timer: 0,
    moves: [], // {el, x, y}: screenX, screenY; oldest first
    down: null,
    up: null,
    click: null,
    dblclick: null,
    contextmenu: null,
    wheel: null, // an element
    keys: 0,
    keysOn: 0,
    keyAt: 0, // when the last key or input arrived
    input: null, // an element
    inputs: 0,
    left: false,
    wakes: new Set(), // pending answers, told of every event and of the end
  };
  w.timer = setTimeout(() => end(w), WATCH_LIFE_MS);
  current = w;
  return { result: { watch: w.token } };
}

// witness answers {watch, x, y, slack, within} with what the pointer is over
// once a pointer move within slack of the screen point (x, y) has arrived,
// the latest such one, or after within ms with the last move, if any.
export function witness(p) {
  const w = live(p.watch);
  if (!w) return ended();
  if (p.focus) return focused(w, p.within);
  const x = Number(p.x), y = Number(p.y);
  const slack = Math.max(0, Number(p.slack) || 0);
  const near = (m) => Math.abs(m.x - x) <= slack && Math.abs(m.y - y) <= slack;
  return new Promise((resolve) => {
    const answer = (m, isNear) => {
      const r = { seen: w.moves.length > 0, near: isNear };
      if (m) Object.assign(r, { at: landed(w, m.el), x: m.x, y: m.y });
      return { result: r };
    };
    const finish = (a) => {
      clearTimeout(timer);
      w.wakes.delete(check);
      resolve(a);
    };
    const check = (over) => {
      if (over) return finish(ended());
      for (let i = w.moves.length - 1; i >= 0; i--) if (near(w.moves[i])) return finish(answer(w.moves[i], true));
    };
    const timer = setTimeout(() => finish(answer(w.moves[w.moves.length - 1], false)), wait(p.within));
    w.wakes.add(check);
    check();
  });
}

// focused answers {focused} once the keyboard focus is in the watched
// element (the click before typing has put it there), or after within ms
// with focused false.
function focused(w, within) {
  return new Promise((resolve) => {
    const finish = (a) => {
      clearTimeout(timer);
      w.wakes.delete(check);
      resolve(a);
    };
    const check = (over) => {
      if (over) return finish(ended());
      const a = deepActive();
      if (a && inside(w, a)) finish({ result: { focused: true } });
    };
    const timer = setTimeout(() => finish({ result: { focused: false } }), wait(within));
    w.wakes.add(check);
    check();
  });
}

// effects answers {watch, kind, within} with where the act's events
// arrived, once the event that ends an act of that kind has, or after
// within ms, and ends the watch.
export function effects(p) {
  const w = live(p.watch);
  if (!w) return ended();
  const kind = String(p.kind || "");
  const ends = Object.hasOwn(ENDS, kind) ? ENDS[kind] : "";
  return new Promise((resolve) => {
    let quiet = 0;
    const finish = (a) => {
      clearTimeout(timer);
      clearTimeout(quiet);
      w.wakes.delete(check);
      if (!a) {
        a = { result: report(w, kind) };
        end(w);
      }
      resolve(a);
    };
    const check = (over) => {
      if (over) return finish(ended());
      if (w.left || (ends && w[ends]) || (kind === "drag" && w.dragend)) return finish();
      if (!KEYED.has(kind)) {
        if (!ends) finish();
        return;
      }
      if (!w.keyAt) return;
      const idle = performance.now() - w.keyAt;
      if (idle >= TYPE_QUIET_MS) return finish();
      clearTimeout(quiet);
      quiet = setTimeout(check, TYPE_QUIET_MS - idle);
    };
    const timer = setTimeout(() => finish(), wait(p.within));
    w.wakes.add(check);
    check();
  });
}

// report is what a watch saw, as EffectsResult.
function report(w, kind) {
  const click = kind === "double_click" ? w.dblclick : kind === "right_click" ? w.contextmenu : w.click;
  const r = {};
  if (w.down) r.down = w.down;
  if (w.up) r.up = w.up;
  if (click) r.click = click;
  if (w.wheel) r.wheel = landed(w, w.wheel);
  r.keys = w.keys;
  r.keysOn = w.keysOn;
  if (w.input) r.input = landed(w, w.input);
  r.inputs = w.inputs;
  if (w.left) r.left = true;
  return r;
}

// noted records one event for the watch, cheaply: nothing is described
// that an answer may not need.
function noted(e) {
  const w = current;
  if (!w || !e.isTrusted) return;
  switch (e.type) {
    case "pointermove": {
      const el = pointerTarget(e);
      if (!el) return;
      w.moves.push({ el, x: e.screenX, y: e.screenY });
      if (w.moves.length > MOVES) w.moves.shift();
      break;
    }
    case "pointerdown":
    case "pointerup":
    case "click":
    case "dblclick":
    case "contextmenu": {
      // A release is where the pointer is, not where a page that captured
      // the pointer sends it.
      const el = e.type === "pointerup" ? deepFromPoint(e.clientX, e.clientY) || pointerTarget(e) : pointerTarget(e);
      if (!el) return;
      const field = e.type === "pointerdown" ? "down" : e.type === "pointerup" ? "up" : e.type;
      if (field === "down" && w.down) return; // the first press is the act's
      w[field] = landed(w, el);
      break;
    }
    case "drop":
    case "dragend": {
      // A drag the page made an HTML drag and drop ends in these, with no
      // pointerup: the drop where it was let go, the dragend at its source.
      const el = pointerTarget(e);
      if (e.type === "drop" && el && !w.up) w.up = landed(w, el);
      if (e.type === "dragend") w.dragend = true;
      break;
    }
    case "wheel":
      w.wheel = pointerTarget(e) || w.wheel;
      break;
    case "keydown": {
      w.keys++;
      const a = deepActive();
      if (a && inside(w, a)) w.keysOn++;
      w.keyAt = performance.now();
      break;
    }
    case "beforeinput": {
      w.keyAt = performance.now();
      // An editor that cancels beforeinput to make the change itself gets
      // no input event: the cancelled one arrived all the same.
      const el = inputTarget(e);
      setTimeout(() => {
        if (e.defaultPrevented && current === w && el) input(w, el);
      }, 0);
      break;
    }
    case "input": {
      w.keyAt = performance.now();
      const el = inputTarget(e);
      if (el) input(w, el);
      break;
    }
    case "focusin":
      break; // wakes an answer waiting for the focus
    default:
      return;
  }
  // A watch lasts while its act's events keep coming: a long text takes
  // longer to type than a watch's life.
  clearTimeout(w.timer);
  w.timer = setTimeout(() => end(w), WATCH_LIFE_MS);
  wake(w);
}

function input(w, el) {
  w.input = el;
  if (inside(w, el)) w.inputs++;
  wake(w);
}

function leaving() {
  const w = current;
  if (!w || w.left) return;
  w.left = true;
  wake(w);
}

function wake(w) {
  for (const fn of [...w.wakes]) fn(false);
}

// end drops a watch and tells its pending answers.
function end(w) {
  clearTimeout(w.timer);
  if (current === w) current = null;
  for (const fn of [...w.wakes]) fn(true);
  w.wakes.clear();
}

function live(token) {
  return current && typeof token === "string" && token === current.token ? current : null;
}

const ended = () => fail("stale_ref", "the watch has ended");

// wait is a request's within, in ms, held to a watch's life.
const wait = (v) => Math.min(WATCH_LIFE_MS, Math.max(0, Number(v) || 0));

function token() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// inside reports whether el is the watched element or inside it. A frame's
// element inside it is not: what lands there lands in another document.
const inside = (w, el) => el === w.el || (composedContains(w.el, el) && !FRAMES.has(el.tagName));
const FRAMES = new Set(["IFRAME", "FRAME", "EMBED", "OBJECT"]);

// asElement is the element an event target stands for: a text node's
// parent, a document's root element; null for anything else.
function asElement(n) {
  if (!n) return null;
  if (n.nodeType === 1) return n;
  if (n.nodeType === 3) return n.parentElement || null;
  if (n.nodeType === 9) return n.documentElement || null;
  return null;
}

// pointerTarget is the element a pointer event arrived at. A closed shadow
// root hides its inside from the event's path here, so a shadow host is
// looked into at the event's point.
function pointerTarget(e) {
  const path = e.composedPath ? e.composedPath() : [];
  let el = asElement(path[0] || e.target);
  if (el && shadowOf(el)) el = deepFromPoint(e.clientX, e.clientY) || el;
  return el;
}

// inputTarget is the element an input event arrived at, or the focused one.
function inputTarget(e) {
  const path = e.composedPath ? e.composedPath() : [];
  let el = asElement(path[0] || e.target);
  if (el && shadowOf(el)) el = deepActive() || el;
  return el || deepActive();
}

// landed describes an element an event arrived at as Landed: whether it is
// the watched one or inside it, its role and name as the snapshot shows
// them (capped), and its tag. An input's value is never part of it.
function landed(w, el) {
  const on = inside(w, el);
  let role = "", name = "";
  try {
    forgetStyles();
    forgetSecrets();
    role = roleAsShown(el);
    name = role === "generic" ? "" : nameOf(el, role);
  } catch {
    // A node torn out of its document mid-way: its tag still says what it was.
  } finally {
    forgetStyles();
  }
  if (name.length > NAME_MAX) name = name.slice(0, NAME_MAX - 1) + "…";
  const l = { on };
  if (role) l.role = role;
  if (name) l.name = name;
  l.tag = tagOf(el);
  return l;
}
