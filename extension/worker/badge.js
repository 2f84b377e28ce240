// The strip where the tab is: the toolbar badge and the side panel of
// each tab, painted from the strip model (strip.js) the app's events feed,
// and the panel's two buttons, the only requests the extension sends the
// app. Imports strip.js (for its ReinsStrip) and pairing.js.
import "../strip.js";
import { ensureConnected, linked, send } from "./pairing.js";

const { ReinsStrip } = globalThis;

// strip is the model of every tab's badge and panel, and the mirror of the
// person's shares that requests are refused by.
export const strip = new ReinsStrip.Model();

export function panelFor(tabId) {
  chrome.sidePanel.setOptions({ tabId, path: `panel.html?tab=${tabId}`, enabled: true }).catch(() => {});
}

export function paintBadge(tabId) {
  const b = strip.badge(tabId);
  chrome.action.setBadgeText({ tabId, text: b.text }).catch(() => {});
  chrome.action.setBadgeBackgroundColor({ tabId, color: b.color }).catch(() => {});
  chrome.action.setTitle({ tabId, title: b.title }).catch(() => {});
}

// refreshStrip repaints the badge and the open panels of the tabs that
// changed ("all": every tab).
export async function refreshStrip(tabs) {
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

export function askApp(method, params) {
  const link = linked();
  if (!link) return Promise.reject(new Error("Reins is not connected"));
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

export function answered(m) {
  const a = asks.get(m.id);
  if (!a) return;
  asks.delete(m.id);
  clearTimeout(a.timer);
  if (m.error) a.reject(new Error(m.error.message || m.error.code));
  else a.resolve(m.result || {});
}

export function failAsks() {
  for (const a of asks.values()) {
    clearTimeout(a.timer);
    a.reject(new Error("Reins disconnected before answering"));
  }
  asks.clear();
}

export function panelPort(port) {
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
