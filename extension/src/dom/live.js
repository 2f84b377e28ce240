// The live tree: each element that was read keeps an entry (its role, name,
// style facts and its children: text strings and child entries). A mutation
// marks the entries on its path to the root dirty (an attribute change: the
// whole subtree, since classes and styles cascade), and the next snapshot
// reads again only what is dirty. Boxes, form state and focus change
// without mutations, so tree.js reads them afresh at every serialisation.
//
// It also keeps "quiet": whether anything that could change the tree has
// happened since the last full read, and tells the worker on the first stir.
//
// DOM side. Imports pure modules and dom/accessible.js, dom/channel.js,
// dom/composed.js, dom/style.js.

import { FRAME_ROLE, SKIP_TAGS } from "../pure/roles.js";
import { nameOf, roleOf } from "./accessible.js";
import { notifyStirred } from "./channel.js";
import { shadowOf } from "./composed.js";
import { styleOf } from "./style.js";

// A page can still change what a snapshot shows without any event (a
// script setting a field's value, a running CSS animation), so "quiet" is
// trusted for a second at most; clicks never depend on it, since every act
// finds its element again.
export const QUIET_MS = 1000;
const MAX_NODES = 50000;

const entries = new WeakMap(); // element → entry
let allDirty = false;
// Elements named from outside their own subtree (aria-labelledby, <label>):
// any mutation may change their name.
const external = new Set();
let observer = null;
const watched = new WeakSet();
let budget = 0;

// quietSince is when the last full serialisation began, provided nothing
// that could change the tree has happened since; 0 once something has.
let quietSince = 0;

function parentOf(n) {
  return n.parentNode || n.host || null;
}

function markDirty(node, deep) {
  if (!node) return;
  if (node.nodeType !== Node.ELEMENT_NODE) node = parentOf(node);
  let first = true;
  for (let n = node; n; n = parentOf(n)) {
    if (n.nodeType !== Node.ELEMENT_NODE) continue;
    const e = entries.get(n);
    if (e) {
      e.dirty = true;
      if (first && (deep || shadowOf(n))) e.deep = true;
    }
    // A slotted node's slot is in the host's shadow tree, not on its path.
    if (first && n.assignedSlot) markDirty(n.assignedSlot, false);
    first = false;
  }
}

// stir ends the quiet: the first stir after a full read is told to the
// service worker, which answers "same" for a quiet frame without asking it.
export function stir() {
  if (!quietSince) return;
  quietSince = 0;
  notifyStirred();
}

function onMutations(records) {
  if (records.length) stir();
  for (const r of records) {
    if (r.type === "attributes") markDirty(r.target, true);
    else markDirty(r.target, false);
  }
  for (const el of external) {
    if (el.isConnected) markDirty(el, false);
    else external.delete(el); // the set must not keep removed elements alive
  }
}

function watch(root) {
  if (watched.has(root)) return;
  watched.add(root);
  observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
}

// startLive watches the document and the events that change what a
// snapshot shows without a mutation.
export function startLive() {
  observer = new MutationObserver(onMutations);
  watch(document);
  // State that changes without a mutation: hover and focus styles, finished
  // transitions, a new viewport size for media queries. Hover rules usually
  // sit within a few levels of the pointer (li:hover > ul).
  const near = (e) => {
    stir();
    let n = e.composedPath ? e.composedPath()[0] : e.target;
    for (let i = 0; n && i < 4; i++, n = parentOf(n)) markDirty(n, true);
  };
  for (const t of ["pointerover", "pointerout", "focusin", "focusout", "transitionend", "animationend", "toggle", "slotchange"]) {
    addEventListener(t, near, { capture: true, passive: true });
  }
  addEventListener("resize", () => {
    allDirty = true;
    stir();
  }, { passive: true });
  // Boxes, values and layout that move without a mutation: scrolling (of the
  // page or any element), typing, loaded images and fonts.
  for (const t of ["scroll", "input", "change", "load", "error"]) {
    addEventListener(t, stir, { capture: true, passive: true });
  }
  if (globalThis.visualViewport) {
    visualViewport.addEventListener("resize", stir, { passive: true });
    visualViewport.addEventListener("scroll", stir, { passive: true });
  }
  try {
    document.fonts.addEventListener("loadingdone", stir);
  } catch {}
}

// takeMutations handles the mutations the observer holds but has not yet
// delivered.
export function takeMutations() {
  const records = observer.takeRecords();
  if (records.length) onMutations(records);
}

// quietAt reports whether the frame has been quiet since a full read that
// began less than QUIET_MS before t0.
export function quietAt(t0) {
  return !!quietSince && t0 - quietSince < QUIET_MS;
}

// beginRead starts a full read at t0 with a fresh node budget, and reports
// whether every entry must be read again (the viewport was resized).
export function beginRead(t0) {
  quietSince = t0;
  const fresh = allDirty;
  allDirty = false;
  budget = MAX_NODES;
  return fresh;
}

// truncated reports whether the last read ran out of its node budget.
export function truncated() {
  return budget <= 0;
}

// childNodesOf walks the composed tree: a shadow host's shadow root stands
// in for its children, and a slot for what is assigned to it.
function childNodesOf(node) {
  if (node.nodeType === Node.ELEMENT_NODE) {
    const sr = shadowOf(node);
    if (sr) {
      watch(sr);
      return sr.childNodes;
    }
    if (node.tagName === "SLOT") {
      const assigned = node.assignedNodes();
      if (assigned.length) return assigned;
    }
  }
  return node.childNodes;
}

// read returns the entry of an element, rebuilt if dirty, or null when the
// element and all below it are not in the tree.
export function read(el, depth, fresh) {
  if (SKIP_TAGS.has(el.tagName)) return null;
  let e = entries.get(el);
  if (e && !e.dirty && !fresh) {
    budget -= e.size;
    return e;
  }
  const deep = fresh || (e ? e.deep : false);
  const style = styleOf(el);
  // Content hidden from assistive technology but on screen stays: the
  // agent acts by pointer on what a person sees (Playwright's AI mode
  // makes the same choice).
  if (style.display === "none") {
    e = { hidden: true, dirty: false, deep: false, size: 0 };
    entries.set(el, e);
    return e;
  }
  budget--;
  const role = roleOf(el);
  const visible = style.visibility === "visible";
  const kids = [];
  let size = 1;
  if (role !== FRAME_ROLE && depth < 256) {
    const nodes = el.tagName === "SELECT" ? el.querySelectorAll("option") : childNodesOf(el);
    for (const c of nodes) {
      if (budget <= 0) break;
      if (c.nodeType === Node.TEXT_NODE) {
        if (visible && c.nodeValue) {
          kids.push(c.nodeValue);
          budget--;
          size++;
        }
      } else if (c.nodeType === Node.ELEMENT_NODE) {
        const k = read(c, depth + 1, deep);
        if (k && !k.hidden) {
          kids.push(k);
          size += k.size;
        }
      }
    }
  }
  const name = visible || role ? nameOf(el, role) : "";
  const pointer = style.cursor === "pointer";
  e = {
    el,
    role,
    name,
    kids,
    visible,
    pe: style.pointerEvents !== "none",
    // A generic element is kept only when it is itself clickable (not
    // merely inside something clickable), else its children are lifted.
    pointer: !role && pointer && visible && !(el.parentElement && styleOf(el.parentElement).cursor === "pointer"),
    block: !/^(inline|contents)/.test(style.display) || el.tagName === "BR",
    dirty: false,
    deep: false,
    size,
  };
  if (el.hasAttribute("aria-labelledby") || (el.labels && el.labels.length)) external.add(el);
  entries.set(el, e);
  return e;
}
