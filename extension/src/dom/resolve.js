// Element resolution for acts: just before an act, the element a ref names
// is found again and checked (same document and epoch, still connected,
// same role and name, enabled, visible, in view, and what is at its point),
// and a point in a child frame is mapped into this one. An element scrolled
// out of view, of the page or of a box it sits in, is refused with where it
// lies (its reach): which way and how far the box must scroll, and where to
// turn the wheel over it. Only Reins' own wheel input scrolls; this reads
// scroll offsets and never writes them.
//
// An element's answer carries what activating it sets in motion (its
// motion: where it leads, what its form submits), out of view too, so that
// the person is asked about that as well.
//
// DOM side. Imports pure modules and dom/accessible.js, dom/composed.js,
// dom/motion.js, dom/nav.js, dom/refs.js, dom/style.js, dom/window.js.

import { clipTo, insideContent, inViewport, isUnit, refable, round2, scrollBy } from "../pure/geometry.js";
import { fail } from "../pure/reply.js";
import { forgetSecrets, isSecret, nameOf, roleAsShown } from "./accessible.js";
import { composedContains, deepFromPoint } from "./composed.js";
import { motionOf } from "./motion.js";
import { checkNav, doc, epoch } from "./nav.js";
import { elementOf, idFor, shownAs } from "./refs.js";
import { forgetStyles } from "./style.js";
import { box, clientSize, frameGeometry, frameIndex, viewport, windowMetrics } from "./window.js";

// resolve answers {doc, epoch, id, role, name} with where to act on the
// element, or a refusal.
export function resolve(p) {
  checkNav();
  if (p.doc !== doc) return fail("stale_ref", "the page has loaded a new document since the snapshot");
  if (p.epoch !== epoch) return fail("stale_ref", "the page has navigated since the snapshot");
  const el = elementOf(p.id);
  if (!el || !el.isConnected) return fail("stale_ref", "the element is no longer on the page");
  forgetStyles();
  forgetSecrets();
  const role = roleAsShown(el);
  const name = role === "generic" ? "" : nameOf(el, role);
  const secret = isSecret(el);
  const motion = motionOf(el);
  forgetStyles();
  const known = shownAs(el);
  if (!known || known.role !== role || known.name !== name || role !== p.role || name !== p.name) {
    return fail("changed", `the element changed since the snapshot: it is now ${role} "${name}"`, { id: idFor(el, role, name), role, name });
  }
  if (el.getAttribute("aria-disabled") === "true" || (el.matches && el.matches(":disabled"))) return fail("disabled", "the element is disabled");
  const style = getComputedStyle(el);
  const b = box(el);
  if (!refable(style, b)) return fail("not_visible", "the element is not visible");
  const { vw, vh } = clientSize();
  // The page, then every box that cuts off what overflows it, outermost
  // first.
  const levels = [{ page: true, box: { x: 0, y: 0, w: vw, h: vh }, inner: { x: 0, y: 0, w: vw, h: vh }, scroll: pageScroll(vw, vh) }, ...clipChain(el)];
  const block = blocker(levels, levels.length - 1, b, true);
  if (block) {
    const out = "the element is scrolled out of view";
    const lv = levels[block.k];
    if (!block.view || !lv.scroll) return fail("not_visible", out + " inside a box that cuts it off and does not scroll; nothing was done");
    const d = scrollBy(block.target, block.view, lv.scroll);
    if (Math.abs(d.dx) < 1 && Math.abs(d.dy) < 1) return fail("not_visible", out + ", and scrolling cannot bring it in; nothing was done");
    const at = wheelPoint(lv, block.view, Math.abs(d.dy) >= 1 ? "y" : "x");
    if (!at) return fail("not_visible", out + ", and something covers every place to turn the wheel over the box that holds it; nothing was done");
    const reach = { point: at, dx: d.dx, dy: d.dy, scroll: lv.scroll, viewport: viewport(), window: windowMetrics() };
    if (lv.page) reach.page = true;
    // In a child frame, the worker maps the point up through the frames and
    // checks this is the frame it maps from.
    const index = frameIndex();
    if (index >= 0) reach.index = index;
    const now = { id: idFor(el, role, name), role, name, reach };
    if (motion) now.motion = motion;
    return fail("not_visible", out + "; scroll it into view first", now);
  }
  // The centre of the part of the box that shows through every level.
  let seen = b;
  for (const lv of levels) seen = seen && clipTo(seen, lv.inner);
  if (!seen) return fail("not_visible", "the element is scrolled out of view; nothing was done");
  const point = { x: seen.x + seen.w / 2, y: seen.y + seen.h / 2 };
  const hit = deepFromPoint(point.x, point.y);
  if (hit && hit !== el && /^(IFRAME|FRAME|EMBED|OBJECT)$/.test(hit.tagName) && composedContains(el, hit)) {
    return fail("obscured", "a frame inside the element is at its point, so a click there would land in the frame's page; nothing was done");
  }
  if (!hit || !(hit === el || composedContains(el, hit))) {
    const what = hit ? hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "") : "nothing";
    return fail("obscured", `something else (${what}) is on top of the element; it may be covered or clipped`);
  }
  const editable = el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
  const result = {
    box: b,
    point,
    viewport: viewport(),
    window: windowMetrics(),
    secret,
    editable,
    origin: location.origin,
    index: frameIndex(),
  };
  if (motion) result.motion = motion;
  return { result };
}

// blocker finds what to scroll to show target t, which sits inside
// levels[0..k]: {k, target, view}, the level whose own edges cut t off, the
// part of t to bring into its view, and the part of the level that shows
// (null when none does); or null when t shows. When the level that cuts t
// off does not show enough itself to turn the wheel over, the level is
// brought into view first. last says t is the element itself.
function blocker(levels, k, t, last) {
  let part = t;
  for (let i = k; i >= 0; i--) {
    const lv = levels[i];
    const shown = clipTo(part, lv.inner);
    if (enough(shown, part, last)) {
      part = shown;
      continue;
    }
    let view = lv.inner;
    for (let j = i - 1; j >= 0 && view; j--) view = clipTo(view, levels[j].inner);
    if (i > 0 && !enough(view, lv.inner, false)) return blocker(levels, i - 1, lv.box, false);
    return { k: i, target: part, view };
  }
  return null;
}

// enough reports whether shown, the part of target inside its box's visible
// area, is enough: any pixel of the element itself, and of a box on the way
// to it, room to turn the wheel over.
function enough(shown, target, last) {
  if (!shown) return false;
  if (last) return true;
  return shown.w >= Math.min(target.w, 20) && shown.h >= Math.min(target.h, 20);
}

const wheelable = (o) => o === "auto" || o === "scroll";
const cuts = (o) => o && o !== "visible";

// scrollState is how far el's content is scrolled and how far it can be
// ({x, y, maxX, maxY}, CSS pixels), when the wheel scrolls it: overflow auto
// or scroll on an axis that holds more than it shows. null otherwise. style
// reads a computed style (a snapshot passes its memo).
export function scrollState(el, style = getComputedStyle) {
  const st = style(el);
  const x = wheelable(st.overflowX), y = wheelable(st.overflowY);
  if (!x && !y) return null;
  const maxX = x ? (el.scrollWidth || 0) - (el.clientWidth || 0) : 0;
  const maxY = y ? (el.scrollHeight || 0) - (el.clientHeight || 0) : 0;
  if (maxX < 1 && maxY < 1) return null;
  return { x: round2(el.scrollLeft || 0), y: round2(el.scrollTop || 0), maxX: maxX >= 1 ? round2(maxX) : 0, maxY: maxY >= 1 ? round2(maxY) : 0 };
}

// pageScroll is the page's scrollState in a vw × vh viewport.
function pageScroll(vw, vh) {
  const se = document.scrollingElement || document.documentElement;
  const root = document.documentElement ? getComputedStyle(document.documentElement) : {};
  const held = (axis) => root[axis] === "hidden" || root[axis] === "clip";
  const maxX = held("overflowX") ? 0 : Math.max(0, (se && se.scrollWidth) - vw || 0);
  const maxY = held("overflowY") ? 0 : Math.max(0, (se && se.scrollHeight) - vh || 0);
  return { x: round2(scrollX || 0), y: round2(scrollY || 0), maxX: round2(maxX), maxY: round2(maxY) };
}

function parentOf(n) {
  return n.parentElement || (n.parentNode && n.parentNode.host) || null;
}

// inside is the part of a box's border box b its content shows in: inside
// its borders, scrollbars left out.
function inside(el, b) {
  return { x: b.x + (el.clientLeft || 0), y: b.y + (el.clientTop || 0), w: el.clientWidth || 0, h: el.clientHeight || 0 };
}

// clipChain lists the boxes around el that cut off what overflows them,
// outermost first: {el, box, inner, scroll}, scroll null for one the wheel
// does not scroll (overflow hidden or clip).
function clipChain(el) {
  const chain = [];
  const de = document.documentElement;
  for (let p = parentOf(el); p && p !== de && p !== document.body; p = parentOf(p)) {
    const st = getComputedStyle(p);
    if (!cuts(st.overflowX) && !cuts(st.overflowY)) continue;
    const b = box(p);
    chain.push({ el: p, box: b, inner: inside(p, b), scroll: scrollState(p) });
  }
  return chain.reverse();
}

// scrollerAt is what the wheel scrolls, along axis, when turned over hit:
// the nearest box around it that scrolls that way, or "page".
function scrollerAt(hit, axis) {
  const de = document.documentElement;
  for (let n = hit; n && n !== de && n !== document.body; n = parentOf(n)) {
    const s = scrollState(n);
    if (s && (axis === "y" ? s.maxY : s.maxX) >= 1) return n;
  }
  return "page";
}

// wheelPoint is a place inside the visible area view of level lv where the
// wheel turned along axis scrolls lv itself and nothing inside it: the
// middle when it does, else the first of a few points across it.
function wheelPoint(lv, view, axis) {
  const want = lv.page ? "page" : lv.el;
  for (const [fx, fy] of [[0.5, 0.5], [0.5, 0.25], [0.5, 0.75], [0.25, 0.5], [0.75, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75], [0.5, 0.1], [0.5, 0.9]]) {
    const p = { x: round2(view.x + view.w * fx), y: round2(view.y + view.h * fy) };
    const hit = deepFromPoint(p.x, p.y);
    if (!hit || hit.tagName === "IFRAME" || hit.tagName === "FRAME") continue;
    if (scrollerAt(hit, axis) === want) return p;
  }
  return null;
}

// frameHit maps a point in a child frame to this frame, checking that the
// child's iframe element is really what is at that point, and refusing a
// frame a transform turns. It answers the frame's scale too, when it has
// one, for the worker to carry up.
export function frameHit(p) {
  checkNav();
  if (p.doc !== doc || p.epoch !== epoch) return fail("stale_ref", "the page around the frame has navigated since the snapshot");
  let w;
  try {
    w = frames[p.index];
  } catch {}
  if (!w) return fail("stale_ref", "the frame is gone");
  let el = null;
  const all = document.querySelectorAll("iframe, frame");
  for (const f of all) if (f.contentWindow === w) { el = f; break; }
  if (!el) return fail("stale_ref", "the frame's element is gone");
  const g = frameGeometry(el);
  if (g.turned) return fail("unmapped", g.turned + "; nothing was done");
  // The child's point is in its own CSS pixels, the content's layout size.
  if (!insideContent(g.size, p.x, p.y)) return fail("not_visible", "the element lies outside its frame's visible area");
  const c = g.content, s = g.scale;
  const point = { x: round2(c.x + s.x * p.x), y: round2(c.y + s.y * p.y) };
  const { vw, vh } = clientSize();
  if (!inViewport(point, vw, vh)) return fail("not_visible", "the frame is scrolled out of view; scroll it into view first");
  const hit = deepFromPoint(point.x, point.y);
  if (hit !== el) return fail("obscured", "something covers the frame the element is in");
  const result = { point, viewport: viewport(), window: windowMetrics(), origin: location.origin, index: frameIndex() };
  if (!isUnit(s)) result.scale = s;
  return { result };
}

// metrics answers with this frame's viewport, window and generation.
export function metrics() {
  checkNav();
  return { result: { viewport: viewport(), window: windowMetrics(), origin: location.origin, doc, epoch, index: frameIndex() } };
}
