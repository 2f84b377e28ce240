// What activating an element sets in motion, beyond the element itself:
// where a link or a form's submit control leads, and, for a text field or
// a submit control, what its form submits (where, how, which control
// Enter presses, and the kinds of field it holds). A field outside any
// form names the button beside it, the one Enter there most likely
// presses. Attributes are read, never the properties a page can shadow by
// naming a field "action" or "elements"; values are never read.
//
// DOM side. Imports pure modules and dom/accessible.js, dom/composed.js,
// dom/style.js.

import { BESIDE_LEVELS, FIELDS_MAX, controlName, destination, fieldKinds, method, sortedKinds } from "../pure/motion.js";
import { forgetSecrets, isSecret, nameOf, roleAsShown } from "./accessible.js";
import { deepActive } from "./composed.js";
import { forgetStyles } from "./style.js";

// motionOf is what activating el sets in motion, for the wire
// (bridge/protocol Motion), or undefined when it is nothing beyond el.
export function motionOf(el) {
  const m = {};
  const link = linkOf(el);
  if (link) Object.assign(m, destination(hrefOf(link), document.baseURI || location.href));
  const form = ownerForm(el);
  if (form && submitControl(el)) {
    const f = formFacts(form, el);
    f.control = true;
    if (f.script) m.script = true;
    else if (f.action) m.leads = f.action;
    delete f.script;
    m.form = f;
  } else if (textField(el)) {
    if (form) {
      const f = formFacts(form, null);
      delete f.script;
      m.form = f;
    } else {
      const b = besideOf(el);
      if (b) m.form = { submit: controlName(nameOf(b, roleAsShown(b))), beside: true };
    }
  }
  return Object.keys(m).length ? m : undefined;
}

// focus answers what has the keyboard focus in this frame: the element,
// with what Enter there sets in motion, when this frame's document has the
// focus and no child frame holds it.
export function focus() {
  forgetStyles();
  forgetSecrets();
  try {
    return focused();
  } finally {
    forgetStyles();
  }
}

function focused() {
  const el = deepActive();
  if (!(typeof document.hasFocus === "function" && document.hasFocus()) || !el || el === document.body || el === document.documentElement) return { result: {} };
  if (/^(IFRAME|FRAME)$/.test(el.tagName)) return { result: { inner: true } };
  const role = roleAsShown(el);
  const result = {
    focused: true,
    role,
    name: controlName(role === "generic" ? "" : nameOf(el, role)),
    editable: !!el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName),
    origin: location.origin,
  };
  if (isSecret(el)) result.secret = true;
  const m = motionOf(el);
  if (m) result.motion = m;
  return { result };
}

// attr reads an attribute through Element's own method: a form's fields,
// by their names, shadow the form's properties, getAttribute included.
function attr(el, name) {
  const E = globalThis.Element;
  return E && E.prototype.getAttribute ? E.prototype.getAttribute.call(el, name) : el.getAttribute(name);
}

function parentOf(n) {
  return n.parentElement || (n.parentNode && n.parentNode.host) || null;
}

// linkOf is the link el is or sits in: an <a> or <area> with an href.
function linkOf(el) {
  for (let n = el; n; n = parentOf(n)) {
    if ((n.tagName === "A" || n.tagName === "AREA" || n.localName === "a") && hrefOf(n) !== null) return n;
  }
  return null;
}

function hrefOf(a) {
  const h = a.getAttribute("href");
  if (h !== null) return h;
  return a.getAttribute("xlink:href");
}

// ownerForm is the form el belongs to: the one its form attribute names,
// else the one around it.
function ownerForm(el) {
  if (!/^(INPUT|BUTTON|SELECT|TEXTAREA|OUTPUT|OBJECT|FIELDSET)$/.test(el.tagName)) return closestForm(el);
  const id = el.getAttribute("form");
  if (id !== null) {
    const f = el.getRootNode && el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id);
    return f && isForm(f) ? f : null;
  }
  return closestForm(el);
}

function closestForm(el) {
  for (let n = el.parentNode; n && n.nodeType === 1; n = n.parentNode) if (isForm(n)) return n;
  return null;
}

// isForm reports whether n is a form, by its prototype: a form's fields
// shadow its tagName too.
function isForm(n) {
  const F = globalThis.HTMLFormElement;
  return F ? n instanceof F : n.tagName === "FORM";
}

// submitControl reports whether activating el submits its form.
function submitControl(el) {
  const type = (el.getAttribute("type") || "").toLowerCase();
  if (el.tagName === "BUTTON") return type !== "button" && type !== "reset";
  return el.tagName === "INPUT" && (type === "submit" || type === "image");
}

const NOT_TEXT = /^(button|submit|reset|image|checkbox|radio|file|hidden|range|color)$/;

// textField reports whether el takes typed text.
function textField(el) {
  if (el.tagName === "TEXTAREA" || el.isContentEditable) return true;
  return el.tagName === "INPUT" && !NOT_TEXT.test((el.getAttribute("type") || "text").toLowerCase());
}

// controlsOf lists a form's controls, those its form attribute ties to it
// included, through the prototype's own getter (a field named "elements"
// shadows the property).
function controlsOf(form) {
  const F = globalThis.HTMLFormElement;
  const get = F && Object.getOwnPropertyDescriptor(F.prototype, "elements");
  if (get && get.get) {
    try {
      return Array.from(get.get.call(form)).slice(0, FIELDS_MAX);
    } catch {}
  }
  const own = Array.from(form.querySelectorAll("input, select, textarea, button"));
  const id = attr(form, "id");
  const tied = id ? Array.from(document.querySelectorAll(`[form="${id.replace(/["\\]/g, "")}"]`)) : [];
  return own.concat(tied).slice(0, FIELDS_MAX);
}

// formFacts is what form submits (bridge/protocol Form), through submitter
// when a control submits it, else through its default button, the one
// implicit submission (Enter in a field) activates.
function formFacts(form, submitter) {
  const controls = controlsOf(form);
  const by = submitter || controls.find(submitControl) || null;
  const rawAction = by && attr(by, "formaction") !== null ? attr(by, "formaction") : attr(form, "action");
  const base = document.baseURI || location.href;
  const d = rawAction === null || rawAction.trim() === "" ? destination(location.href, base) : destination(rawAction, base);
  const f = { method: method(by && attr(by, "formmethod") !== null ? attr(by, "formmethod") : attr(form, "method")) };
  if (d && d.script) f.script = true;
  else if (d) f.action = d.leads;
  if (by) f.submit = controlName(nameOf(by, roleAsShown(by)) || by.getAttribute("value") || "");
  const kinds = new Set();
  let payment = false;
  for (const c of controls) {
    if (c.tagName !== "INPUT" && c.tagName !== "SELECT" && c.tagName !== "TEXTAREA") continue;
    const k = fieldKinds(c.getAttribute("autocomplete"), [c.getAttribute("name"), c.getAttribute("id"), c.getAttribute("placeholder"), c.getAttribute("aria-label"), labelOf(c)]);
    for (const x of k.kinds) kinds.add(x);
    payment = payment || k.payment;
  }
  const fields = sortedKinds(kinds);
  if (fields.length) f.fields = fields;
  if (payment) f.payment = true;
  return f;
}

// labelOf is the text of a field's labels, cut short.
function labelOf(c) {
  let s = "";
  for (const l of c.labels || []) s += " " + (l.textContent || "");
  return s.slice(0, 400);
}

const BUTTONISH = /^(submit|button|image)$/;

// isButton reports whether el is a button a person would press.
function isButton(el) {
  if (el.tagName === "BUTTON") return true;
  if (el.tagName === "INPUT") return BUTTONISH.test((el.getAttribute("type") || "").toLowerCase());
  return (el.getAttribute("role") || "").trim().split(/\s+/)[0] === "button";
}

// besideOf is the button beside a field outside any form: the first button
// within the nearest of its BESIDE_LEVELS ancestors that holds one.
function besideOf(el) {
  let n = el;
  for (let i = 0; i < BESIDE_LEVELS; i++) {
    n = parentOf(n);
    if (!n || n === document.body || n === document.documentElement) return null;
    for (const b of n.querySelectorAll("button, input, [role]")) if (b !== el && isButton(b)) return b;
  }
  return null;
}
