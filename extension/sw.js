// Reins service worker: keeps one WebSocket to the Reins app on 127.0.0.1,
// proves itself with the per-install secret it gets through native messaging,
// checks the app's proof over the port it dialled before sending anything
// about tabs, seals every message after that and checks every one it gets,
// and answers the app's requests from the content scripts' reports, for the
// tabs the person's latest share table shares only. It also keeps the strip
// where the tab is: the toolbar badge and the side panel, from the share
// table, tab states and activity the app pushes.
"use strict";

importScripts("strip.js", "session.js");

const HOST = "app.reins.bridge";
const PROTOCOL_VERSION = 2;
const MAX_MESSAGE = 16 << 20;
const MAX_HANDSHAKE_MESSAGE = 4 << 10; // before the app has proved itself
const HANDSHAKE_MS = 5000; // a silent or slow squatter is left for a retry after this
const FRAME_TIMEOUT_MS = 3000;

let ws = null; // the socket, once open
let authed = false; // the app proved it knows the secret
let link = null; // {sock, sealed}: the paired connection, once authed
let connecting = null; // a pending connect()
let retryDelay = 500;
let retryTimer = null;
const strip = new ReinsStrip.Model();

// --- wake-ups ------------------------------------------------------------------

chrome.alarms.create("reins-wake", { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => ensureConnected());
chrome.runtime.onStartup.addListener(() => ensureConnected());
chrome.runtime.onInstalled.addListener(() => {
  injectIntoOpenTabs();
  ensureConnected();
});

// Tabs opened before the extension was installed have no content script.
async function injectIntoOpenTabs() {
  const tabs = await chrome.tabs.query({});
  for (const t of tabs) {
    if (!/^https?:|^file:/.test(t.url || "")) continue;
    chrome.scripting
      .executeScript({ target: { tabId: t.id, allFrames: true }, files: ["content.js"] })
      .catch(() => {});
  }
}

// --- pairing ---------------------------------------------------------------------

function timingSafeEqual(a, b) {
  if (typeof a !== "string" || typeof b !== "string" || a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

async function profileId() {
  const { profile } = await chrome.storage.local.get("profile");
  if (profile) return profile;
  const id = crypto.randomUUID();
  await chrome.storage.local.set({ profile: id });
  return id;
}

// browserSessionId names this run of the browser. chrome.storage.session
// keeps it while the browser runs, through restarts of this worker, and
// forgets it when the browser quits: the app then drops the profile's tabs
// and their shares, since the new browser reuses the old one's tab ids.
async function browserSessionId() {
  const { browserSession } = await chrome.storage.session.get("browserSession");
  if (browserSession) return browserSession;
  const id = crypto.randomUUID();
  await chrome.storage.session.set({ browserSession: id });
  return id;
}

function browserName() {
  const brands = (navigator.userAgentData && navigator.userAgentData.brands) || [];
  const b = brands.find((x) => !/Not.?A.?Brand/i.test(x.brand) && x.brand !== "Chromium") || brands[0];
  return b ? `${b.brand} ${b.version}` : navigator.userAgent;
}

// --- connection ----------------------------------------------------------------

function ensureConnected() {
  if (ws || connecting) return connecting;
  connecting = connect().finally(() => (connecting = null));
  return connecting;
}

function scheduleRetry() {
  if (retryTimer) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    ensureConnected();
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 5000);
}

async function pairing() {
  const reply = await chrome.runtime.sendNativeMessage(HOST, { type: "pair" });
  if (!reply || !reply.port || !/^[0-9a-f]{64}$/.test(reply.secret || "")) throw new Error("bad pairing reply");
  return reply;
}

async function connect() {
  let pair;
  try {
    pair = await pairing();
  } catch (e) {
    scheduleRetry(); // Reins is not installed or not running
    return;
  }
  const port = Number(pair.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    scheduleRetry();
    return;
  }
  const sock = new WebSocket(`ws://127.0.0.1:${port}/bridge`);
  const myNonce = ReinsSession.hex(crypto.getRandomValues(new Uint8Array(32)));
  let appNonce = null;
  let helloId = null;
  let transcript = null;
  ws = sock;
  authed = false;
  link = null;
  // Whatever listens on the port must prove itself in time; one that keeps
  // quiet is left, and the next try asks native messaging for the port again.
  const deadline = setTimeout(() => {
    if (ws === sock && !authed) sock.close(4002, "the app did not pair in time");
  }, HANDSHAKE_MS);

  // The handshake, one message at a time and in order; it reports true once
  // the app has proved itself, and closes the socket on anything else.
  async function handshake(data) {
    let m;
    try {
      if (typeof data !== "string" || data.length > MAX_HANDSHAKE_MESSAGE) throw new Error("oversized");
      m = JSON.parse(data);
    } catch {
      sock.close(4001, "the app did not prove itself");
      return false;
    }
    if (m && m.method === "challenge" && !m.id && !appNonce && /^[0-9a-f]{64}$/.test((m.params || {}).nonce || "")) {
      appNonce = m.params.nonce;
      helloId = "h" + myNonce.slice(0, 8);
      transcript = { port, appNonce, extensionNonce: myNonce, profile: await profileId() };
      sock.send(
        JSON.stringify({
          id: helloId,
          method: "hello",
          params: {
            version: PROTOCOL_VERSION,
            port,
            extension: chrome.runtime.getManifest().version,
            browser: browserName(),
            profile: transcript.profile,
            browserSession: await browserSessionId(),
            nonce: myNonce,
            proof: await ReinsSession.extensionProof(pair.secret, transcript),
          },
        })
      );
      return false;
    }
    if (helloId && m && m.id === helloId && m.result) {
      // Made over the port the app listens on: a relay's port gives another.
      const want = await ReinsSession.appProof(pair.secret, transcript);
      if (timingSafeEqual(m.result.proof, want)) {
        const key = await ReinsSession.sessionKey(pair.secret, transcript);
        link = { sock, sealed: new ReinsSession.Sealed(key, ReinsSession.EXTENSION_TO_APP) };
        authed = true;
        clearTimeout(deadline);
        retryDelay = 500;
        strip.reset(true); // every tab unshared until the app's table comes
        refreshStrip("all");
        pushTabs();
        return true;
      }
    }
    sock.close(4001, "the app did not prove itself");
    return false;
  }

  let inbox = Promise.resolve();
  sock.onmessage = (ev) => {
    inbox = inbox.then(async () => {
      if (ws !== sock) return;
      if (!authed) {
        await handshake(ev.data);
        return;
      }
      let m;
      try {
        m = JSON.parse(await link.sealed.open(ev.data));
      } catch (e) {
        // Reins seals every message in order: this one came from something else.
        sock.close(4003, "a message failed its check");
        return;
      }
      if (!m || typeof m !== "object") return;
      if (m.id && m.method) handleRequest(link, m);
      else if (m.id) answered(m);
      else if (m.method) refreshStrip(strip.apply(m.method, m.params));
    });
  };
  sock.onclose = () => {
    clearTimeout(deadline);
    if (ws === sock) {
      ws = null;
      authed = false;
      link = null;
      failAsks();
      strip.reset(false);
      refreshStrip("all");
      scheduleRetry();
    }
  };
  sock.onerror = () => {};
  await new Promise((resolve) => {
    sock.addEventListener("open", resolve, { once: true });
    sock.addEventListener("close", resolve, { once: true });
  });
}

// send seals obj as the next message on the paired connection l. Sealing
// is asynchronous but keeps the order of the calls, and so does the socket.
function send(l, obj) {
  let text = JSON.stringify(obj);
  // The app's limit is in bytes of UTF-8; a character may take three.
  if (text.length * 3 > MAX_MESSAGE && new TextEncoder().encode(text).length > MAX_MESSAGE) {
    if (!obj.id) return;
    text = JSON.stringify({ id: obj.id, error: { code: "too_large", message: "the answer is over 16 MiB" } });
  }
  l.sealed.seal(text).then((frame) => {
    if (l.sock.readyState === WebSocket.OPEN) l.sock.send(frame);
  });
}

function emit(method, params) {
  if (link && authed) send(link, { method, params });
}

// --- requests from the app -----------------------------------------------------

class Failure extends Error {
  constructor(code, message, now) {
    super(message);
    this.code = code;
    this.now = now; // a changed element: what it is now
  }
}

// The level each request needs on its tab (bridge/protocol NeedsShare).
const NEEDS = {
  snapshot: "read", resolve: "read", capture: "read", settle: "read", watch: "read", witness: "read", effects: "read", focus: "read",
  activate: "control", navigate: "control", close_tab: "control", new_tab: "control",
};

// mirror refuses, on the extension's own authority, a request for a tab the
// person's latest share table does not share at the level it needs, or
// shared on another site than the tab shows now. Before the first table
// every tab counts as not shared.
async function mirror(method, params) {
  const need = Object.hasOwn(NEEDS, method) && NEEDS[method];
  if (!need) return;
  if (!Number.isInteger(params.tab)) throw new Failure("bad_request", `${method} needs a tab id`);
  const t = await chrome.tabs.get(params.tab);
  const why = strip.refusal(params.tab, need, t.url || "");
  if (why) throw new Failure("not_shared", `the Reins extension refused to ${method}: ${why}`);
}

async function handleRequest(l, m) {
  const fn = Object.hasOwn(HANDLERS, m.method) && HANDLERS[m.method];
  const params = m.params && typeof m.params === "object" ? m.params : {};
  try {
    if (!fn) throw new Failure("unknown_method", `unknown method ${m.method}`);
    await mirror(m.method, params);
    const result = await fn(params);
    send(l, { id: m.id, result: result || {} });
  } catch (e) {
    const code = e.code || (/No tab with id/i.test(e.message) ? "no_tab" : "internal");
    const error = { code, message: e.message || String(e) };
    if (e.now) error.now = e.now;
    send(l, { id: m.id, error });
  }
}

function tabInfo(t, focusedWindow) {
  return {
    id: t.id,
    windowId: t.windowId,
    url: t.url || "",
    title: t.title || "",
    active: !!t.active,
    focused: t.windowId === focusedWindow,
    status: t.status || "",
    ...(t.openerTabId ? { opener: t.openerTabId } : {}),
  };
}

// Tab lists are numbered as they are read, so Reins can tell an answer read
// before a list pushed after it, whichever reaches it first.
let tabListSeq = 0;

async function listTabs() {
  const [tabs, win] = await Promise.all([
    chrome.tabs.query({}),
    chrome.windows.getLastFocused().catch(() => null),
  ]);
  return { seq: ++tabListSeq, tabs: tabs.map((t) => tabInfo(t, win && win.focused ? win.id : -1)) };
}

let tabsTimer = null;
function pushTabs() {
  clearTimeout(tabsTimer);
  tabsTimer = setTimeout(async () => emit("tabs.changed", await listTabs()), 50);
}

function withTimeout(p, ms, what) {
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
const framePorts = new Map(); // "tab:frame" → {port, pending, last, stirred}
let nextRid = 1;

chrome.runtime.onConnect.addListener((port) => {
  const s = port.sender || {};
  if (port.name === "reins-panel" && s.id === chrome.runtime.id && (s.url || "").startsWith(chrome.runtime.getURL("panel.html"))) {
    panelPort(port);
    return;
  }
  if (port.name !== "reins-frame" || s.id !== chrome.runtime.id || !s.tab) return;
  const key = `${s.tab.id}:${s.frameId || 0}`;
  const entry = { port, pending: new Map(), last: null, stirred: true };
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
});

function viaPort(entry, msg) {
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

// quietReport answers a snapshot for a frame that has not stirred since its
// last full read, when the app holds that read's tree: nothing to ask.
function quietReport(tab, frameId, known) {
  const entry = framePorts.get(`${tab}:${frameId}`);
  const last = entry && entry.last;
  if (!last || entry.stirred || !known || known !== `${last.doc}:${last.version}`) return null;
  if (performance.now() - last.at > QUIET_MS) return null;
  return { ...last.report, same: true, took: 0 };
}

// ask sends a frame a request and returns its result; waits is how long
// the frame may take on purpose before it answers, in ms.
async function ask(tab, frameId, msg, waits = 0) {
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
  if (!r) r = await withTimeout(chrome.tabs.sendMessage(tab, msg, { frameId }), limit, `frame ${frameId}`);
  if (!r) throw new Failure("no_frame", `frame ${frameId} has no Reins content script`);
  if (r.error) throw new Failure(r.error.code, r.error.message, r.error.now);
  return r.result;
}

async function zoomOf(tab) {
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
const forgetFacts = (tab) => tabFacts.delete(tab);

async function snapshotFacts(tab) {
  const held = tabFacts.get(tab);
  if (held && performance.now() - held.at < FACTS_MS) return held;
  // One round of browser calls: getAllFrames fails by itself for a tab that is gone.
  const [frames, zoom] = await Promise.all([chrome.webNavigation.getAllFrames({ tabId: tab }), zoomOf(tab)]);
  if (!frames) throw new Failure("no_tab", `No tab with id: ${tab}`);
  const facts = { frames, zoom, at: performance.now() };
  tabFacts.set(tab, facts);
  return facts;
}

chrome.webNavigation.onBeforeNavigate.addListener((d) => forgetFacts(d.tabId));
chrome.webNavigation.onCommitted.addListener((d) => forgetFacts(d.tabId));
chrome.tabs.onRemoved.addListener((tab) => forgetFacts(tab));

// --- settle: answering once a tab's page is quiet after an act ------------------

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
async function settleLeft(tab, after, deadline) {
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
async function settleFrame(tab, frameId, quiet, deadline) {
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

// reachUp is the refusal e of an element scrolled out of view inside a
// child frame, with the point to turn the wheel over mapped up through the
// frames to the top frame's viewport (hit-testing each iframe element on
// the way, as resolve does), or a refusal with no reach when a frame on the
// way does not show that point.
async function reachUp(p, e) {
  const reach = { ...e.now.reach };
  let point = reach.point;
  let childIndex = reach.index;
  let top = null;
  try {
    for (const hop of p.path) {
      if (hop.index !== childIndex) throw new Failure("stale_ref", "the frame moved within its page");
      top = await ask(p.tab, hop.frame, { type: "frameHit", index: hop.index, doc: hop.doc, epoch: hop.epoch, x: point.x, y: point.y });
      point = top.point;
      childIndex = top.index;
    }
  } catch (f) {
    if (f.code === "stale_ref" || f.code === "unmapped") return f;
    return new Failure("not_visible", `${e.message}, and the place to turn the wheel over does not show on the page (${f.message}); nothing was done`);
  }
  delete reach.index;
  Object.assign(reach, { point, viewport: top.viewport, window: top.window, framed: true });
  return new Failure(e.code, e.message, { ...e.now, reach });
}

// waitOf is a request's within, in ms, held to a watch's life (WatchLife).
const waitOf = (v) => Math.min(30000, Math.max(0, Number(v) || 0));

const HANDLERS = {
  keepalive: async () => ({}),
  tabs: listTabs,

  async snapshot({ tab, known }) {
    const { frames, zoom } = await snapshotFacts(tab);
    const reports = await Promise.all(
      (frames || []).map(async (f) => {
        const base = { frame: f.frameId, parent: f.parentFrameId, url: f.url, index: -1 };
        try {
          const k = (known || {})[f.frameId];
          const quiet = quietReport(tab, f.frameId, k);
          if (quiet) return { ...quiet, frame: f.frameId, parent: f.parentFrameId };
          const msg = { type: "snapshot", known: k };
          return { ...(await ask(tab, f.frameId, msg)), frame: f.frameId, parent: f.parentFrameId };
        } catch (e) {
          forgetFacts(tab);
          return { ...base, error: e.message };
        }
      })
    );
    return { tab, zoom, frames: reports };
  },

  // resolve re-finds an element and walks its click point up to the top frame,
  // hit-testing each ancestor's iframe element on the way, and multiplies
  // the frames' scales: the element's box shows scaled by all of them.
  async resolve(p) {
    const zoom = await zoomOf(p.tab);
    let r;
    try {
      r = await ask(p.tab, p.frame, {
        type: "resolve",
        doc: p.doc,
        epoch: p.epoch,
        id: p.id,
        role: p.role,
        name: p.name,
      });
    } catch (e) {
      if (e.code === "not_visible" && e.now && e.now.reach && (p.path || []).length) throw await reachUp(p, e);
      throw e;
    }
    let point = r.point;
    let top = r;
    let childIndex = r.index;
    const S = { x: 1, y: 1 };
    for (const hop of p.path || []) {
      if (hop.index !== childIndex) throw new Failure("stale_ref", "the frame moved within its page");
      const h = await ask(p.tab, hop.frame, {
        type: "frameHit",
        index: hop.index,
        doc: hop.doc,
        epoch: hop.epoch,
        x: point.x,
        y: point.y,
      });
      point = h.point;
      if (h.scale) {
        S.x *= h.scale.x;
        S.y *= h.scale.y;
      }
      top = h;
      childIndex = h.index;
    }
    const round2 = (v) => Math.round(v * 100) / 100;
    const topBox = {
      x: round2(point.x + S.x * (r.box.x - r.point.x)),
      y: round2(point.y + S.y * (r.box.y - r.point.y)),
      w: round2(S.x * r.box.w),
      h: round2(S.y * r.box.h),
    };
    const scaled = Math.abs(S.x - 1) > 1e-4 || Math.abs(S.y - 1) > 1e-4;
    return {
      box: r.box,
      topBox,
      ...(scaled ? { scale: { x: Math.round(S.x * 1e4) / 1e4, y: Math.round(S.y * 1e4) / 1e4 } } : {}),
      point,
      viewport: top.viewport,
      window: top.window,
      zoom,
      secret: r.secret,
      editable: r.editable,
      origin: r.origin,
      ...(r.motion ? { motion: r.motion } : {}),
    };
  },

  // focus asks every frame of the tab what has the keyboard focus, and
  // answers the one element that has it (bridge/protocol FocusResult).
  // A top frame that does not answer fails the question: a page blocked
  // by a JavaScript dialog must not pass for a page with nothing focused.
  async focus({ tab }) {
    const frames = (await chrome.webNavigation.getAllFrames({ tabId: tab })) || [];
    let topFailed = null;
    const answers = await Promise.all(
      frames.map((f) =>
        ask(tab, f.frameId, { type: "focus" }).then(
          (r) => ({ ...r, frame: f.frameId }),
          (err) => {
            if (f.frameId === 0) topFailed = err;
            return null;
          },
        ),
      ),
    );
    if (topFailed) throw topFailed;
    const hit = answers.find((a) => a && a.focused);
    if (!hit) return {};
    delete hit.inner;
    return hit;
  },

  // watch, witness and effects (bridge/protocol witness.go) go to the
  // element's own frame: it notes where an act's trusted events arrive.
  async watch(p) {
    return ask(p.tab, p.frame, { type: "watch", doc: p.doc, epoch: p.epoch, id: p.id });
  },

  async witness(p) {
    const within = waitOf(p.within);
    return ask(p.tab, p.frame, { type: "witness", watch: p.watch, x: p.x, y: p.y, slack: p.slack, within }, within);
  },

  async effects(p) {
    const within = waitOf(p.within);
    return ask(p.tab, p.frame, { type: "effects", watch: p.watch, kind: p.kind, within }, within);
  },

  // settle answers once no frame of the tab has changed for quiet ms, or at
  // cap ms (bridge/protocol SettleParams); with after, only once the top
  // frame has left that document or epoch, within after.within ms. Frames
  // that appear meanwhile are settled too, while time is left.
  async settle({ tab, quiet, cap, after }) {
    const start = performance.now();
    const ms = (v) => Math.max(0, Number(v) || 0);
    quiet = ms(quiet);
    const answer = (settled) => ({ settled, took: Math.round(performance.now() - start) });
    if (after && !(await settleLeft(tab, after, start + ms(after.within)))) return answer("stayed");
    const deadline = performance.now() + ms(cap);
    const done = new Set();
    for (;;) {
      const frames = await chrome.webNavigation.getAllFrames({ tabId: tab });
      if (!frames) throw new Failure("no_tab", `No tab with id: ${tab}`);
      const todo = frames.filter((f) => !done.has(f.frameId));
      if (!todo.length) return answer("quiet");
      for (const f of todo) done.add(f.frameId);
      const ends = await Promise.all(todo.map((f) => settleFrame(tab, f.frameId, quiet, deadline)));
      if (ends.includes("cap")) return answer("cap");
    }
  },

  async capture({ tab }) {
    const t = await chrome.tabs.get(tab);
    if (!t.active) throw new Failure("unsupported", "the tab is not the visible one in its window");
    return { dataUrl: await captureTab(tab) };
  },

  async new_tab({ tab, url }) {
    if (!/^https?:\/\//.test(url || "")) throw new Failure("bad_request", "only http and https addresses can be opened");
    const beside = await chrome.tabs.get(tab);
    const t = await chrome.tabs.create({ url, windowId: beside.windowId, index: beside.index + 1, active: true });
    return { tab: t.id };
  },

  async close_tab({ tab }) {
    await chrome.tabs.remove(tab);
    return {};
  },

  async activate({ tab }) {
    const t = await chrome.tabs.update(tab, { active: true });
    await chrome.windows.update(t.windowId, { focused: true });
    return {};
  },

  async navigate({ tab, url, direction }) {
    if (direction === "back") await chrome.tabs.goBack(tab);
    else if (direction === "forward") await chrome.tabs.goForward(tab);
    else if (/^https?:\/\//.test(url || "")) await chrome.tabs.update(tab, { url });
    else throw new Failure("bad_request", "only http and https addresses can be opened");
    return {};
  },
};

// --- one capture queue ---------------------------------------------------------

// Chrome allows an extension MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND (2)
// captures a second and fails the rest. Every capture (approval pictures,
// screenshots) waits its turn here instead: at most two end in any window of
// a little over a second, measured from when each call returned, which is
// after Chrome counted it. A request that cannot get a turn before its
// deadline, which is shorter than the app's wait for an answer (10 s), fails
// with a clear "busy".
const CAPTURES_PER_WINDOW = 2;
const CAPTURE_WINDOW_MS = 1000 + 40;
const CAPTURE_DEADLINE_MS = 8000;
const captureLine = []; // {tab, deadline, resolve, reject}, oldest first
const captureEnds = []; // when the last captures returned, newest last
let capturing = false;

function captureTab(tab) {
  return new Promise((resolve, reject) => {
    captureLine.push({ tab, deadline: performance.now() + CAPTURE_DEADLINE_MS, resolve, reject });
    pumpCaptures();
  });
}

function busy(waiting) {
  return new Failure(
    "busy",
    `Chrome takes at most ${CAPTURES_PER_WINDOW} pictures a second and this one found no turn within ${CAPTURE_DEADLINE_MS / 1000} s ` +
      `(${waiting} more were waiting); try again in a moment`
  );
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function pumpCaptures() {
  if (capturing) return;
  capturing = true;
  try {
    while (captureLine.length) {
      const job = captureLine[0];
      const now = performance.now();
      const turn =
        captureEnds.length < CAPTURES_PER_WINDOW ? now : captureEnds[captureEnds.length - CAPTURES_PER_WINDOW] + CAPTURE_WINDOW_MS;
      if (turn > job.deadline) {
        captureLine.shift();
        job.reject(busy(captureLine.length));
        continue;
      }
      if (turn > now) {
        await pause(turn - now);
        continue;
      }
      captureLine.shift();
      try {
        // The tab must still be the one on screen: the window shows
        // whichever tab is active now, which may not be the one asked for.
        const t = await chrome.tabs.get(job.tab);
        if (!t.active) throw new Failure("unsupported", "the tab is not the visible one in its window");
        job.resolve(await chrome.tabs.captureVisibleTab(t.windowId, { format: "png" }));
      } catch (e) {
        if (/MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(e.message || "")) captureLine.unshift(job); // try again at the next turn
        else job.reject(e);
      } finally {
        captureEnds.push(performance.now());
        if (captureEnds.length > CAPTURES_PER_WINDOW) captureEnds.shift();
      }
    }
  } finally {
    capturing = false;
  }
}

// --- the strip where the tab is --------------------------------------------------

chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

function panelFor(tabId) {
  chrome.sidePanel.setOptions({ tabId, path: `panel.html?tab=${tabId}`, enabled: true }).catch(() => {});
}

function paintBadge(tabId) {
  const b = strip.badge(tabId);
  chrome.action.setBadgeText({ tabId, text: b.text }).catch(() => {});
  chrome.action.setBadgeBackgroundColor({ tabId, color: b.color }).catch(() => {});
  chrome.action.setTitle({ tabId, title: b.title }).catch(() => {});
}

// refreshStrip repaints the badge and the open panels of the tabs that
// changed ("all": every tab).
async function refreshStrip(tabs) {
  if (tabs === "all") {
    const open = await chrome.tabs.query({}).catch(() => []);
    tabs = open.map((t) => t.id);
  }
  if (!tabs.length) return;
  for (const id of tabs) paintBadge(id);
  for (const [port, tab] of panels) if (tabs.includes(tab)) showPanel(port, tab);
}

// Side panels, each showing one tab: port → tab.
const panels = new Map();

function showPanel(port, tab) {
  try {
    port.postMessage({ view: strip.view(tab) });
  } catch {
    panels.delete(port);
  }
}

// The panel's buttons are the only requests the extension sends the app,
// and each only takes power away; the tab is always the panel's own.
const PANEL_ASKS = { stop_sharing: (tab) => ({ tab }), pause_all: () => ({}) };
const asks = new Map(); // request id → {resolve, reject, timer}
let nextAsk = 1;

function askApp(method, params) {
  if (!link || !authed) return Promise.reject(new Error("Reins is not connected"));
  const id = "p" + nextAsk++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      asks.delete(id);
      reject(new Error("Reins did not answer in time; try again"));
    }, 10000);
    asks.set(id, { resolve, reject, timer });
    send(link, { id, method, params });
  });
}

function answered(m) {
  const a = asks.get(m.id);
  if (!a) return;
  asks.delete(m.id);
  clearTimeout(a.timer);
  if (m.error) a.reject(new Error(m.error.message || m.error.code));
  else a.resolve(m.result || {});
}

function failAsks() {
  for (const a of asks.values()) {
    clearTimeout(a.timer);
    a.reject(new Error("Reins disconnected before answering"));
  }
  asks.clear();
}

function panelPort(port) {
  ensureConnected();
  port.onMessage.addListener(async (m) => {
    if (!m) return;
    if (Number.isInteger(m.watch)) {
      panels.set(port, m.watch);
      showPanel(port, m.watch);
      return;
    }
    const tab = panels.get(port);
    const make = Object.hasOwn(PANEL_ASKS, m.ask) && PANEL_ASKS[m.ask];
    if (!make || tab === undefined) return;
    let reply;
    try {
      await askApp(m.ask, make(tab));
      reply = { rid: m.rid, ok: true };
    } catch (e) {
      reply = { rid: m.rid, error: e.message || String(e) };
    }
    try {
      port.postMessage(reply);
    } catch {}
  });
  port.onDisconnect.addListener(() => panels.delete(port));
}

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
