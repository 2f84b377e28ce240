// Element resolution for acts: just before an act, the element a ref names
// is found again and checked (same document and epoch, still connected,
// same role and name, enabled, visible, in view, and what is at its point),
// and a point in a child frame is mapped into this one.
//
// DOM side. Imports pure modules and dom/accessible.js, dom/composed.js,
// dom/nav.js, dom/refs.js, dom/style.js, dom/window.js.

import { insideContent, inViewport, refable, visibleCentre } from "../pure/geometry.js";
import { fail } from "../pure/reply.js";
import { forgetSecrets, isSecret, nameOf, roleAsShown } from "./accessible.js";
import { composedContains, deepFromPoint } from "./composed.js";
import { checkNav, doc, epoch } from "./nav.js";
import { elementOf, idFor, shownAs } from "./refs.js";
import { forgetStyles } from "./style.js";
import { box, clientSize, frameChild, frameIndex, viewport, windowMetrics } from "./window.js";

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
  // The centre of the part of the box inside the viewport.
  const point = visibleCentre(b, vw, vh);
  if (!point) return fail("not_visible", "the element is scrolled out of view; scroll it into view first");
  const hit = deepFromPoint(point.x, point.y);
  if (!hit || !(hit === el || composedContains(el, hit))) {
    const what = hit ? hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "") : "nothing";
    return fail("obscured", `something else (${what}) is on top of the element; it may be covered or clipped`);
  }
  const editable = el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
  return {
    result: {
      box: b,
      point,
      viewport: viewport(),
      window: windowMetrics(),
      secret: isSecret(el),
      editable,
      origin: location.origin,
      index: frameIndex(),
    },
  };
}

// frameHit maps a point in a child frame to this frame, checking that the
// child's iframe element is really what is at that point.
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
  const c = frameChild(el).content;
  if (!insideContent(c, p.x, p.y)) return fail("not_visible", "the element lies outside its frame's visible area");
  const point = { x: c.x + p.x, y: c.y + p.y };
  const { vw, vh } = clientSize();
  if (!inViewport(point, vw, vh)) return fail("not_visible", "the frame is scrolled out of view; scroll it into view first");
  const hit = deepFromPoint(point.x, point.y);
  if (hit !== el) return fail("obscured", "something covers the frame the element is in");
  return { result: { point, viewport: viewport(), window: windowMetrics(), origin: location.origin, index: frameIndex() } };
}

// metrics answers with this frame's viewport, window and generation.
export function metrics() {
  checkNav();
  return { result: { viewport: viewport(), window: windowMetrics(), origin: location.origin, doc, epoch, index: frameIndex() } };
}
