// Requests in flight (worker/inflight.js): only the tabs followed are
// followed, with one listener each that only observes; a request that began
// since a moment counts until it ends, and one that began before does not;
// a wait for the act's requests ends when they do, or at its deadline
// saying how many were still open; a tab no longer shared at control is
// dropped, its listeners removed. Imports ../inflight.js and the harness.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { fakeChrome, install, settled } from "./harness.js";

let clock = 0;
Object.defineProperty(globalThis, "performance", { configurable: true, value: { now: () => clock } });
mock.timers.enable({ apis: ["setTimeout"] });
const chrome = fakeChrome();
install(chrome);
const I = await import("../inflight.js");
const wr = chrome.webRequest;

const begin = (tabId, requestId, timeStamp) => wr.onBeforeRequest.fire({ tabId, requestId, timeStamp });
const end = (tabId, requestId) => wr.onCompleted.fire({ tabId, requestId });
const fail = (tabId, requestId) => wr.onErrorOccurred.fire({ tabId, requestId });

test("a followed tab's request counts from its beginning to its end", () => {
  I.followRequests([5]);
  assert.equal(wr.onBeforeRequest.listeners.length, 1);
  begin(5, "a", 1000);
  begin(5, "old", 400);
  begin(6, "other tab", 1000);
  assert.equal(I.openSince(5, 900), 1, "only the request that began since counts");
  assert.equal(I.openSince(6, 0), 0, "a tab not followed has no requests");
  end(5, "a");
  assert.equal(I.openSince(5, 900), 0);
  fail(5, "old");
  assert.equal(I.openSince(5, 0), 0, "a request that failed has ended");
  I.followRequests([]);
});

test("a wait for the act's requests ends when they are answered", async () => {
  I.followRequests([5]);
  assert.deepEqual(await I.answered(5, 0, 100), { ended: "none" });
  begin(5, "b", 2000);
  begin(5, "c", 2001);
  let got = null;
  I.answered(5, 1500, clock + 1000).then((r) => (got = r));
  end(5, "b");
  await settled();
  assert.equal(got, null, "one request is still open");
  fail(5, "c");
  await settled();
  assert.deepEqual(got, { ended: "answered" });
  I.followRequests([]);
});

test("a request still open at the deadline is said, with how many", async () => {
  I.followRequests([5]);
  begin(5, "slow", 3000);
  let got = null;
  I.answered(5, 2500, clock + 1500).then((r) => (got = r));
  clock += 1500;
  mock.timers.tick(1500);
  await settled();
  assert.deepEqual(got, { ended: "waiting", open: 1 });
  I.followRequests([]);
});

test("a tab no longer shared at control is dropped with its listeners", () => {
  I.followRequests([5, 9]);
  assert.equal(wr.onBeforeRequest.listeners.length, 2);
  assert.equal(wr.onCompleted.listeners.length, 2);
  begin(9, "d", 10);
  I.followRequests([5]);
  assert.equal(wr.onBeforeRequest.listeners.length, 1);
  assert.equal(wr.onErrorOccurred.listeners.length, 1);
  assert.equal(I.openSince(9, 0), 0);
  I.forgetRequests(5);
  assert.equal(wr.onBeforeRequest.listeners.length, 0);
});

test("a page that opens requests without end is followed up to a bound", () => {
  I.followRequests([5]);
  for (let i = 0; i < I.FOLLOW_MAX + 10; i++) begin(5, "r" + i, 10);
  assert.equal(I.openSince(5, 0), I.FOLLOW_MAX);
  I.followRequests([]);
});

test("a wait on a tab that stops being followed ends then, not at its deadline", async () => {
  I.followRequests([5]);
  begin(5, "e", 4000);
  let got = null;
  I.answered(5, 3500, clock + 1500).then((r) => (got = r));
  await settled();
  assert.equal(got, null);
  I.followRequests([]); // the share was taken back, or the app went away
  await settled();
  assert.deepEqual(got, { ended: "answered" });
});
