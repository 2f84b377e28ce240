// Badge and panel (worker/badge.js): each tab's badge painted from the
// strip model, each open panel shown its own tab, and the panel's two
// buttons sent to the app for the panel's own tab only, each answered, or
// failed in words when the app does not answer or goes. Imports
// ../badge.js, ../pairing.js and the harness.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { FakeSocket, Log, event, fakeChrome, golden, install, prove, settled, vectors } from "./harness.js";

mock.timers.enable({ apis: ["setTimeout"] });
const chrome = fakeChrome({
  "runtime.sendNativeMessage": () => ({ port: vectors.port, secret: vectors.secret }),
  "tabs.query": () => [{ id: 1843 }, { id: 1844 }, { id: 1845 }],
});
install(chrome);
const B = await import("../badge.js");
const P = await import("../pairing.js");
const paired = new Log();
P.wire({ paired: () => paired.add(1), lost: () => B.failAsks(), request() {}, answer: B.answered, event() {} });

function panel() {
  const posted = new Log();
  const port = { onMessage: event(), onDisconnect: event(), postMessage: (m) => posted.add(JSON.parse(JSON.stringify(m))) };
  B.panelPort(port);
  return { port, posted, say: (m) => port.onMessage.fire(m) };
}

const badges = () => chrome.calls.filter((c) => c[0].startsWith("action.")).map((c) => [c[0], c[1]]);

test("each tab's badge is painted from the share table", async () => {
  B.strip.reset(true);
  B.strip.apply("shares", golden("shares_event.json").params);
  chrome.calls.length = 0;
  await B.refreshStrip("all");
  const want = [];
  for (const tabId of [1843, 1844, 1845]) {
    const b = B.strip.badge(tabId);
    want.push(["action.setBadgeText", { tabId, text: b.text }], ["action.setBadgeBackgroundColor", { tabId, color: b.color }], ["action.setTitle", { tabId, title: b.title }]);
  }
  assert.deepEqual(badges(), want);
  assert.deepEqual(want.filter((w) => w[0] === "action.setBadgeText").map((w) => w[1].text), ["C", "R", ""]);
  B.panelFor(1843);
  assert.deepEqual(chrome.calls.at(-1), ["sidePanel.setOptions", { tabId: 1843, path: "panel.html?tab=1843", enabled: true }]);
});

test("a panel is shown its own tab, again when that tab changes, and not for others", async () => {
  const p = panel();
  p.say({ watch: 1844 });
  assert.deepEqual(p.posted.at(-1), { view: JSON.parse(JSON.stringify(B.strip.view(1844))) });
  const n = p.posted.length;
  await B.refreshStrip([1843]);
  assert.equal(p.posted.length, n, "a panel was shown another tab's change");
  B.strip.apply("tab.state", { tab: 1844, state: "waiting" });
  await B.refreshStrip([1844]);
  assert.equal(p.posted.length, n + 1);
  p.port.onDisconnect.fire();
  await B.refreshStrip([1844]);
  assert.equal(p.posted.length, n + 1, "a closed panel was shown a change");
});

test("the panel's buttons: without Reins they fail in words, and ask nothing before the panel names its tab", async () => {
  const p = panel();
  p.say({ ask: "stop_sharing", rid: 1 });
  await settled();
  assert.equal(p.posted.length, 0, "a button of a panel with no tab was sent");
  p.say({ watch: 1843 });
  p.say({ ask: "stop_sharing", rid: 2 });
  await p.posted.wait(2);
  assert.deepEqual(p.posted[1], { rid: 2, error: "Reins is not connected" });
});

test("the panel's buttons reach the app for the panel's tab, and only the two that take power away", async () => {
  // The panels above woke the connection; Reins answers it now.
  assert.equal(FakeSocket.made.length, 1, "each panel dialled Reins anew");
  const sock = FakeSocket.made[0];
  sock.open();
  const app = await prove(sock, () => paired.wait(1));
  const p = panel();
  p.say({ watch: 1843 });
  p.say({ ask: "resume", rid: 3 });
  p.say({ ask: "stop_sharing", rid: 4, tab: 1844 });
  const [stop] = await app.received();
  const want = golden("stop_sharing_request.json");
  assert.deepEqual({ method: stop.method, params: stop.params }, { method: want.method, params: want.params });
  await app.deliver({ id: stop.id, result: {} });
  await p.posted.wait(2);
  assert.deepEqual(p.posted[1], { rid: 4, ok: true });

  p.say({ ask: "pause_all", rid: 5 });
  const [pause] = await app.received();
  assert.deepEqual([pause.method, pause.params], ["pause_all", {}]);
  await app.deliver({ id: pause.id, error: { code: "internal", message: "the log is full" } });
  await p.posted.wait(3);
  assert.deepEqual(p.posted[2], { rid: 5, error: "the log is full" });
  assert.equal(p.posted.length, 3, "the resume button was answered");

  p.say({ ask: "pause_all", rid: 6 });
  await app.received();
  mock.timers.tick(10000);
  await p.posted.wait(4);
  assert.deepEqual(p.posted[3], { rid: 6, error: "Reins did not answer in time; try again" });

  p.say({ ask: "pause_all", rid: 7 });
  await app.received();
  app.sock.close(1001, "Reins quit");
  await p.posted.wait(5);
  assert.deepEqual(p.posted[4], { rid: 7, error: "Reins disconnected before answering" });
});
