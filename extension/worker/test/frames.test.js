// The frames' content scripts (worker/frames.js): a request goes over the
// frame's port and its answer comes back by its number; a refusal keeps its
// code and what the element is now; a frame's last full read answers a
// repeat snapshot only while the frame has not stirred, within its quiet
// second, and not past a navigation of its frame or of the top frame; a
// new document's port replaces the old; and a frame without a
// port is asked by a one-off message, or is said to have no content
// script. Imports ../frames.js and the harness.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { Log, event, fakeChrome, install, settled } from "./harness.js";

let clock = 0;
Object.defineProperty(globalThis, "performance", { configurable: true, value: { now: () => clock } });
mock.timers.enable({ apis: ["setTimeout"] });
const oneOff = new Log();
const chrome = fakeChrome({ "tabs.sendMessage": (tab, msg, o) => (oneOff.add([tab, msg, o]), undefined) });
install(chrome);
const F = await import("../frames.js");

function frame(tab, frameId) {
  const posted = new Log();
  const port = { name: "reins-frame", sender: { tab: { id: tab }, frameId }, onMessage: event(), onDisconnect: event(), posted };
  port.postMessage = (m) => posted.add(m);
  port.disconnect = () => (port.gone = true);
  F.framePort(port);
  return { port, posted, answer: (m) => port.onMessage.fire(m) };
}

test("a request goes over the frame's port and its answer comes back by number", async () => {
  const f = frame(7, 0);
  const asked = F.ask(7, 0, { type: "metrics" });
  await f.posted.wait(1);
  assert.equal(f.posted[0].type, "metrics");
  f.answer({ rid: f.posted[0].rid + 1000, result: { wrong: true } });
  f.answer({ rid: f.posted[0].rid, result: { doc: "d1", epoch: 0 } });
  assert.deepEqual(await asked, { doc: "d1", epoch: 0 });

  const refused = F.ask(7, 0, { type: "resolve" }).catch((e) => e);
  await f.posted.wait(2);
  f.answer({ rid: f.posted[1].rid, error: { code: "changed", message: "the element changed", now: { name: "Pay" } } });
  const e = await refused;
  assert.deepEqual([e.code, e.message, e.now], ["changed", "the element changed", { name: "Pay" }]);
});

test("a frame's last full read answers again only while it is quiet", async () => {
  const f = frame(7, 1);
  const asked = F.ask(7, 1, { type: "snapshot" });
  await f.posted.wait(1);
  f.answer({ rid: f.posted[0].rid, result: { doc: "d2", version: 3, tree: { role: "document" }, same: false } });
  await asked;
  assert.deepEqual(F.quietReport(7, 1, "d2:3"), { doc: "d2", version: 3, same: true, took: 0 });
  assert.equal(F.quietReport(7, 1, "d2:2"), null, "the app holds another read");
  clock += 1001;
  assert.equal(F.quietReport(7, 1, "d2:3"), null, "the quiet second is over");
  clock -= 1001;
  f.answer({ stirred: true });
  assert.equal(F.quietReport(7, 1, "d2:3"), null, "the frame stirred");
});

test("a navigation drops the reads held from the frame's document, every frame's for the top frame", async () => {
  const reads = {};
  for (const id of [0, 1, 2]) {
    const f = frame(10, id);
    const asked = F.ask(10, id, { type: "snapshot" });
    await f.posted.wait(1);
    f.answer({ rid: f.posted[0].rid, result: { doc: `d${id}`, version: 1, tree: "{}", same: false } });
    await asked;
    reads[id] = `d${id}:1`;
  }
  F.forgetReads(10, 2);
  assert.equal(F.quietReport(10, 2, reads[2]), null, "the navigating frame's read was kept");
  assert.notEqual(F.quietReport(10, 1, reads[1]), null, "another frame's read was dropped");
  F.forgetReads(10, 0);
  assert.equal(F.quietReport(10, 0, reads[0]), null);
  assert.equal(F.quietReport(10, 1, reads[1]), null, "a frame's read outlived the top frame's document");
});

test("a new document's port replaces the old, whose questions go by one-off message", async () => {
  const old = frame(8, 0);
  const asked = F.ask(8, 0, { type: "metrics" }).catch((e) => e);
  await old.posted.wait(1);
  const fresh = frame(8, 0);
  assert.equal(old.port.gone, true);
  old.port.onDisconnect.fire();
  await oneOff.wait(1);
  assert.deepEqual(oneOff[0], [8, { type: "metrics" }, { frameId: 0 }]);
  const e = await asked;
  assert.deepEqual([e.code, e.message], ["no_frame", "frame 0 has no Reins content script"]);
  assert.equal(F.framePorts.get("8:0").port, fresh.port);
});

test("a frame that does not answer fails in words after the frame's time", async () => {
  const f = frame(9, 2);
  const asked = F.ask(9, 2, { type: "metrics" }).catch((e) => e);
  await f.posted.wait(1);
  mock.timers.tick(F.FRAME_TIMEOUT_MS);
  const e = await asked;
  assert.deepEqual([e.code, e.message], ["internal", "frame 2 did not answer"]);
  await settled();
});
