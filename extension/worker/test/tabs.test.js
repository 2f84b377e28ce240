// The tab list (worker/tabs.js): read as the golden answer has it, numbered
// as it is read, pushed to the app once for a burst of changes; and the
// content script put only into pages it may read. Imports ../tabs.js,
// ../pairing.js and the harness.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { Log, fakeChrome, golden, handshake, install, settled, vectors } from "./harness.js";

const want = golden("tabs_result.json").result;
const raw = [
  { ...want.tabs[0], index: 0, favIconUrl: "https://mail.example.com/favicon.ico", pinned: false },
  { ...want.tabs[1], index: 1, openerTabId: undefined },
  { id: 1860, windowId: 1850, index: 0, url: "file:///tmp/a.html", title: "a", active: true, status: "complete", openerTabId: 1843 },
  { id: 1861, windowId: 1850, index: 1, url: "chrome://settings/", active: false },
];
const chrome = fakeChrome({
  "runtime.sendNativeMessage": () => ({ port: vectors.port, secret: vectors.secret }),
  "tabs.query": () => raw,
  "windows.getLastFocused": () => ({ id: 1842, focused: true }),
  "scripting.executeScript": () => [],
});
install(chrome);
const T = await import("../tabs.js");
const P = await import("../pairing.js");

test("the list reads as the golden answer, numbered as it is read", async () => {
  const first = await T.listTabs();
  const second = await T.listTabs();
  const third = await T.listTabs();
  assert.deepEqual([first.seq, second.seq, third.seq], [1, 2, 3]);
  assert.deepEqual({ ...third, tabs: third.tabs.slice(0, 2) }, want);
  assert.deepEqual(third.tabs[2], { id: 1860, windowId: 1850, url: "file:///tmp/a.html", title: "a", active: true, focused: false, status: "complete", opener: 1843 });
  assert.deepEqual(third.tabs[3], { id: 1861, windowId: 1850, url: "chrome://settings/", title: "", active: false, focused: false, status: "" });
});

test("no window in focus: no tab is focused", async () => {
  chrome.windows.getLastFocused = async () => ({ id: 1842, focused: false });
  assert.ok((await T.listTabs()).tabs.every((t) => !t.focused));
  chrome.windows.getLastFocused = async () => {
    throw new Error("No last-focused window");
  };
  assert.ok((await T.listTabs()).tabs.every((t) => !t.focused));
});

test("a burst of changes is pushed to the app once, after it", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const paired = new Log();
  P.wire({ paired: () => paired.add(1), lost() {}, request() {}, answer() {}, event() {} });
  const app = await handshake(() => P.ensureConnected(), () => paired.wait(1));
  T.pushTabs();
  T.pushTabs();
  mock.timers.tick(49);
  T.pushTabs();
  mock.timers.tick(50);
  const [m] = await app.received();
  assert.equal(m.method, "tabs.changed");
  assert.equal(m.params.tabs.length, raw.length);
  mock.timers.tick(1000);
  await settled();
  P.emit("probe", {});
  assert.deepEqual(await app.received(), [{ method: "probe", params: {} }], "more than one list went out");
  mock.timers.reset();
});

test("the content script goes only into pages it may read", async () => {
  await T.injectIntoOpenTabs();
  const injected = chrome.calls.filter((c) => c[0] === "scripting.executeScript").map((c) => c[1]);
  assert.deepEqual(injected, [
    { target: { tabId: 1843, allFrames: true }, files: ["content.js"] },
    { target: { tabId: 1851, allFrames: true }, files: ["content.js"] },
    { target: { tabId: 1860, allFrames: true }, files: ["content.js"] },
  ]);
});
