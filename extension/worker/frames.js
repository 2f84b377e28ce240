// The content scripts of a tab's frames: the port each opens when its
// document starts, a request to one frame and its answer, a frame's last
// full read while it stays quiet, the frames whose document has no content
// script, and the tab's frame list and zoom kept for a repeat snapshot.
// Imports failure.js.
import { Failure } from "./failure.js";

export const FRAME_TIMEOUT_MS = 3000;

export function withTimeout(p, ms, what) {
  let t;
  return Promise.race([
    p,
    new Promise((_, reject) => (t = setTimeout(() => reject(new Failure("internal", `${what} did not answer`)), ms))),
  ]).finally(() => clearTimeout(t));
}

// Each content script opens a port when its document starts. Requests go over
// it when there is one (one-off messages otherwise: a worker that restarted
// has lost the ports until the frames reopen them), and so does the frame's
// notice that something changed since its last full read.
const QUIET_MS = 1000; // as long as a frame itself trusts quiet
export const framePorts = new Map(); // "tab:frame" → {port, pending, last, stirred, origin, documentId}
let nextRid = 1;

// framePort takes the port a frame's content script opened (port.name
// "reins-frame", from this extension, in a tab). A port lives as long as
// its document, whose origin and id the browser gives with the port: what
// comes over it, or is held from it, is that document's.
export function framePort(port) {
  const s = port.sender;
  const key = `${s.tab.id}:${s.frameId || 0}`;
  const entry = { port, pending: new Map(), last: null, stirred: true, origin: s.origin || originOf(s.url), documentId: s.documentId || "" };
  const old = framePorts.get(key);
  framePorts.set(key, entry);
  if (old) old.port.disconnect();
  port.onMessage.addListener((m) => {
    if (!m) return;
    if (m.stirred) {
      entry.stirred = true;
      return;
    }
    const done = entry.pending.get(m.rid);
    if (done) {
      entry.pending.delete(m.rid);
      done(m);
    }
  });
  port.onDisconnect.addListener(() => {
    if (framePorts.get(key) === entry) framePorts.delete(key);
    for (const done of entry.pending.values()) done(null);
    entry.pending.clear();
  });
}

export function viaPort(entry, msg) {
  const rid = nextRid++;
  return new Promise((resolve) => {
    entry.pending.set(rid, resolve);
    try {
      entry.port.postMessage({ ...msg, rid });
    } catch {
      entry.pending.delete(rid);
      resolve(null);
    }
  });
}

function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

// Frames whose document has no content script (an error page, a host that
// did not answer): "tab:frame" → {documentId, error}, so a repeat snapshot
// does not ask them again while the frame shows that document with no port.
export const scriptless = new Map();

// forgetReads drops the reads held for a tab's frame, or for all its frames
// when the top frame navigates, and what is known of frames without a
// content script: a held read never outlives its document.
export function forgetReads(tab, frameId = 0) {
  const ours = (key) => {
    const [t, f] = key.split(":").map(Number);
    return t === tab && (frameId === 0 || f === frameId);
  };
  for (const [key, entry] of framePorts) if (ours(key)) entry.last = null;
  for (const key of scriptless.keys()) if (ours(key)) scriptless.delete(key);
}

// quietReport answers a snapshot for a frame that has not stirred since its
// last full read, when the app holds that read's tree: nothing to ask.
export function quietReport(tab, frameId, known) {
  const entry = framePorts.get(`${tab}:${frameId}`);
  const last = entry && entry.last;
  if (!last || entry.stirred || !known || known !== `${last.doc}:${last.version}`) return null;
  if (performance.now() - last.at > QUIET_MS) return null;
  return { ...last.report, same: true, took: 0 };
}

// ask sends a frame a request and returns its result; waits is how long
// the frame may take on purpose before it answers, in ms.
export async function ask(tab, frameId, msg, waits = 0) {
  return (await askFrom(tab, frameId, msg, waits)).result;
}

// askFrom is ask's answer with the port entry of the document that gave
// it, or null when it came by a one-off message, from whichever document
// the frame shows then.
export async function askFrom(tab, frameId, msg, waits = 0) {
  const entry = framePorts.get(`${tab}:${frameId}`);
  const limit = FRAME_TIMEOUT_MS + waits;
  let r = entry ? await withTimeout(viaPort(entry, msg), limit, `frame ${frameId}`) : null;
  if (r && msg.type === "snapshot" && r.result) {
    // Replies and notices share the port, in order: this read is newer than any stir before it.
    const { tree, ...report } = r.result;
    const prev = entry.last;
    // A frame's own "same" does not restart its quiet second; a full read does.
    const at = report.same && prev && prev.doc === report.doc && prev.version === report.version ? prev.at : performance.now();
    entry.last = { doc: report.doc, version: report.version, at, report };
    entry.stirred = false;
  }
  const from = r ? entry : null;
  if (!r) r = await withTimeout(chrome.tabs.sendMessage(tab, msg, { frameId }), limit, `frame ${frameId}`);
  if (!r) throw new Failure("no_frame", `frame ${frameId} has no Reins content script`);
  if (r.error) throw new Failure(r.error.code, r.error.message, r.error.now);
  return { result: r.result, from };
}

export async function zoomOf(tab) {
  try {
    return await chrome.tabs.getZoom(tab);
  } catch {
    return 1;
  }
}

// A repeat snapshot needs the tab's frame list and zoom again. Both are kept
// for a second and dropped at once by a navigation or zoom change in the tab,
// or by a frame that did not answer. Acts never use them: resolve asks afresh.
const FACTS_MS = 1000;
const tabFacts = new Map(); // tab → {frames, zoom, at}
export const forgetFacts = (tab) => tabFacts.delete(tab);

export async function snapshotFacts(tab) {
  const held = tabFacts.get(tab);
  if (held && performance.now() - held.at < FACTS_MS) return held;
  // One round of browser calls: getAllFrames fails by itself for a tab that is gone.
  const [frames, zoom] = await Promise.all([chrome.webNavigation.getAllFrames({ tabId: tab }), zoomOf(tab)]);
  if (!frames) throw new Failure("no_tab", `No tab with id: ${tab}`);
  const facts = { frames, zoom, at: performance.now() };
  tabFacts.set(tab, facts);
  return facts;
}
