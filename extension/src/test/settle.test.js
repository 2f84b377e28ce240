// A frame's settle (dom/settle.js) on a fake page and a mocked clock: it
// answers "quiet" once nothing changed for the quiet time, counted from the
// page's last change, "cap" on a page that keeps changing or is leaving its
// document, and leaves nothing behind. The quiet time is the golden
// request's. Imports dom/settle.js.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, mock, test } from "node:test";

const request = JSON.parse(readFileSync(new URL("../../../bridge/protocol/testdata/settle_request.json", import.meta.url), "utf8"));
const QUIET = request.params.quiet;

// The page: observers that can be made to report, window listeners, the
// Navigation API's events.
const observers = new Set();
const listeners = new Map(); // type → Set of functions
const navListeners = {};
Object.assign(globalThis, {
  document: { readyState: "complete", createTreeWalker: () => ({ nextNode: () => null }) },
  MutationObserver: class {
    constructor(fn) {
      this.fn = fn;
    }
    observe() {
      observers.add(this);
    }
    disconnect() {
      observers.delete(this);
    }
  },
  addEventListener: (t, fn) => (listeners.get(t) || listeners.set(t, new Set()).get(t)).add(fn),
  removeEventListener: (t, fn) => listeners.get(t) && listeners.get(t).delete(fn),
  navigation: { addEventListener: (t, fn) => (navListeners[t] = fn) },
  chrome: { dom: { openOrClosedShadowRoot: () => null } },
});
Object.defineProperty(globalThis, "performance", { value: { now: () => Date.now() }, configurable: true, writable: true });

const { settle, startSettle } = await import("../dom/settle.js");
startSettle();

const mutate = () => {
  for (const o of observers) o.fn([{ type: "childList" }]);
};
const fire = (t) => {
  for (const fn of listeners.get(t) || []) fn({});
};
const count = () => observers.size + [...listeners.values()].reduce((n, s) => n + s.size, 0);
const permanent = count(); // what startSettle keeps for the document's life

// start begins a settle and returns a function giving its answer so far.
function start(cap) {
  let answer = null;
  settle({ type: "settle", quiet: QUIET, cap }).then((a) => (answer = a));
  return () => answer && answer.result.settled;
}

// advance moves the clock on and lets the answer's promise run.
async function advance(ms) {
  mock.timers.tick(ms);
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

// The mocked clock runs on from test to test: the frame remembers when
// the page last changed.
let clock = Date.now() + 60000;
beforeEach(() => mock.timers.enable({ apis: ["setTimeout", "Date"], now: clock }));
afterEach(() => {
  clock = Date.now() + 60000;
  mock.timers.reset();
});

test("a page that changed just before the request answers quiet once the quiet time since the change has passed", async () => {
  mutate();
  await advance(10); // the act's effect landed before the request did
  const answer = start(1500);
  await advance(QUIET - 11);
  assert.equal(answer(), null);
  await advance(1);
  assert.equal(answer(), "quiet");
  assert.equal(count(), permanent, "the settle's own observer is gone once it answered");
});

test("a page quiet for long still waits a moment after the request for the act's input", async () => {
  const answer = start(1500);
  await advance(1);
  assert.equal(answer(), null);
  await advance(QUIET);
  assert.equal(answer(), "quiet");
});

test("a mutation or the act's own input restarts the quiet time", async () => {
  mutate();
  const answer = start(1500);
  await advance(QUIET - 10);
  mutate();
  await advance(QUIET - 10);
  assert.equal(answer(), null, "answered before the page was quiet after its mutation");
  fire("click");
  await advance(QUIET - 1);
  assert.equal(answer(), null, "answered before the page was quiet after the click");
  await advance(1);
  assert.equal(answer(), "quiet");
});

test("a page that keeps changing answers cap at the cap", async () => {
  const answer = start(500);
  for (let t = 0; t < 500; t += 20) {
    mutate();
    await advance(20);
  }
  assert.equal(answer(), "cap");
  assert.equal(count(), permanent);
});

test("a page still parsing is not quiet", async () => {
  document.readyState = "loading";
  const answer = start(1000);
  await advance(3 * QUIET);
  assert.equal(answer(), null);
  document.readyState = "interactive";
  await advance(QUIET);
  assert.equal(answer(), "quiet");
  document.readyState = "complete";
});

test("a frame leaving its document waits for the cap; a same-document or failed navigation does not hold it", async () => {
  navListeners.navigate({ destination: { sameDocument: true }, downloadRequest: null });
  let answer = start(1000);
  await advance(QUIET);
  assert.equal(answer(), "quiet", "a same-document navigation held the settle");

  navListeners.navigate({ destination: { sameDocument: false }, downloadRequest: null });
  answer = start(1000);
  await advance(3 * QUIET);
  assert.equal(answer(), null, "a frame leaving its document answered quiet");
  await advance(1000);
  assert.equal(answer(), "cap");

  // The navigation that did not come in time is not waited for again.
  answer = start(1000);
  await advance(QUIET);
  assert.equal(answer(), "quiet");

  navListeners.navigate({ destination: { sameDocument: false }, downloadRequest: null });
  navListeners.navigateerror();
  answer = start(1000);
  await advance(QUIET);
  assert.equal(answer(), "quiet", "a failed navigation held the settle");
});
