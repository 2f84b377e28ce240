// Box arithmetic in CSS pixels: rounding what is reported, an iframe's
// content box and scale, whether a transform turns it, and the point an act
// aims at.
//
// Pure: no DOM, no chrome.*, no page globals. Imports nothing.

// round2 rounds to hundredths of a pixel (or of a millisecond).
export const round2 = (v) => Math.round(v * 100) / 100;

// roundBox is a DOMRect as the wire's {x, y, w, h}.
export function roundBox(r) {
  return { x: round2(r.x), y: round2(r.y), w: round2(r.width), h: round2(r.height) };
}

// contentBox is where a frame's document sits inside its element: the
// border box b moved in by the border and padding of the element's computed
// style cs, sized by its client size less the padding.
export function contentBox(b, cs, clientWidth, clientHeight) {
  const px = (v) => parseFloat(v) || 0;
  return {
    x: b.x + px(cs.borderLeftWidth) + px(cs.paddingLeft),
    y: b.y + px(cs.borderTopWidth) + px(cs.paddingTop),
    w: clientWidth - px(cs.paddingLeft) - px(cs.paddingRight),
    h: clientHeight - px(cs.paddingTop) - px(cs.paddingBottom),
  };
}

// frameScale is how many CSS pixels of the parent one of a frame's own
// covers along each axis: its rendered box r (transforms applied) against
// its layout size offsetW × offsetH. It is rounded to 1e-4 and snapped to 1
// within 1e-3, so that an untransformed frame maps exactly; 1 when the
// layout size is 0.
export function frameScale(r, offsetW, offsetH) {
  const one = (rendered, layout) => {
    if (!(layout > 0) || !(rendered > 0)) return 1;
    const s = Math.round((rendered / layout) * 1e4) / 1e4;
    return Math.abs(s - 1) <= 1e-3 ? 1 : s;
  };
  return { x: one(r.width, offsetW), y: one(r.height, offsetH) };
}

// isUnit reports whether scale s leaves sizes as they are.
export const isUnit = (s) => !s || (s.x === 1 && s.y === 1);

// scaledContent is where a frame's document shows inside its element, whose
// rendered box is r and computed style cs, scaled by a transform:
// {content, scale, size}. Border, padding and the client size are layout
// sizes, so they are scaled to the rendered box; size is the content box in
// the frame's own CSS pixels, where its points are given. The layout size
// comes from the computed width and height, which are not rounded as
// offsetWidth and offsetHeight are (those stand in when they are not set).
export function scaledContent(r, cs, offsetW, offsetH, clientW, clientH) {
  const px = (v) => parseFloat(v) || 0;
  const outer = (size, a, b, offset) => {
    const v = parseFloat(size);
    if (!(v > 0)) return offset;
    if (cs.boxSizing === "border-box") return v;
    return v + px(cs["padding" + a]) + px(cs["padding" + b]) + px(cs["border" + a + "Width"]) + px(cs["border" + b + "Width"]);
  };
  const scale = frameScale(r, outer(cs.width, "Left", "Right", offsetW), outer(cs.height, "Top", "Bottom", offsetH));
  const size = {
    w: clientW - px(cs.paddingLeft) - px(cs.paddingRight),
    h: clientH - px(cs.paddingTop) - px(cs.paddingBottom),
  };
  const content = {
    x: round2(r.x + scale.x * (px(cs.borderLeftWidth) + px(cs.paddingLeft))),
    y: round2(r.y + scale.y * (px(cs.borderTopWidth) + px(cs.paddingTop))),
    w: round2(scale.x * size.w),
    h: round2(scale.y * size.h),
  };
  return { content, scale, size };
}

// Below this a matrix term counts as zero.
const EPS = 1e-6;
const zero = (v) => Math.abs(v || 0) <= EPS;

// turnOf says how one element's transform keeps a frame inside it from
// being mapped by a scale and an offset: "rotated or skewed", "mirrored",
// "under a 3-D transform", or "" when it only moves and scales. t holds the
// element's parsed transform matrix m (a DOMMatrix's a–d, m11–m44 and
// is2D; null for none) and its computed rotate and scale properties. A 3-D
// matrix that only moves along z, as translateZ does to lift a layer,
// leaves the plane as a 2-D one would.
export function turnOf(t) {
  const m = t.m;
  if (m) {
    if (!m.is2D) {
      const flat = [m.m13, m.m14, m.m23, m.m24, m.m31, m.m32, m.m34].every(zero) && Math.abs((m.m44 ?? 1) - 1) <= EPS;
      if (!flat) return "under a 3-D transform";
    }
    if (!zero(m.b) || !zero(m.c)) return "rotated or skewed";
    if (m.a < 0 || m.d < 0) return "mirrored";
  }
  if (turnedAngle(t.rotate)) return "rotated or skewed";
  if (t.offsetPath && t.offsetPath !== "none") return "moved along a motion path";
  if (t.scale && t.scale !== "none" && t.scale.trim().split(/\s+/).some((v) => parseFloat(v) < 0)) return "mirrored";
  return "";
}

// turnedAngle reports whether a computed rotate value ("none", "45deg",
// "x 30deg", "0 0 1 90deg") turns anything: its angle, the last part, is
// not zero.
function turnedAngle(v) {
  if (!v || v === "none") return false;
  const angle = parseFloat(v.trim().split(/\s+/).pop());
  return !(angle === 0);
}

// refable reports whether an element with this computed style and box may
// be given a ref: visible with a box, and it receives pointer events.
export function refable(style, b) {
  if (b.w <= 0 || b.h <= 0) return false;
  if (style.visibility !== "visible") return false;
  if (style.pointerEvents === "none") return false;
  return true;
}

// visibleCentre is the centre of the part of box b inside a vw × vh
// viewport, or null when less than a pixel of it shows either way.
export function visibleCentre(b, vw, vh) {
  const x0 = Math.max(b.x, 0), x1 = Math.min(b.x + b.w, vw);
  const y0 = Math.max(b.y, 0), y1 = Math.min(b.y + b.h, vh);
  if (x1 - x0 < 1 || y1 - y0 < 1) return null;
  return { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
}

// insideContent reports whether a point in a frame's own viewport lies in
// the frame's content box c (edges included).
export function insideContent(c, x, y) {
  return !(x < 0 || y < 0 || x > c.w || y > c.h);
}

// inViewport reports whether point p lies in a vw × vh viewport (the far
// edges excluded).
export function inViewport(p, vw, vh) {
  return !(p.x < 0 || p.y < 0 || p.x >= vw || p.y >= vh);
}

// clipTo is the part of box b inside rect c, or null when less than a
// pixel of it lies inside either way.
export function clipTo(b, c) {
  const x0 = Math.max(b.x, c.x), x1 = Math.min(b.x + b.w, c.x + c.w);
  const y0 = Math.max(b.y, c.y), y1 = Math.min(b.y + b.h, c.y + c.h);
  if (x1 - x0 < 1 || y1 - y0 < 1) return null;
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

// scrollBy is how far a scroll box whose visible area is view, scrolled to
// s ({x, y, maxX, maxY}), must scroll to bring box b's centre to the
// middle of view, held to what it can still scroll: {dx, dy}, right and
// down positive, in CSS pixels.
export function scrollBy(b, view, s) {
  const want = (from, to, at, max) => {
    const d = from - to;
    return (d > 0 ? Math.min(d, Math.max(0, max - at)) : Math.max(d, -at)) || 0;
  };
  return {
    dx: round2(b.w > view.w ? want(b.x, view.x, s.x, s.maxX) : want(b.x + b.w / 2, view.x + view.w / 2, s.x, s.maxX)),
    dy: round2(b.h > view.h ? want(b.y, view.y, s.y, s.maxY) : want(b.y + b.h / 2, view.y + view.h / 2, s.y, s.maxY)),
  };
}
