// Ids a frame gives itself: random, in the form of a version 4 UUID, from
// random bytes the caller fills (the DOM side uses getRandomValues, which
// every context has; crypto.randomUUID exists only in secure contexts, and
// a plain-http page of another computer is none).
//
// Pure: no DOM, no chrome.*, no page globals. Imports nothing.

export function newID(fill) {
  const b = new Uint8Array(16);
  fill(b);
  b[6] = (b[6] & 0x0f) | 0x40; // version 4
  b[8] = (b[8] & 0x3f) | 0x80; // the RFC 4122 variant
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
