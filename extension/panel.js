// Reins side panel: one tab's activity, live, newest first, as the app
// rendered it, and two buttons that only take power away. Every string is
// written with textContent; the panel holds no state of its own but the
// service worker's last view.
"use strict";

const $ = (id) => document.getElementById(id);
let port = null;
let tab = Number(new URLSearchParams(location.search).get("tab"));
let nextRid = 1;

function line(l) {
  const li = document.createElement("li");
  if (l.refused) li.className = "refused";
  const meta = document.createElement("span");
  meta.className = "meta";
  const when = l.time ? new Date(l.time).toLocaleTimeString() : "";
  meta.textContent = [when, l.agent].filter(Boolean).join(" · ") + (l.count > 1 ? `  ×${l.count}` : "");
  const act = document.createElement("span");
  act.className = "act";
  act.textContent = l.act;
  const outcome = document.createElement("span");
  outcome.className = "outcome";
  outcome.textContent = l.outcome;
  li.append(meta, act, outcome);
  return li;
}

function render(v) {
  document.body.classList.toggle("offline", !v.connected);
  if (!v.connected) {
    $("status").textContent = "Reins is not connected. Start Reins to see and stop what agents do here.";
    $("state").textContent = "";
  } else {
    $("status").textContent = v.levelWords + (v.paused ? " All agents are paused." : "");
    $("state").textContent =
      v.state === "waiting" ? "An agent waits for your answer in Reins." : v.state === "firing" ? "An agent is acting on this tab now." : "";
  }
  $("stop").disabled = !v.connected || v.level === "none";
  $("pause").disabled = !v.connected || v.paused;
  $("empty").hidden = v.lines.length > 0;
  $("activity").replaceChildren(...v.lines.map(line));
}

function offline() {
  render({ connected: false, paused: false, level: "none", state: "idle", lines: [] });
}

function connect() {
  port = chrome.runtime.connect({ name: "reins-panel" });
  port.onMessage.addListener((m) => {
    if (m.view && m.view.tab === tab) render(m.view);
    if (m.rid) $("error").textContent = m.error ? `Reins could not do that: ${m.error}` : "";
  });
  // A stopped service worker drops the port; the next one answers again.
  port.onDisconnect.addListener(() => {
    port = null;
    offline();
    setTimeout(connect, 500);
  });
  port.postMessage({ watch: tab });
}

function ask(what) {
  if (port) port.postMessage({ ask: what, rid: nextRid++ });
}

$("stop").addEventListener("click", () => ask("stop_sharing"));
$("pause").addEventListener("click", () => ask("pause_all"));

async function start() {
  // The panel opened without a tab of its own follows the tab in front.
  if (!Number.isInteger(tab) || tab <= 0) {
    const [t] = await chrome.tabs.query({ active: true, currentWindow: true });
    tab = t ? t.id : -1;
  }
  offline();
  connect();
}

start();
