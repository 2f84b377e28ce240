// The frame's channels to the service worker: one-off messages out, the
// frame's port (requests in, the "stirred" notice out, in order), and
// one-off requests in from a worker that restarted and lost the port. An
// answer may come later, as a Promise (a settle, a witness, effects).
//
// DOM side (chrome.runtime). Imports pure/reply.js.

import { fail } from "../pure/reply.js";

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

// reply hands msg's answer to deliver: at once when it is ready, so that it
// keeps its place among the port's notices, or when its Promise settles.
// It reports whether the answer comes later.
function reply(msg, deliver) {
  const a = answer(msg);
  if (!a || typeof a.then !== "function") {
    deliver(a);
    return false;
  }
  a.then(deliver, (e) => deliver(fail("internal", String(e && e.message ? e.message : e))));
  return true;
}

// A port to the service worker, opened when the document starts. A worker
// that restarted has lost the ports, so one-off messages still work too,
// and reopen the port.
function connectPort() {
  try {
    const p = chrome.runtime.connect({ name: "reins-frame" });
    p.onMessage.addListener((msg) => {
      if (!msg || !msg.rid) return;
      reply(msg, (a) => {
        try {
          p.postMessage({ rid: msg.rid, ...a });
        } catch {} // the worker went away meanwhile
      });
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
// answerer(msg), an answer or a Promise of one, and opens the port.
export function listen(answerer) {
  answer = answerer;
  chrome.runtime.onMessage.addListener((msg, sender, respond) => {
    if (!msg || sender.id !== chrome.runtime.id || sender.tab) return false;
    if (!port) connectPort();
    return reply(msg, respond);
  });
  connectPort();
}
