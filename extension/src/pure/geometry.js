// Box arithmetic in CSS pixels: rounding what is reported, an iframe's
// content box, and the point an act aims at.
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
