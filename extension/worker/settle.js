// Settle, on the worker's side: asking each frame of a tab to answer once
// its page is quiet after an act, across a navigation the act started.
// Imports frames.js.
import { FRAME_TIMEOUT_MS, ask, framePorts, viaPort, withTimeout } from "./frames.js";

// frameNews resolves when tab's frame opens a new port (a new document) or
// reports a navigation, or at deadline; its cancel() stops it early.
function frameNews(tab, frameId, deadline) {
  let cancel = () => {};
  const p = new Promise((resolve) => {
    const ours = (s) => !!s && !!s.tab && s.tab.id === tab && (s.frameId || 0) === frameId;
    const onConnect = (port) => port.name === "reins-frame" && ours(port.sender) && finish();
    const onMessage = (msg, sender) => {
      if (msg && msg.type === "navigated" && ours(sender)) finish();
    };
    const timer = setTimeout(() => finish(), Math.max(0, deadline - performance.now()));
    function finish() {
      clearTimeout(timer);
      chrome.runtime.onConnect.removeListener(onConnect);
      chrome.runtime.onMessage.removeListener(onMessage);
      resolve();
    }
    chrome.runtime.onConnect.addListener(onConnect);
    chrome.runtime.onMessage.addListener(onMessage);
    cancel = finish;
  });
  p.cancel = cancel;
  return p;
}

// settleLeft reports whether the top frame shows another document or epoch
// than after before deadline.
export async function settleLeft(tab, after, deadline) {
  for (;;) {
    const news = frameNews(tab, 0, deadline);
    let m = null;
    try {
      m = await ask(tab, 0, { type: "metrics" });
    } catch {
      // Between documents: the next one reports itself.
    }
    if (m && (m.doc !== after.doc || m.epoch !== after.epoch)) {
      news.cancel();
      return true;
    }
    if (performance.now() >= deadline) {
      news.cancel();
      return false;
    }
    await news;
  }
}

// settleFrame asks one frame to answer once it is quiet, and says "quiet"
// or "cap". A top frame whose document goes away meanwhile is asked again
// in its next one; any other frame that stops answering, or has no content
// script, is not waited for.
export async function settleFrame(tab, frameId, quiet, deadline) {
  const key = `${tab}:${frameId}`;
  let known = false; // the frame had a port: the one it lost is waited for
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) return "cap";
    const entry = framePorts.get(key);
    if (entry) known = true;
    const news = frameNews(tab, frameId, deadline);
    const msg = { type: "settle", quiet, cap: Math.ceil(left) };
    const asked = entry ? viaPort(entry, msg) : chrome.tabs.sendMessage(tab, msg, { frameId });
    const r = await withTimeout(asked, left + FRAME_TIMEOUT_MS, `frame ${frameId}`).catch(() => null);
    if (r && (r.result || r.error)) {
      news.cancel();
      return r.result && r.result.settled === "cap" ? "cap" : "quiet";
    }
    if (!known || frameId !== 0) {
      news.cancel();
      return "quiet";
    }
    const now = framePorts.get(key);
    if (now && now !== entry) news.cancel();
    else await news;
  }
}
