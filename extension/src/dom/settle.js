// A frame's part in a settle: after an act, the worker asks each frame to
// answer once nothing on its page has changed for a quiet time, or at a
// cap. It only watches: a MutationObserver and passive listeners of its own
// that note when the page last changed (the act's effect usually lands
// before the request does), shadow roots watched for the length of one
// settle, and the Navigation API's "navigate" event, to know the document
// is being left (a link was followed) and its answer must come from the
// next one.
//
// The same observer learns the page's churn: a spot (an element's text, or
// one of its attributes) that keeps changing on its own at a steady pace,
// in the same shape each time — a clock, a ticker, a progress figure. A
// settle does not wait for churn to stop, since it never does; anything
// else (new or removed elements, a spot that changes shape, input, a
// navigation) still restarts the quiet time. The spots still churning as
// a settle ends are told with the next snapshot, so the answer can say what
// was not waited for.
//
// DOM side. Imports dom/composed.js.

import { shadowOf } from "./composed.js";

// Changes a snapshot can show without a mutation, and the act's own input
// reaching the page: each one restarts the quiet time.
const STIRS = [
  "pointerdown", "pointerup", "click", "keydown", "keyup", "input", "change", "scroll",
  "load", "error", "transitionend", "animationend", "toggle", "readystatechange",
];
// Input: what an act sends. A spot that changes within INPUT_MS of input
// may be the act's effect, so such a change never teaches that it churns.
const INPUTS = new Set(["pointerdown", "pointerup", "click", "keydown", "keyup", "input", "change"]);
const INPUT_MS = 1500;
// Input this far apart is one act's: a click's pointerdown, pointerup and
// click, a text's keys.
const BURST_MS = 500;
// On a churning page, an act whose effect has not shown yet is given this
// long from its first input for one: a busy page would have held the old
// settle to its cap, and a late effect (a timer, a request's answer) in
// that time with it.
const GRACE_MS = 800;
// Elements looked at for shadow roots when a settle starts: a bound on its
// cost on a large page, whose deeper shadow trees then go unwatched.
const MAX_ELEMENTS = 20000;
const OBSERVE = { subtree: true, childList: true, attributes: true, characterData: true };
const LISTEN = { capture: true, passive: true };
// A settle lasts at least this long after its request, however long the
// page had been quiet before: the act's input may still be on its way.
const MIN_WAIT_MS = 15;
// Churn: a spot churns once it has changed LEARN times, each within
// MAX_GAP_MS of the last, taking at most SHAPES shapes; a change that comes
// later than SLOW times its usual pace, or in a new shape, is not churn.
export const LEARN = 3;
const MAX_GAP_MS = 2000;
const SHAPES = 4;
const SLOW = 4;
// How many churning spots a snapshot tells, and how much of each one's text.
const TELL = 3;
const TEXT_MAX = 80;
const SHAPE_MAX = 200;

// leavingAt is when a navigation to another document began here; 0 when
// none is under way.
let leavingAt = 0;
// changedAt is when the page last changed other than by churn, as far as
// the frame saw.
let changedAt = 0;
// inputAt is when the last input event arrived, burstAt when the first of
// its burst did; mutatedAt when the page last changed other than by churn,
// churnAt when it last churned.
let inputAt = -Infinity;
let burstAt = -Infinity;
let mutatedAt = -Infinity;
let churnAt = -Infinity;
// spots: element → Map of "text" or "@name" → {n, last, every, shapes}.
let spots = new WeakMap();
// recent: the spots that churned lately, element → its stats, oldest
// first, at most RECENT of them; told: those a settle found still churning
// as it ended, until a snapshot takes them.
const RECENT = 8;
let recent = new Map();
let told = [];

const changed = () => (changedAt = performance.now());

function stirred(e) {
  changed();
  if (!e || !INPUTS.has(e.type)) return;
  if (changedAt - inputAt > BURST_MS) burstAt = changedAt;
  inputAt = changedAt;
}

// shapeOf is a spot's value with its digits folded: a clock's every tick
// has one shape, and a change of words is another.
export function shapeOf(v) {
  return String(v == null ? "" : v).slice(0, SHAPE_MAX).replace(/\s+/g, " ").replace(/[0-9]+/g, "0");
}

// spotOf is the element and key a mutation record changed, with the
// value's shape, or null when it changed the page's structure: elements
// added or removed are never churn.
function spotOf(r) {
  const t = r.target;
  if (!t) return null;
  if (r.type === "characterData") {
    const el = t.parentElement || t.parentNode;
    return el ? { el, key: "text", shape: shapeOf(el.textContent) } : null;
  }
  if (r.type === "attributes") {
    const v = t.getAttribute ? t.getAttribute(r.attributeName) : "";
    return { el: t, key: "@" + r.attributeName, shape: shapeOf(v) };
  }
  for (const list of [r.addedNodes, r.removedNodes]) {
    for (const n of list || []) if (n.nodeType !== 3 /* TEXT_NODE */) return null;
  }
  return { el: t, key: "text", shape: shapeOf(t.textContent) };
}

// churned notes one change to a spot at now and reports whether it was
// churn.
function churned(spot, now) {
  let keys = spots.get(spot.el);
  if (!keys) spots.set(spot.el, (keys = new Map()));
  let s = keys.get(spot.key);
  if (!s) keys.set(spot.key, (s = { key: spot.key, n: 0, last: -Infinity, every: 0, shapes: new Set() }));
  const gap = now - s.last;
  const known = s.shapes.has(spot.shape);
  const churn = s.n >= LEARN && known && gap <= Math.min(MAX_GAP_MS, SLOW * s.every + 50);
  if (gap > MAX_GAP_MS) {
    s.n = 0;
    s.every = 0;
  }
  if (!known && s.shapes.size >= SHAPES) {
    // A spot that changes into a new shape starts over: the change is news.
    s.shapes.clear();
    s.n = 0;
  }
  s.shapes.add(spot.shape);
  if (s.n > 0) s.every = s.every ? 0.7 * s.every + 0.3 * gap : gap;
  s.last = now;
  // A change soon after input may be the act's: it teaches nothing.
  if (churn || now - inputAt > INPUT_MS) s.n++;
  // A spot whose latest change was news (a new shape, a pause) is not told
  // as churn until it churns again.
  s.churning = churn;
  if (churn) {
    churnAt = now;
    recent.delete(spot.el);
    recent.set(spot.el, s);
    if (recent.size > RECENT) recent.delete(recent.keys().next().value);
  }
  return churn;
}

// noted takes a batch of mutation records: any that is not churn is a
// change of the page.
function noted(records) {
  const now = performance.now();
  let news = false;
  for (const r of records || []) {
    const spot = spotOf(r);
    if (!spot || !churned(spot, now)) news = true;
  }
  if (news || !records) changedAt = mutatedAt = now;
}

// startSettle notes changes to the document and navigations away from it,
// once.
export function startSettle() {
  try {
    changed();
    new MutationObserver(noted).observe(document, OBSERVE);
    for (const t of STIRS) addEventListener(t, stirred, LISTEN);
    if (!globalThis.navigation) return;
    navigation.addEventListener("navigate", (e) => {
      if (!e.destination.sameDocument && !e.downloadRequest) leavingAt = performance.now();
    });
    navigation.addEventListener("navigateerror", () => (leavingAt = 0));
  } catch {}
}

// watchShadows observes the shadow roots under root, within budget.
function watchShadows(root, observer, budget) {
  if (!document.createTreeWalker) return;
  const walker = document.createTreeWalker(root, 1 /* NodeFilter.SHOW_ELEMENT */);
  for (let n = walker.nextNode(); n && budget.left > 0; n = walker.nextNode()) {
    budget.left--;
    const sr = shadowOf(n);
    if (sr) {
      observer.observe(sr, OBSERVE);
      watchShadows(sr, observer, budget);
    }
  }
}

// textOf is how a churning spot reads: its own text, or its parent's when
// its own is only a figure ("Ticks: 12" rather than "12"); for a spot with
// no words (a bar's style, a dot's class), its element and attribute.
function textOf(el, key) {
  const own = (el.textContent || "").replace(/\s+/g, " ").trim();
  const parent = el.parentElement;
  let text = own.length < 12 && parent && parent !== document.body ? (parent.textContent || "").replace(/\s+/g, " ").trim() : own;
  if (!text && key && key[0] === "@") text = `the ${String(el.localName || "element")} element's ${key.slice(1)} attribute`;
  return text.length > TEXT_MAX ? text.slice(0, TEXT_MAX - 1) + "…" : text;
}

// takeChurn is what churned during the last settle, for a snapshot to tell
// once: [{text, every}], every in milliseconds, at most TELL of them.
export function takeChurn() {
  const out = told;
  told = [];
  return out;
}

// awaited reports whether a settle begun at start still gives the act its
// grace: the page churns, the act's input came in this frame, and nothing
// but churn has changed since.
function awaited(start) {
  return churnAt > start - MAX_GAP_MS && inputAt > start - INPUT_MS && mutatedAt < burstAt;
}

// settle answers {result: {settled}} once the frame has had no change but
// churn for msg.quiet milliseconds, has finished parsing and MIN_WAIT_MS
// have passed since the request ("quiet"), or at msg.cap milliseconds
// ("cap"). A frame leaving its document does not answer "quiet": the
// worker hears its port close and asks the new document.
export function settle(msg) {
  const quiet = Math.max(0, Number(msg.quiet) || 0);
  const cap = Math.max(0, Number(msg.cap) || 0);
  return new Promise((resolve) => {
    const start = performance.now();
    // Shadow trees are watched only while this settle lasts.
    const observer = new MutationObserver(noted);
    let timer = 0;
    const done = (settled) => {
      clearTimeout(timer);
      observer.disconnect();
      if (settled === "cap") leavingAt = 0; // a navigation that did not come in time is not waited for again
      told = [];
      const now = performance.now();
      for (const [el, s] of [...recent].reverse()) {
        if (told.length >= TELL) break;
        const lately = now - s.last <= Math.min(MAX_GAP_MS, SLOW * s.every + 50);
        if (s.churning && lately && el.isConnected !== false) told.push({ text: textOf(el, s.key), every: Math.round(s.every) });
      }
      resolve({ result: { settled } });
    };
    const check = () => {
      const now = performance.now();
      if (now - start >= cap) return done("cap");
      let from = Math.max(changedAt, start + MIN_WAIT_MS - quiet);
      // While the act's effect is awaited, look again each quiet time: the
      // effect ends the grace.
      const grace = awaited(start);
      if (grace) from = Math.max(from, burstAt + GRACE_MS - quiet);
      const idle = now - from;
      if (!leavingAt && document.readyState !== "loading" && idle >= quiet) return done("quiet");
      const wait = leavingAt || document.readyState === "loading" ? quiet || 10 : grace ? Math.min(quiet, quiet - idle) : quiet - idle;
      timer = setTimeout(check, Math.max(1, Math.min(wait, cap - (now - start))));
    };
    try {
      watchShadows(document, observer, { left: MAX_ELEMENTS });
    } catch {
      // A document torn down mid-way: the cap still answers.
    }
    check();
  });
}

// testOnlyForget drops what the frame learned of its page.
export function testOnlyForget() {
  spots = new WeakMap();
  recent = new Map();
  inputAt = burstAt = mutatedAt = churnAt = -Infinity;
  told = [];
}
