// Facts about this frame's window and where things sit in it: window
// metrics, the viewport, the frame's place in its parent, element boxes.
//
// DOM side. Imports pure modules only.

import { isUnit, roundBox, scaledContent, turnOf } from "../pure/geometry.js";

export function windowMetrics() {
  return {
    screenX: screenX,
    screenY: screenY,
    outerWidth: outerWidth,
    outerHeight: outerHeight,
    dpr: devicePixelRatio,
  };
}

export function viewport() {
  const vv = globalThis.visualViewport;
  const de = document.documentElement;
  return {
    width: vv ? vv.width : innerWidth,
    height: vv ? vv.height : innerHeight,
    innerWidth: innerWidth,
    innerHeight: innerHeight,
    clientWidth: de ? de.clientWidth : innerWidth,
    clientHeight: de ? de.clientHeight : innerHeight,
    scrollX: scrollX,
    scrollY: scrollY,
  };
}

// clientSize is the viewport an act's point must fall in, scrollbars left out.
export function clientSize() {
  return {
    vw: document.documentElement.clientWidth || innerWidth,
    vh: document.documentElement.clientHeight || innerHeight,
  };
}

// frameIndex is this frame's position in its parent's window.frames.
export function frameIndex() {
  if (window === window.parent) return -1;
  try {
    const fs = window.parent.frames;
    for (let i = 0; i < fs.length; i++) if (fs[i] === window) return i;
  } catch {}
  return -1;
}

// box is an element's border box in this frame's viewport.
export function box(el) {
  return roundBox(el.getBoundingClientRect());
}

// frameChild is where a frame's element shows its document, and which of
// this window's frames it holds: {content, scale, turned, src, index}, scale
// only when a transform scales the frame, turned only when one turns it.
export function frameChild(el) {
  const g = frameGeometry(el);
  let index = -1;
  try {
    const w = el.contentWindow;
    for (let i = 0; i < frames.length; i++) if (frames[i] === w) { index = i; break; }
  } catch {}
  const c = { content: g.content };
  if (!isUnit(g.scale)) c.scale = g.scale;
  if (g.turned) c.turned = g.turned;
  return { ...c, src: el.src || "", index };
}

// frameGeometry is a frame element's content box as it shows in this
// viewport, its scale, its content size in its own CSS pixels, and why no
// point in it can be mapped ("" when one can).
export function frameGeometry(el) {
  const g = scaledContent(el.getBoundingClientRect(), getComputedStyle(el), el.offsetWidth, el.offsetHeight, el.clientWidth, el.clientHeight);
  g.turned = turnedBy(el);
  return g;
}

// turnedBy walks from el up through its composed ancestors and names the
// first whose transform, rotate or scale turns what it holds: the reason
// for the agent, or "".
function turnedBy(el) {
  for (let n = el; n && n.nodeType === 1; n = n.parentElement || (n.parentNode && n.parentNode.host) || null) {
    const cs = getComputedStyle(n);
    let m = null;
    if (cs.transform && cs.transform !== "none") {
      try {
        m = new DOMMatrixReadOnly(cs.transform);
      } catch {
        return `the frame is under a transform Reins cannot read (on ${tagOf(n)}); Reins does not guess where its content shows`;
      }
    }
    const how = turnOf({ m, rotate: cs.rotate, scale: cs.scale, offsetPath: cs.offsetPath });
    if (how) return `the frame is ${how} (transform on ${tagOf(n)}); Reins does not guess where its content shows`;
  }
  return "";
}

// tagOf names an element for a message: its tag and id, "div#stage".
export function tagOf(el) {
  return el.tagName.toLowerCase() + (el.id ? "#" + String(el.id).slice(0, 40) : "");
}
