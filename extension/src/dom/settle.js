// A frame's part in a settle: after an act, the worker asks each frame to
// answer once nothing on its page has changed for a quiet time, or at a
// cap. It only watches: a MutationObserver and passive listeners of its own
// that note when the page last changed (the act's effect usually lands
// before the request does), shadow roots watched for the length of one
// settle, and the Navigation API's "navigate" event, to know the document
// is being left (a link was followed) and its answer must come from the
// next one.
//
// DOM side. Imports dom/composed.js.

import { shadowOf } from "./composed.js";

// Changes a snapshot can show without a mutation, and the act's own input
// reaching the page: each one restarts the quiet time.
const STIRS = [
  "pointerdown", "pointerup", "click", "keydown", "keyup", "input", "change", "scroll",
  "load", "error", "transitionend", "animationend", "toggle", "readystatechange",
];
// Elements looked at for shadow roots when a settle starts: a bound on its
// cost on a large page, whose deeper shadow trees then go unwatched.
const MAX_ELEMENTS = 20000;
const OBSERVE = { subtree: true, childList: true, attributes: true, characterData: true };
const LISTEN = { capture: true, passive: true };
// A settle lasts at least this long after its request, however long the
// page had been quiet before: the act's input may still be on its way.
const MIN_WAIT_MS = 15;

// leavingAt is when a navigation to another document began here; 0 when
// none is under way.
let leavingAt = 0;
// changedAt is when the page last changed, as far as the frame saw.
let changedAt = 0;
const changed = () => (changedAt = performance.now());

// startSettle notes changes to the document and navigations away from it,
// once.
export function startSettle() {
  try {
    changed();
    new MutationObserver(changed).observe(document, OBSERVE);
    for (const t of STIRS) addEventListener(t, changed, LISTEN);
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

// settle answers {result: {settled}} once the frame has had no change for
// msg.quiet milliseconds, has finished parsing and MIN_WAIT_MS have passed
// since the request ("quiet"), or at msg.cap milliseconds ("cap"). A frame
// leaving its document does not answer "quiet": the worker hears its port
// close and asks the new document.
export function settle(msg) {
  const quiet = Math.max(0, Number(msg.quiet) || 0);
  const cap = Math.max(0, Number(msg.cap) || 0);
  return new Promise((resolve) => {
    const start = performance.now();
    // Shadow trees are watched only while this settle lasts.
    const observer = new MutationObserver(changed);
    let timer = 0;
    const done = (settled) => {
      clearTimeout(timer);
      observer.disconnect();
      if (settled === "cap") leavingAt = 0; // a navigation that did not come in time is not waited for again
      resolve({ result: { settled } });
    };
    const check = () => {
      const now = performance.now();
      if (now - start >= cap) return done("cap");
      const idle = now - Math.max(changedAt, start + MIN_WAIT_MS - quiet);
      if (!leavingAt && document.readyState !== "loading" && idle >= quiet) return done("quiet");
      const wait = leavingAt || document.readyState === "loading" ? quiet || 10 : quiet - idle;
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
