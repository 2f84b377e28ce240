// Reins service worker: keeps one WebSocket to the Reins app on 127.0.0.1,
// proves itself with the per-install secret it gets through native messaging,
// checks the app's proof over the port it dialled before sending anything
// about tabs, seals every message after that and checks every one it gets,
// and answers the app's requests from the content scripts' reports, for the
// tabs the person's latest share table shares only. It also keeps the strip
// where the tab is: the toolbar badge and the side panel, from the share
// table, tab states and activity the app pushes.
//
// This file wires the modules under worker/, one for each concern, and
// holds every listener that wakes the worker, in the order Chrome is told
// of them: pairing.js (the connection), tabs.js (the tab list), requests.js
// (the handler of each request), frames.js (the frames' content scripts),
// settle.js, capture.js (the capture queue) and badge.js (badge and panel).
import { answered, askApp, failAsks, paintBadge, panelFor, panelPort, refreshStrip, strip } from "./worker/badge.js";
import { forgetFacts, forgetReads, framePort } from "./worker/frames.js";
import { emit, ensureConnected, linked, send, wire } from "./worker/pairing.js";
import { HANDLERS, handleRequest } from "./worker/requests.js";
import { injectIntoOpenTabs, pushTabs } from "./worker/tabs.js";

wire({
  paired() {
    strip.reset(true); // every tab unshared until the app's table comes
    refreshStrip("all");
    pushTabs();
  },
  request: handleRequest,
  answer: answered,
  event: (method, params) => refreshStrip(strip.apply(method, params)),
  lost() {
    failAsks();
    strip.reset(false);
    refreshStrip("all");
  },
});

// The names the worker's console (chrome://extensions, "service worker")
// reached in the global scope while the worker was one script: the strip
// model, the paired link, sending on it, asking the app and the request
// handlers (bench/swprobe times them there).
Object.assign(globalThis, { strip, send, askApp, HANDLERS });
Object.defineProperty(globalThis, "link", { get: linked });

// --- wake-ups ------------------------------------------------------------------

chrome.alarms.create("reins-wake", { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => ensureConnected());
chrome.runtime.onStartup.addListener(() => ensureConnected());
chrome.runtime.onInstalled.addListener(() => {
  injectIntoOpenTabs();
  ensureConnected();
});

// --- ports: the side panel and each frame's content script ---------------------

chrome.runtime.onConnect.addListener((port) => {
  const s = port.sender || {};
  if (port.name === "reins-panel" && s.id === chrome.runtime.id && (s.url || "").startsWith(chrome.runtime.getURL("panel.html"))) {
    panelPort(port);
    return;
  }
  if (port.name !== "reins-frame" || s.id !== chrome.runtime.id || !s.tab) return;
  framePort(port);
});

// A navigation drops what a repeat snapshot would be answered from: the
// frame list and the reads held from the frame's document (the tab's, for
// the top frame), as soon as the browser says it starts.
function navigating(tab, frameId) {
  forgetFacts(tab);
  forgetReads(tab, frameId);
}
chrome.webNavigation.onBeforeNavigate.addListener((d) => navigating(d.tabId, d.frameId));
chrome.webNavigation.onCommitted.addListener((d) => navigating(d.tabId, d.frameId));
chrome.tabs.onUpdated.addListener((id, change) => change.url && navigating(id, 0));
chrome.tabs.onRemoved.addListener((tab) => navigating(tab, 0));

// --- the strip where the tab is --------------------------------------------------

chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

chrome.tabs.onCreated.addListener((t) => {
  panelFor(t.id);
  paintBadge(t.id);
});
chrome.tabs.onUpdated.addListener((id, change) => {
  if (change.status === "loading" || change.url) paintBadge(id);
});
chrome.tabs.query({}).then((tabs) => {
  for (const t of tabs) {
    panelFor(t.id);
    paintBadge(t.id);
  }
});

// --- events --------------------------------------------------------------------

chrome.tabs.onCreated.addListener(pushTabs);
chrome.tabs.onRemoved.addListener(pushTabs);
chrome.tabs.onActivated.addListener(pushTabs);
chrome.tabs.onUpdated.addListener((id, change) => {
  if (change.url || change.title || change.status) pushTabs();
});
chrome.windows.onFocusChanged.addListener(pushTabs);
chrome.tabs.onZoomChange.addListener((z) => {
  forgetFacts(z.tabId);
  emit("zoom", { tab: z.tabId, zoom: z.newZoomFactor });
});

chrome.runtime.onMessage.addListener((msg, sender) => {
  ensureConnected(); // any content-script message wakes a stopped worker
  if (!sender.tab || sender.id !== chrome.runtime.id) return;
  const tab = sender.tab.id;
  const frame = sender.frameId || 0;
  if (msg.type === "navigated") {
    emit("navigated", { tab, frame, url: msg.url, doc: msg.doc, epoch: msg.epoch, kind: msg.kind });
    if (frame === 0) pushTabs();
  } else if (msg.type === "calibration") {
    emit("calibration", {
      tab,
      frame,
      screenX: msg.screenX,
      screenY: msg.screenY,
      clientX: msg.clientX,
      clientY: msg.clientY,
      window: msg.window,
    });
  }
});

ensureConnected();
