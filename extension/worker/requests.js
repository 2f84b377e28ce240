// Requests from the app: the level each needs on its tab, the extension's
// own refusal of a tab the person's latest share table does not share, and
// the handler of each method, one table. Imports pairing.js, badge.js (for
// the share table's mirror), tabs.js, frames.js, settle.js, capture.js and
// failure.js.
import { strip } from "./badge.js";
import { captureTab } from "./capture.js";
import { Failure } from "./failure.js";
import { ask, askFrom, forgetFacts, framePorts, quietReport, scriptless, snapshotFacts, zoomOf } from "./frames.js";
import { send } from "./pairing.js";
import { settleFrame, settleLeft } from "./settle.js";
import { listTabs } from "./tabs.js";

// The level each request needs on its tab (bridge/protocol NeedsShare).
export const NEEDS = {
  snapshot: "read", resolve: "read", capture: "read", settle: "read", watch: "read", witness: "read", effects: "read", focus: "read",
  activate: "control", navigate: "control", close_tab: "control", new_tab: "control",
};

// mirror refuses, on the extension's own authority, a request for a tab the
// person's latest share table does not share at the level it needs, or
// shared on another site than the tab shows now. Before the first table
// every tab counts as not shared. A snapshot is checked against the
// documents it reads instead (see snapshot).
async function mirror(method, params) {
  const need = Object.hasOwn(NEEDS, method) && NEEDS[method];
  if (!need) return;
  if (!Number.isInteger(params.tab)) throw new Failure("bad_request", `${method} needs a tab id`);
  if (method !== "snapshot") await checkTab(method, params.tab, need);
}

// checkTab refuses unless the tab's address, read from the browser now, is
// on the site its share is bound to.
async function checkTab(method, tab, need) {
  const t = await chrome.tabs.get(tab);
  refuse(method, tab, need, t.url || "");
}

function refuse(method, tab, need, url) {
  const why = strip.refusal(tab, need, url);
  if (why) throw new Failure("not_shared", `the Reins extension refused to ${method}: ${why}`);
}

export async function handleRequest(l, m) {
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

export const HANDLERS = {
  keepalive: async () => ({}),
  tabs: listTabs,

  // snapshot's share check is bound to the documents it reads, not to a
  // moment: a port lives as long as its document, and the browser says
  // that document's origin and id with the port. Before anything is read,
  // the top frame's document must be on the shared site: the one its port
  // came from, or, with no port, the tab's address read from the browser.
  // After, every answer must have come from the document the frame list
  // names for its frame (a read held from it, or its port's answer), and
  // the top one's from the shared site by the port and by its own report;
  // an answer the worker cannot place (a one-off message, another
  // document, no top report) has the tab's address read again before
  // anything is sent. A frame that failed sends only the frame list's
  // address for it, and that list's top document is the one checked.
  // Reads held from a document are dropped when its frame navigates
  // (sw.js), and so is what is known of a frame whose document has no
  // content script, which is asked once a document, not on every read.
  // So a repeat read of a quiet page asks the browser nothing, and
  // no content of another site leaves the worker. The app checks the top
  // report's origin against its own share table too (core's snapshot).
  async snapshot({ tab, known }) {
    const top = framePorts.get(`${tab}:0`);
    const early = top && top.origin && top.documentId ? top : null;
    if (early) refuse("snapshot", tab, "read", early.origin);
    else await checkTab("snapshot", tab, "read");
    const { frames, zoom } = await snapshotFacts(tab);
    let placed = (frames || []).some((f) => f.frameId === 0);
    const reports = await Promise.all(
      (frames || []).map(async (f) => {
        const base = { frame: f.frameId, parent: f.parentFrameId, url: f.url, index: -1 };
        const at = (report, from) => {
          if (!from || !from.documentId || from.documentId !== f.documentId) placed = false;
          if (f.frameId === 0) {
            if (from) refuse("snapshot", tab, "read", from.origin);
            refuse("snapshot", tab, "read", report.origin || "");
          }
          return { ...report, frame: f.frameId, parent: f.parentFrameId };
        };
        const key = `${tab}:${f.frameId}`;
        const entry = framePorts.get(key);
        const none = scriptless.get(key);
        if (!entry && none && f.documentId && none.documentId === f.documentId) {
          if (f.frameId === 0) placed = false;
          return { ...base, error: none.error };
        }
        try {
          const k = (known || {})[f.frameId];
          const quiet = quietReport(tab, f.frameId, k);
          if (quiet) return at(quiet, entry);
          const { result, from } = await askFrom(tab, f.frameId, { type: "snapshot", known: k });
          return at(result, from);
        } catch (e) {
          if (e.code === "not_shared") throw e;
          if (!entry && f.documentId) scriptless.set(key, { documentId: f.documentId, error: e.message });
          forgetFacts(tab);
          if (f.frameId === 0) placed = false; // no top report whose origin was checked
          return { ...base, error: e.message };
        }
      })
    );
    if (early && !placed) await checkTab("snapshot", tab, "read");
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
    return ask(p.tab, p.frame, { type: "witness", watch: p.watch, x: p.x, y: p.y, slack: p.slack, focus: !!p.focus, within }, within);
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
