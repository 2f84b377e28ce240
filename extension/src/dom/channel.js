// The frame's channels to the service worker: one-off messages out, the
// frame's port (requests in, the "stirred" notice out, in order), and
// one-off requests in from a worker that restarted and lost the port. A
// settle is the one request answered later, when the page is quiet.
//
// DOM side (chrome.runtime). Imports dom/settle.js.

import { settle, startSettle } from "./settle.js";

let port = null;
let answer = () => null;

// send posts a one-off message; a reloaded extension's orphaned instance
// drops it.
export function send(msg) {
  try {
    chrome.runtime.sendMessage(msg).catch(() => {});
  } catch {
    // The extension was reloaded; this instance is orphaned.
  }
}

// notifyStirred tells the worker over the port that the frame has stirred
// since its last full read. It goes out in the same task as the change,
// ahead of any later request.
export function notifyStirred() {
  if (!port) connectPort();
  try {
    if (port) port.postMessage({ stirred: true });
  } catch {}
}

// A port to the service worker, opened when the document starts. A worker
// that restarted has lost the ports, so one-off messages still work too,
// and reopen the port.
function connectPort() {
  try {
    const p = chrome.runtime.connect({ name: "reins-frame" });
    p.onMessage.addListener((msg) => {
      if (!msg || !msg.rid) return;
      if (msg.type === "settle") {
        settle(msg).then((a) => {
          try {
            p.postMessage({ rid: msg.rid, ...a });
          } catch {} // the worker went away meanwhile
        });
        return;
      }
      p.postMessage({ rid: msg.rid, ...answer(msg) });
    });
    p.onDisconnect.addListener(() => {
      if (port === p) port = null;
    });
    port = p;
  } catch {
    port = null; // the extension was reloaded; this instance is orphaned
  }
}

// listen answers the worker's requests, from the port and one-off, with
// answerer(msg) (a settle from settle.js), and opens the port.
export function listen(answerer) {
  answer = answerer;
  chrome.runtime.onMessage.addListener((msg, sender, reply) => {
    if (!msg || sender.id !== chrome.runtime.id || sender.tab) return false;
    if (!port) connectPort();
    if (msg.type === "settle") {
      settle(msg).then(reply);
      return true;
    }
    reply(answer(msg));
    return false;
  });
  startSettle();
  connectPort();
}
