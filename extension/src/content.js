// Reins content script: runs in the ISOLATED world of every frame. It only
// looks: it never changes the page, never dispatches events and never runs
// page code. It answers the service worker with this frame's accessibility
// tree, re-finds an element just before an act (with what activating it
// sets in motion), says what has the keyboard focus, says when the page is
// quiet after one, and where the act's trusted events arrived.
//
// This is the entry point; extension/content.js is the esbuild bundle of it,
// the modules under pure/ and dom/, and dom-accessibility-api
// (cd extension/src && npm ci && npm run build). Modules under pure/ touch
// no DOM and import only each other; modules under dom/ may import pure/,
// dom/ and dom-accessibility-api; nothing imports this file. A test in
// extension/ holds them to that.
//
// Imports dom/ and pure/ modules.
"use strict";

import { fail } from "./pure/reply.js";
import { startCalibration } from "./dom/calibration.js";
import { listen } from "./dom/channel.js";
import { startLive } from "./dom/live.js";
import { focus } from "./dom/motion.js";
import { doc, startNav } from "./dom/nav.js";
import { frameHit, metrics, resolve } from "./dom/resolve.js";
import { settle, startSettle } from "./dom/settle.js";
import { snapshot } from "./dom/tree.js";
import { effects, startWitness, watch, witness } from "./dom/witness.js";

// answer is a request's answer, or a Promise of one for those that wait.
function answer(msg) {
  try {
    switch (msg.type) {
      case "snapshot":
        return { result: snapshot(msg.known) };
      case "resolve":
        return resolve(msg);
      case "frameHit":
        return frameHit(msg);
      case "metrics":
        return metrics();
      case "focus":
        return focus();
      case "settle":
        return settle(msg);
      case "watch":
        return watch(msg);
      case "witness":
        return witness(msg);
      case "effects":
        return effects(msg);
      default:
        return fail("unknown_method", "unknown request " + msg.type);
    }
  } catch (e) {
    return fail("internal", String(e && e.message ? e.message : e));
  }
}

// Every module only defines at load; this starts them, once per document
// (the script is injected twice: at install and by the manifest).
if (!globalThis.__reinsFrame) {
  const frame = (globalThis.__reinsFrame = {});
  startNav();
  startCalibration();
  startLive();
  startSettle();
  startWitness();
  listen(answer);
  frame.doc = doc;
}
