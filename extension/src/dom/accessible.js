// An element's role and accessible name as the snapshot shows them, and
// whether it is a secret field. dom-accessibility-api computes; the tables
// in pure/roles.js correct it where Chromium differs.
//
// DOM side. Imports dom-accessibility-api, pure modules and dom/style.js.

import { computeAccessibleName, getRole as libraryRole } from "dom-accessibility-api";
import { FRAME_ROLE, NO_NAME, SECTIONING_ROLES, SECTIONING_TAGS, TAG_ROLES, firstToken, inputRole } from "../pure/roles.js";
import { masked, secretAutocomplete } from "../pure/motion.js";
import { clean, maskSecrets } from "../pure/text.js";
import { styleOf } from "./style.js";

function inSection(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (SECTIONING_TAGS.has(p.tagName)) return true;
    const r = p.getAttribute("role");
    if (r && SECTIONING_ROLES.has(r)) return true;
  }
  return false;
}

function hasOwnName(el) {
  return !!((el.getAttribute("aria-label") || "").trim() || el.hasAttribute("aria-labelledby") || (el.getAttribute("title") || "").trim());
}

// roleOf is the element's role, cleaned: the first token of a page's role
// attribute is the page's own text, reported as it is.
export function roleOf(el) {
  return clean(rawRole(el));
}

// roleAsShown is the role the snapshot printed for el: a clickable element
// without a role is shown (and its ref recorded) as generic.
export function roleAsShown(el) {
  return roleOf(el) || "generic";
}

function rawRole(el) {
  let role = libraryRole(el) || "";
  if (role === "none" || role === "presentation") return "";
  if (el.hasAttribute("role") && role === firstToken(el.getAttribute("role"))) return role;
  const tag = el.tagName;
  if (tag in TAG_ROLES) return TAG_ROLES[tag];
  switch (tag) {
    case "SECTION":
    case "FORM":
      return hasOwnName(el) ? role : "";
    case "HEADER":
    case "FOOTER":
      return inSection(el) ? "" : role;
    case "INPUT":
      return inputRole(el.type, role);
    case "IFRAME":
    case "FRAME":
      return FRAME_ROLE;
    case "SVG":
    case "svg":
      return el.hasAttribute("aria-label") || el.querySelector(":scope > title") ? "img" : "";
    case "CANVAS":
      return "";
  }
  return role;
}

// isSecret reports whether el is a field whose value is never read out: a
// password field, a text field drawn as one (-webkit-text-security), or
// one its autocomplete marks as a password, a one-time code or a payment
// card's.
export function isSecret(el) {
  if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return false;
  if (el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "password") return true;
  if (secretAutocomplete(el.getAttribute("autocomplete"))) return true;
  const st = styleOf(el);
  return masked(st.webkitTextSecurity || (st.getPropertyValue && st.getPropertyValue("-webkit-text-security")));
}

// Secret fields with a value in this frame, found once per snapshot: a
// name computed across one (a label that embeds it) must not carry it.
let secretValues = null;
function secrets() {
  if (secretValues) return secretValues;
  secretValues = [];
  for (const i of document.querySelectorAll("input, textarea")) if (isSecret(i) && i.value) secretValues.push(i);
  return secretValues;
}

// forgetSecrets makes the next name look for secret fields again.
export function forgetSecrets() {
  secretValues = null;
}

export function nameOf(el, role) {
  if (!role || NO_NAME.has(role)) return "";
  let name;
  try {
    name = computeAccessibleName(el, { getComputedStyle: styleOf, computedStyleSupportsPseudoElements: true });
  } catch {
    name = "";
  }
  if (!name && role === FRAME_ROLE) name = el.getAttribute("title") || el.getAttribute("name") || "";
  // HTML-AAM's last resort for a text field, which Chromium applies.
  if (!name && (el.tagName === "INPUT" || el.tagName === "TEXTAREA")) name = el.getAttribute("placeholder") || "";
  name = clean(name);
  if (name && secrets().length) name = maskSecrets(name, secrets().map((s) => s.value));
  return name;
}
