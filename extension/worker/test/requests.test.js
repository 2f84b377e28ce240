// The handler table and the share mirror (worker/requests.js): one handler
// for every request the app sends (bridge/protocol's methods), the level
// each needs as NeedsShare says, refusals before any handler runs for a tab
// the latest share table does not share, a snapshot checked against the
// documents it reads (a quiet repeat asks the browser nothing; a tab that
// moved to another site is refused with nothing of it sent), and errors as
// the wire carries them. Imports ../requests.js, ../badge.js (for the strip
// model), ../frames.js (for the frames' ports) and the harness.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { FakeSocket, Log, event, fakeChrome, golden, install } from "./harness.js";

const TABS = {
  1843: { id: 1843, windowId: 1842, index: 0, url: "https://shop.example.com/cart", active: true },
  1844: { id: 1844, windowId: 1842, index: 1, url: "https://mail.example.com/inbox", active: false },
  1845: { id: 1845, windowId: 1842, index: 2, url: "https://bank.example/", active: false },
};
const chrome = fakeChrome({
  "tabs.get": (id) => {
    if (!TABS[id]) throw new Error(`No tab with id: ${id}.`);
    return TABS[id];
  },
  "tabs.query": () => Object.values(TABS),
  "tabs.create": (o) => ({ id: 1900, ...o }),
  "tabs.getZoom": () => 1.5,
  "windows.getLastFocused": () => ({ id: 1842, focused: true }),
  "webNavigation.getAllFrames": (o) => FRAMES[o.tabId] || [],
  "tabs.sendMessage": (tab, msg, o) => ONE_OFF[`${tab}:${o.frameId}`],
});
const FRAMES = {}; // tab → the frame list the browser gives
const ONE_OFF = {}; // "tab:frame" → a frame's answer to a one-off message
install(chrome);
const { HANDLERS, NEEDS, handleRequest } = await import("../requests.js");
const { strip } = await import("../badge.js");
const F = await import("../frames.js");

// The app's side of a link: what the worker sends on it, unsealed.
const sent = new Log();
const link = { sealed: { seal: async (text) => text }, sock: { readyState: FakeSocket.OPEN, send: (f) => sent.add(JSON.parse(f)) } };
let nextID = 1;
async function call(method, params) {
  const id = "a" + nextID++;
  const n = sent.length + 1;
  handleRequest(link, { id, method, params });
  await sent.wait(n);
  const m = sent[n - 1];
  assert.equal(m.id, id);
  return m;
}

// The protocol's methods, read from the Go source the bridge is built from.
function protocolMethods() {
  const dir = new URL("../../../bridge/protocol/", import.meta.url);
  const names = {};
  let needs = "";
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"))) {
    const src = readFileSync(new URL(f, dir), "utf8");
    for (const m of src.matchAll(/\b(Method\w+)\s*=\s*"([^"]+)"/g)) names[m[1]] = m[2];
    const i = src.indexOf("func NeedsShare(");
    if (i >= 0) needs = src.slice(i, src.indexOf("\n}\n", i));
  }
  const levels = {};
  for (const m of needs.matchAll(/case ([^:]+):\s*return Level(\w+)/g)) {
    for (const c of m[1].split(",")) levels[names[c.trim()]] = m[2].toLowerCase();
  }
  return { names, levels };
}

test("there is one handler for every request the app sends, and no other", () => {
  const { names } = protocolMethods();
  const theirs = new Set(["challenge", "hello", "stop_sharing", "pause_all"]); // the handshake's, and the extension's own asks
  const app = Object.values(names).filter((m) => !theirs.has(m)).sort();
  assert.ok(app.length >= 14, `only ${app.length} methods read from bridge/protocol`);
  assert.deepEqual(Object.keys(HANDLERS).sort(), app);
});

test("the level each request needs is NeedsShare's", () => {
  const { levels } = protocolMethods();
  assert.deepEqual({ ...NEEDS }, levels);
});

test("before the first share table every tab request is refused, and nothing is read", async () => {
  strip.reset(true);
  chrome.calls.length = 0;
  const m = await call("snapshot", { tab: 1843 });
  assert.equal(m.error.code, "not_shared");
  assert.match(m.error.message, /^the Reins extension refused to snapshot: /);
  assert.deepEqual(chrome.calls.map((c) => c[0]), ["tabs.get"], "more than the tab's address was read");
});

test("the share table decides: read needs read, acts need control, on the site shared", async () => {
  strip.reset(true);
  strip.apply("shares", golden("shares_event.json").params);
  const read = await call("snapshot", { tab: 1844 });
  assert.deepEqual(read.result, { tab: 1844, zoom: 1.5, frames: [] });
  const act = await call("navigate", { tab: 1844, direction: "back" });
  assert.equal(act.error.code, "not_shared");
  assert.match(act.error.message, /read only/);
  assert.equal((await call("navigate", { tab: 1843, direction: "back" })).error, undefined);
  assert.deepEqual(chrome.calls.at(-1), ["tabs.goBack", 1843]);
  assert.equal((await call("capture", { tab: 1845 })).error.code, "not_shared");
  TABS[1843].url = "https://evil.example/";
  const moved = await call("snapshot", { tab: 1843 });
  TABS[1843].url = "https://shop.example.com/cart";
  assert.equal(moved.error.code, "not_shared");
  assert.match(moved.error.message, /no longer shows/);
});

test("requests without a tab need no share; a tab request without a tab id is refused", async () => {
  assert.deepEqual((await call("keepalive", {})).result, {});
  const tabs = await call("tabs", null);
  assert.equal(tabs.result.tabs.length, 3);
  assert.ok(Number.isInteger(tabs.result.seq));
  assert.equal((await call("snapshot", { tab: "1843" })).error.code, "bad_request");
  assert.equal((await call("snapshot", {})).error.code, "bad_request");
  const unknown = await call("evaluate", { tab: 1843, code: "1" });
  assert.deepEqual(unknown.error, { code: "unknown_method", message: "unknown method evaluate" });
  assert.equal((await call("toString", {})).error.code, "unknown_method", "an Object method passed for a handler");
});

test("errors go out with the wire's codes", async () => {
  strip.reset(true);
  strip.apply("shares", { seq: 9, paused: false, tabs: [{ tab: 5, level: "control", origin: "https://gone.example" }, { tab: 1843, level: "control", origin: "https://shop.example.com" }] });
  assert.equal((await call("activate", { tab: 5 })).error.code, "no_tab");
  const bad = await call("new_tab", { tab: 1843, url: "javascript:alert(1)" });
  assert.deepEqual(bad.error, { code: "bad_request", message: "only http and https addresses can be opened" });
  assert.deepEqual((await call("new_tab", { tab: 1843, url: "https://shop.example.com/help" })).result, { tab: 1900 });
  assert.deepEqual(chrome.calls.find((c) => c[0] === "tabs.create")[1], { url: "https://shop.example.com/help", windowId: 1842, index: 1, active: true });
  TABS[1843].active = false;
  const hidden = await call("capture", { tab: 1843 });
  TABS[1843].active = true;
  assert.deepEqual(hidden.error, { code: "unsupported", message: "the tab is not the visible one in its window" });
});

// A frame's document: the port its content script opens, with the origin
// and document id the browser gives, and what it answers.
function documentIn(tab, frameId, origin, documentId) {
  const posted = new Log();
  const port = { name: "reins-frame", sender: { tab: { id: tab }, frameId, origin, url: origin + "/", documentId }, onMessage: event(), onDisconnect: event(), posted };
  port.postMessage = (m) => posted.add(m);
  port.disconnect = () => port.onDisconnect.fire();
  F.framePort(port);
  return { port, posted, answer: (m) => port.onMessage.fire(m) };
}
const read = (origin, words) => ({ url: origin + "/", origin, doc: "d-" + origin, epoch: 0, version: 1, same: false, tree: JSON.stringify({ role: "document", name: words }) });
const browserCalls = () => chrome.calls.filter((c) => c[0] !== "tabs.sendMessage").map((c) => c[0]);

test("a repeat snapshot of a quiet page is answered from its document's held read, asking the browser nothing", async () => {
  strip.reset(true);
  strip.apply("shares", golden("shares_event.json").params);
  F.forgetFacts(1843);
  FRAMES[1843] = [{ frameId: 0, parentFrameId: -1, url: "https://shop.example.com/cart", documentId: "DOC-SHOP" }];
  const shop = documentIn(1843, 0, "https://shop.example.com", "DOC-SHOP");
  const first = call("snapshot", { tab: 1843 });
  await shop.posted.wait(1);
  shop.answer({ rid: shop.posted[0].rid, result: read("https://shop.example.com", "Basket") });
  const m = await first;
  assert.match(m.result.frames[0].tree, /Basket/);
  chrome.calls.length = 0;
  const again = await call("snapshot", { tab: 1843, known: { 0: "d-https://shop.example.com:1" } });
  assert.equal(again.result.frames[0].same, true);
  assert.equal(shop.posted.length, 1, "the frame was asked again");
  assert.deepEqual(browserCalls(), [], "the browser was asked");
});

test("a tab that moved to another site is refused, with nothing of that site in the answer", async (t) => {
  strip.reset(true);
  strip.apply("shares", golden("shares_event.json").params);
  const evil = "https://evil.example";
  const leaked = (m) => JSON.stringify(m).includes("Evil words");
  t.after(() => (TABS[1843].url = "https://shop.example.com/cart"));

  // The new document's port came: refused before it is asked anything.
  F.forgetFacts(1843);
  FRAMES[1843] = [{ frameId: 0, parentFrameId: -1, url: evil + "/", documentId: "DOC-EVIL" }];
  TABS[1843].url = evil + "/";
  const there = documentIn(1843, 0, evil, "DOC-EVIL");
  const m1 = await call("snapshot", { tab: 1843, known: { 0: "d-https://shop.example.com:1" } });
  assert.equal(m1.error.code, "not_shared");
  assert.match(m1.error.message, /no longer shows https:\/\/shop\.example\.com/);
  assert.equal(there.posted.length, 0, "the other site's document was asked");

  // The shop's document still holds its port and a quiet read, but the
  // browser's frame list names another document for the top frame: the
  // tab's address is read before anything is sent.
  F.forgetFacts(1843);
  const shop = documentIn(1843, 0, "https://shop.example.com", "DOC-SHOP");
  const first = call("snapshot", { tab: 1843 });
  TABS[1843].url = "https://shop.example.com/cart";
  FRAMES[1843] = [{ frameId: 0, parentFrameId: -1, url: "https://shop.example.com/cart", documentId: "DOC-SHOP" }];
  await shop.posted.wait(1);
  shop.answer({ rid: shop.posted[0].rid, result: read("https://shop.example.com", "Basket") });
  assert.match((await first).result.frames[0].tree, /Basket/);
  F.forgetFacts(1843);
  FRAMES[1843] = [{ frameId: 0, parentFrameId: -1, url: evil + "/", documentId: "DOC-EVIL" }];
  TABS[1843].url = evil + "/";
  chrome.calls.length = 0;
  const m2 = await call("snapshot", { tab: 1843, known: { 0: "d-https://shop.example.com:1" } });
  assert.equal(m2.error.code, "not_shared");
  assert.ok(browserCalls().includes("tabs.get"), "the tab's address was not read");

  // No port: the frame answers by a one-off message from whichever document
  // it shows, here the other site's, though the address read before the
  // read still showed the shop.
  shop.port.disconnect();
  F.forgetFacts(1843);
  TABS[1843].url = "https://shop.example.com/cart";
  FRAMES[1843] = [{ frameId: 0, parentFrameId: -1, url: "https://shop.example.com/cart", documentId: "DOC-SHOP" }];
  F.framePorts.delete("1843:0");
  ONE_OFF["1843:0"] = { result: read(evil, "Evil words") };
  const m3 = await call("snapshot", { tab: 1843 });
  delete ONE_OFF["1843:0"];
  assert.equal(m3.error.code, "not_shared");
  assert.ok(!leaked(m1) && !leaked(m2) && !leaked(m3), "the other site's words were sent");
});

test("a frame without a content script is asked once while it shows the same document", async () => {
  strip.reset(true);
  strip.apply("shares", golden("shares_event.json").params);
  F.forgetFacts(1843);
  FRAMES[1843] = [
    { frameId: 0, parentFrameId: -1, url: "https://shop.example.com/cart", documentId: "DOC-SHOP" },
    { frameId: 3, parentFrameId: 0, url: "https://ads.example/", documentId: "DOC-AD" },
  ];
  const shop = documentIn(1843, 0, "https://shop.example.com", "DOC-SHOP");
  const asks = () => chrome.calls.filter((c) => c[0] === "tabs.sendMessage" && c[1] === 1843 && c[3].frameId === 3).length;
  const snap = async (n) => {
    const m = call("snapshot", { tab: 1843 });
    await shop.posted.wait(n);
    shop.answer({ rid: shop.posted[n - 1].rid, result: read("https://shop.example.com", "Basket") });
    return (await m).result;
  };
  chrome.calls.length = 0;
  const first = await snap(1);
  assert.deepEqual(first.frames[1], { frame: 3, parent: 0, url: "https://ads.example/", index: -1, error: "frame 3 has no Reins content script" });
  assert.equal(asks(), 1);
  const second = await snap(2);
  assert.deepEqual(second.frames[1], first.frames[1]);
  assert.equal(asks(), 1, "the frame was asked again");
  F.forgetReads(1843, 3); // the frame navigated
  await snap(3);
  assert.equal(asks(), 2, "the frame's next document was not asked");
});
