// The capture queue (worker/capture.js): at most two pictures in any window
// of a little over a second, in the order asked, a clear "busy" for one
// that finds no turn before its deadline, a capture Chrome refused for its
// rate tried again, and only the tab on screen captured. Time is the
// test's: a clock of its own and node's mock timers. Imports ../capture.js
// and the harness.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { fakeChrome, install, settled } from "./harness.js";

let clock = 0;
Object.defineProperty(globalThis, "performance", { configurable: true, value: { now: () => clock } });
mock.timers.enable({ apis: ["setTimeout"] });

const shots = []; // [tab's window, time]
let refuse = 0; // how many captures Chrome refuses for its rate
const chrome = fakeChrome({
  "tabs.get": (id) => ({ id, windowId: id * 10, active: id !== 99 }),
  "tabs.captureVisibleTab": (win) => {
    if (refuse > 0) {
      refuse--;
      throw new Error("This request exceeds the MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND quota.");
    }
    shots.push([win, clock]);
    return `data:image/png;base64,${shots.length}`;
  },
});
install(chrome);
const { captureTab } = await import("../capture.js");

// advance moves the clock and the timers on by ms, letting the queue work
// at each step.
async function advance(ms) {
  for (let i = 0; i < ms; i += 10) {
    await settled();
    clock += 10;
    mock.timers.tick(10);
  }
  await settled();
}

// idle lets the queue's last window pass, so a test starts with no turn taken.
const idle = () => advance(1100);

test("two pictures a window, in the order asked", async () => {
  shots.length = 0;
  const start = clock;
  const got = [];
  const asked = [1, 2, 3, 4, 5].map((tab) => captureTab(tab).then((d) => got.push([tab, d])));
  await advance(2200);
  await Promise.all(asked);
  assert.deepEqual(got.map((g) => g[0]), [1, 2, 3, 4, 5]);
  assert.deepEqual(shots.map((s) => [s[0], s[1] - start]), [[10, 0], [20, 0], [30, 1040], [40, 1040], [50, 2080]]);
  await idle();
});

test("a picture that finds no turn before its deadline is refused as busy", async () => {
  shots.length = 0;
  const results = await (async () => {
    const asked = Array.from({ length: 20 }, (_, i) => captureTab(i + 1).then(() => "ok", (e) => e));
    await advance(8500);
    return Promise.all(asked);
  })();
  const ok = results.filter((r) => r === "ok").length;
  assert.equal(ok, 16, "2 a window for 8 s");
  for (const e of results.slice(16)) {
    assert.equal(e.code, "busy");
    assert.match(e.message, /^Chrome takes at most 2 pictures a second and this one found no turn within 8 s \(\d+ more were waiting\); try again in a moment$/);
  }
  await idle();
});

test("a picture Chrome refused for its rate is taken at the next turn", async () => {
  shots.length = 0;
  refuse = 1;
  const start = clock;
  const asked = captureTab(7);
  await advance(1100);
  assert.equal(await asked, "data:image/png;base64,1");
  assert.deepEqual(shots.map((s) => [s[0], s[1] - start]), [[70, 0]]);
  await idle();
});

test("only the tab on screen is captured", async () => {
  shots.length = 0;
  const asked = captureTab(99).catch((e) => e);
  await advance(10);
  const e = await asked;
  assert.equal(e.code, "unsupported");
  assert.equal(shots.length, 0);
});
