// Facts about this frame's window and where things sit in it: window
// metrics, the viewport, the frame's place in its parent, element boxes.
//
// DOM side. Imports pure modules only.

import { contentBox, roundBox } from "../pure/geometry.js";

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
// this window's frames it holds.
export function frameChild(el) {
  const content = contentBox(el.getBoundingClientRect(), getComputedStyle(el), el.clientWidth, el.clientHeight);
  let index = -1;
  try {
    const w = el.contentWindow;
    for (let i = 0; i < frames.length; i++) if (frames[i] === w) { index = i; break; }
  } catch {}
  return { content, src: el.src || "", index };
}
