// The document generation and navigation epoch: a new document is a new
// content-script instance with a new doc id; any same-document navigation
// (pushState, popstate, hash, a new navigation entry) bumps the epoch and
// forgets every ref.
//
// DOM side. Imports pure/id.js, dom/channel.js and dom/refs.js.

import { newID } from "../pure/id.js";
import { send } from "./channel.js";
import { forgetRefs } from "./refs.js";

export let doc = "";
export let epoch = 0;
let lastURL = "";
let lastEntry = "";

export function currentEntry() {
  try {
    return globalThis.navigation && navigation.currentEntry ? String(navigation.currentEntry.id) : "";
  } catch {
    return "";
  }
}

// startNav gives the document its id, listens for navigation signals and
// tells the worker the document is new.
export function startNav() {
  doc = newID((b) => crypto.getRandomValues(b));
  lastURL = location.href;
  lastEntry = currentEntry();
  addEventListener("popstate", () => checkNav("popstate"), true);
  addEventListener("hashchange", () => checkNav("hash"), true);
  try {
    if (globalThis.navigation) navigation.addEventListener("currententrychange", () => checkNav("entry"));
  } catch {}
  send({ type: "navigated", url: location.href, doc, epoch, kind: "document" });
}

// checkNav notices a same-document navigation whether or not an event told
// us, and reports whether there was one.
export function checkNav(kind) {
  const url = location.href;
  const entry = currentEntry();
  if (url === lastURL && entry === lastEntry) return false;
  lastURL = url;
  lastEntry = entry;
  epoch++;
  forgetRefs();
  send({ type: "navigated", url, doc, epoch, kind: kind || "entry" });
  return true;
}
