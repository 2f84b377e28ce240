// The wire tree's pure steps: merging runs of text across lifted elements,
// lifting elements that are no node of their own, and dropping children
// that only repeat a node's name. The DOM side hands in the entries it read
// and a function that makes a node of one.
//
// An entry is {role, name, kids, pointer, block, …}: kids are text strings
// and child entries.
//
// Pure: no DOM, no chrome.*, no page globals. Imports pure modules only.

import { NAME_FROM_CONTENT } from "./roles.js";
import { clean } from "./text.js";

// emit turns children into wire nodes: runs of text (across lifted inline
// elements) merge into one text node; a lifted block element breaks them.
// toNode makes the node of an entry that stands on its own, or null;
// stands, if given, says whether an entry without a role or pointer stands
// on its own all the same (a box that scrolls).
export function emit(kids, out, buf, toNode, stands) {
  for (const k of kids) {
    if (typeof k === "string") {
      buf.s += k;
      continue;
    }
    if (!k.role && !k.pointer && !(stands && stands(k))) {
      if (k.block) flush(out, buf);
      emit(k.kids, out, buf, toNode, stands);
      if (k.block) flush(out, buf);
      continue;
    }
    flush(out, buf);
    const n = toNode(k);
    if (n) out.push(n);
  }
  return out;
}

// flush ends the run of text in buf as one text node, if it shows anything.
export function flush(out, buf) {
  const t = clean(buf.s);
  buf.s = "";
  if (t) out.push({ role: "text", text: t });
}

// childrenOf is the wire children of a list of kids.
export function childrenOf(kids, toNode, stands) {
  const out = [];
  const buf = { s: "" };
  emit(kids, out, buf, toNode, stands);
  flush(out, buf);
  return out;
}

// shownChildren is what a node keeps of its children: a node named from its
// content would repeat that content as text children, so it keeps none.
export function shownChildren(role, name, children) {
  return NAME_FROM_CONTENT.has(role) && name && children.every((c) => c.role === "text") ? [] : children;
}
