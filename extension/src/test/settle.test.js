// A frame's settle (dom/settle.js) on a fake page and a mocked clock: it
// answers "quiet" once nothing changed for the quiet time, counted from the
// page's last change, "cap" on a page that keeps changing or is leaving its
// document, and leaves nothing behind. It learns the page's churn — spots
// that keep changing on their own at a steady pace, in one shape — and does
// not wait for it, but for anything else, and says what churned. The quiet
// time is the golden request's. Imports dom/settle.js.
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

const { LEARN, settle, shapeOf, startSettle, takeChurn, testOnlyForget } = await import("../dom/settle.js");
startSettle();
const pageObserver = [...observers][0]; // the document's own, for the life of the page

const mutate = () => {
  for (const o of observers) o.fn([{ type: "childList" }]);
};
const fire = (t) => {
  for (const fn of listeners.get(t) || []) fn({ type: t });
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

// spot is an element whose text or attributes a page script changes.
function spot(text, parentText) {
  const parent = parentText ? { textContent: parentText, parentElement: null } : null;
  return { localName: "div", textContent: text, parentElement: parent, isConnected: true, attrs: {}, getAttribute(n) { return this.attrs[n]; } };
}
// tick sets el's text as a page script does, and tells the page's observer.
function tick(el, text, parentText) {
  el.textContent = text;
  if (el.parentElement) el.parentElement.textContent = parentText;
  pageObserver.fn([{ type: "childList", target: el, addedNodes: [{ nodeType: 3 }], removedNodes: [{ nodeType: 3 }] }]);
}
// ticking ticks el every `every` ms for ms, with the count after n.
async function ticking(el, n, every, ms) {
  for (let t = 0; t < ms; t += every) {
    n++;
    tick(el, String(n), "Ticks: " + n);
    await advance(every);
  }
  return n;
}

test("a spot's shape is its text with the figures folded", () => {
  assert.equal(shapeOf("Ticks: 12"), shapeOf("Ticks: 9871"));
  assert.equal(shapeOf("12:04:59"), "0:0:0");
  assert.notEqual(shapeOf("Ticks: 12"), shapeOf("Stopped at 12"));
});

test("a clock that ticks at a steady pace is learned: a settle beside it answers quiet and says it churned", async () => {
  testOnlyForget();
  const clock = spot("0", "Ticks: 0");
  let n = await ticking(clock, 0, 50, 50 * (LEARN + 2));
  const answer = start(1500);
  await ticking(clock, n, 50, 2 * QUIET);
  assert.equal(answer(), "quiet", "the settle waited for the clock");
  const churn = takeChurn();
  assert.equal(churn.length, 1);
  assert.match(churn[0].text, /^Ticks: \d+$/, "the churn is told by its parent's words when its own are a figure");
  assert.ok(Math.abs(churn[0].every - 50) <= 5, `every ${churn[0].every}`);
  assert.deepEqual(takeChurn(), [], "churn is told once");
});

test("a clock not yet learned holds the settle until it is", async () => {
  testOnlyForget();
  const clock = spot("0", "Ticks: 0");
  const answer = start(1500);
  await ticking(clock, 0, 50, 50 * (LEARN - 1));
  assert.equal(answer(), null);
  await ticking(clock, LEARN - 1, 50, 50 + QUIET + 50);
  assert.equal(answer(), "quiet", "the clock was not learned while the settle waited");
});

test("a learned spot that changes into another shape is news, and so are elements added", async () => {
  testOnlyForget();
  const clock = spot("0", "Ticks: 0");
  let n = await ticking(clock, 0, 50, 50 * (LEARN + 2));
  let answer = start(1500);
  await advance(5);
  clock.textContent = "Stopped at " + n;
  pageObserver.fn([{ type: "characterData", target: { parentElement: clock } }]);
  await advance(QUIET - 10);
  assert.equal(answer(), null, "a change of the clock's words did not restart the quiet time");
  await advance(10);
  assert.equal(answer(), "quiet");
  assert.deepEqual(takeChurn(), [], "a clock that changed its words was told as churning");

  answer = start(1000);
  for (let t = 0; t < 1000; t += 50) {
    pageObserver.fn([{ type: "childList", target: clock, addedNodes: [{ nodeType: 1 }], removedNodes: [] }]);
    await advance(50);
  }
  assert.equal(answer(), "cap", "elements added at a steady pace were taken for churn");
});

test("an attribute that keeps changing is churn; a change soon after input never teaches churn", async () => {
  testOnlyForget();
  const bar = spot("");
  const attr = async (v) => {
    bar.attrs.style = v;
    pageObserver.fn([{ type: "attributes", target: bar, attributeName: "style" }]);
  };
  for (let i = 0; i < LEARN + 2; i++) {
    await attr(`width: ${i}%`);
    await advance(40);
  }
  let answer = start(1500);
  for (let i = 0; i < 5; i++) {
    await attr(`width: ${10 + i}%`);
    await advance(40);
  }
  assert.equal(answer(), "quiet", "a progress bar held the settle");
  assert.deepEqual(takeChurn().map((c) => c.text), ["the div element's style attribute"], "a spot with no words is told by its element and attribute");

  // The act's own effect, repeated on each act: never churn.
  const out = spot("Pressed 0 times");
  for (let i = 1; i <= 6; i++) {
    fire("click");
    out.textContent = `Pressed ${i} times`;
    pageObserver.fn([{ type: "characterData", target: { parentElement: out } }]);
    await advance(40);
  }
  answer = start(1500);
  for (let i = 7; i < 12; i++) {
    out.textContent = `Pressed ${i} times`;
    pageObserver.fn([{ type: "characterData", target: { parentElement: out } }]);
    await advance(40);
  }
  assert.equal(answer(), null, "changes right after input were learned as churn");
  await advance(QUIET);
  assert.equal(answer(), "quiet");
});

test("on a churning page, an act's late effect is waited for; an act with none is not held to the cap", async () => {
  testOnlyForget();
  const clock = spot("0", "Ticks: 0");
  let n = await ticking(clock, 0, 50, 50 * (LEARN + 2));
  fire("pointerdown");
  fire("click");
  let answer = start(1500);
  n = await ticking(clock, n, 50, 300);
  assert.equal(answer(), null, "answered before the act's effect");
  pageObserver.fn([{ type: "childList", target: spot(""), addedNodes: [{ nodeType: 1 }], removedNodes: [] }]); // the effect
  n = await ticking(clock, n, 50, QUIET + 50);
  assert.equal(answer(), "quiet", "the act's effect was not taken for one");
  takeChurn();

  fire("click");
  answer = start(1500);
  n = await ticking(clock, n, 50, 1000);
  assert.equal(answer(), "quiet", "an act without an effect was held past its grace");
});
