// The composed tree: shadow roots, open or closed, taken as part of the
// page, for walking, hit-testing and focus.
//
// DOM side (chrome.dom). Imports nothing.

export function shadowOf(el) {
  try {
    return chrome.dom.openOrClosedShadowRoot(el) || null;
  } catch {
    return el.shadowRoot || null;
  }
}

// deepFromPoint is the element at a point, looked for inside shadow roots.
export function deepFromPoint(x, y) {
  let hit = document.elementFromPoint(x, y);
  for (let i = 0; hit && i < 32; i++) {
    const sr = shadowOf(hit);
    if (!sr) break;
    const inner = sr.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

// composedContains reports whether inner is outer or inside it, across
// shadow boundaries.
export function composedContains(outer, inner) {
  for (let n = inner; n; n = n.parentNode || n.host) {
    if (n === outer) return true;
    if (n.nodeType === Node.DOCUMENT_NODE) return false;
  }
  return false;
}

// deepActive is the focused element, looked for inside shadow roots too.
export function deepActive() {
  let a = document.activeElement;
  for (let i = 0; a && i < 32; i++) {
    const sr = shadowOf(a);
    if (!sr || !sr.activeElement) break;
    a = sr.activeElement;
  }
  return a;
}
