// Tree generation: a snapshot of this frame as wire nodes (role, name, box,
// ref, states, frame, scroll, children) in one report, from the live
// tree's entries. A box that scrolls is a node of its own, with a ref when
// it can be pointed at, so that an agent can turn the wheel over it. Boxes, form state and focus are read here, afresh each time, for
// the elements that are emitted.
//
// DOM side. Imports pure modules and dom/accessible.js, dom/composed.js,
// dom/live.js, dom/nav.js, dom/refs.js, dom/resolve.js, dom/settle.js,
// dom/style.js, dom/window.js.

import { round2 } from "../pure/geometry.js";
import { FRAME_ROLE } from "../pure/roles.js";
import { clean } from "../pure/text.js";
import { childrenOf, shownChildren } from "../pure/wire.js";
import { forgetSecrets, isSecret } from "./accessible.js";
import { deepActive } from "./composed.js";
import { beginRead, quietAt, read, stir, takeMutations, truncated } from "./live.js";
import { checkNav, currentEntry, doc, epoch } from "./nav.js";
import { idFor } from "./refs.js";
import { takeChurn } from "./settle.js";
import { scrollState } from "./resolve.js";
import { forgetStyles, styleOf } from "./style.js";
import { box, frameChild, frameIndex, viewport, windowMetrics } from "./window.js";

// The last tree text sent and its version: an app that already holds it
// is told "same" instead of receiving it again.
let lastTree = "";
let treeVersion = 0;
let lastTruncated = false;
// The focused element during a snapshot.
let focused = null;

// node is the wire node of an entry that stands on its own, or null for an
// invisible one that is the parent of nothing visible.
export function node(e) {
  const el = e.el;
  const role = e.role || "generic";
  const n = { role };
  if (e.name) n.name = e.name;
  const b = box(el);
  n.box = b;
  if (e.visible && e.pe && b.w > 0 && b.h > 0) n.id = idFor(el, e.role ? role : "generic", e.name);
  if (e.pointer) n.pointer = true;
  states(el, role, n);
  if (role === FRAME_ROLE) n.frame = frameChild(el);
  const sc = e.visible && scrollState(el, styleOf);
  if (sc) n.scroll = sc;
  const children = childrenOf(e.kids, node, scrolls);
  // A node named from its content would repeat that content as children.
  // Invisible itself, it stands only as the parent of something visible.
  if (!e.visible && !children.length) return null;
  const kids = shownChildren(role, e.name, children);
  if (kids.length) n.children = kids;
  return n;
}

// scrolls reports whether an entry with no role of its own is a visible box
// that scrolls, which stands as a node all the same.
const scrolls = (e) => !!(e.el && e.visible && scrollState(e.el, styleOf));

function states(el, role, n) {
  const aria = (a) => el.getAttribute(a);
  if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
    if (el.tagName === "INPUT") n.checked = el.indeterminate ? "mixed" : String(el.checked);
    else if (aria("aria-checked")) n.checked = aria("aria-checked");
  }
  if (aria("aria-disabled") === "true" || (/^(BUTTON|INPUT|SELECT|TEXTAREA|OPTION|OPTGROUP|FIELDSET)$/.test(el.tagName) && el.matches(":disabled"))) n.disabled = true;
  const ex = aria("aria-expanded");
  if (ex) n.expanded = ex;
  else if (el.tagName === "DETAILS") n.expanded = String(el.open);
  else if (el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") n.expanded = String(el.parentElement.open);
  const pr = aria("aria-pressed");
  if (pr) n.pressed = pr;
  if (aria("aria-selected") === "true" || (el.tagName === "OPTION" && el.selected)) n.selected = true;
  if (role === "heading") {
    const level = /^H([1-6])$/.exec(el.tagName);
    n.level = parseInt(aria("aria-level") || (level ? level[1] : "2"), 10) || 2;
  }
  if (el === focused) n.focused = true;
  if (role === "link" && el.href) n.url = typeof el.href === "string" ? el.href : "";
  if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
    if (isSecret(el)) n.secret = true;
    else if (el.value && !/^(button|submit|reset|checkbox|radio|image|file)$/i.test(el.type)) n.value = el.value;
    const ph = el.getAttribute("placeholder");
    if (ph) n.placeholder = ph;
  }
  if (el.tagName === "SELECT" && el.selectedOptions && el.selectedOptions.length) n.value = clean(el.selectedOptions[0].textContent);
}

// report is a frame's answer; the tree is left out when the app holds it.
function report(t0, tree, same) {
  const churn = takeChurn();
  return {
    // What kept changing on its own during the last settle, told once.
    ...(churn.length ? { churn } : {}),
    url: location.href,
    origin: location.origin,
    doc,
    epoch,
    entry: currentEntry(),
    history: history.length,
    index: frameIndex(),
    viewport: viewport(),
    window: windowMetrics(),
    // One string: see protocol.FrameReport.Decode for why.
    tree: same ? undefined : tree,
    version: treeVersion,
    same,
    truncated: lastTruncated,
    took: round2(performance.now() - t0),
  };
}

// snapshot answers a snapshot request; known is the "doc:version" of the
// tree the app already holds, if any.
export function snapshot(known) {
  const t0 = performance.now();
  if (checkNav()) stir();
  takeMutations();
  if (quietAt(t0) && known === doc + ":" + treeVersion) {
    return report(t0, "", true); // quiet: answer without walking the page
  }
  const fresh = beginRead(t0);
  focused = deepActive();
  forgetStyles();
  forgetSecrets();
  let out = [];
  const top = document.body || document.documentElement;
  if (top) {
    const e = read(top, 0, fresh);
    if (e && !e.hidden) out = childrenOf(e.role || e.pointer ? [e] : e.kids, node, scrolls);
  }
  const root = { role: "document", name: document.title || "", children: out };
  forgetStyles();
  const tree = JSON.stringify(root);
  if (tree !== lastTree) {
    lastTree = tree;
    treeVersion++;
  }
  lastTruncated = truncated();
  return report(t0, tree, known === doc + ":" + treeVersion);
}
