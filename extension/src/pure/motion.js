// What activating an element sets in motion, as words the app can judge:
// where an address leads once resolved, and which kinds of field a form
// holds that say what submitting it does (it moves money, it pays by card).
// Page text only ever picks a kind from a fixed list here, so nothing the
// page wrote travels as a kind.
//
// Pure: no DOM, no chrome.*, no page globals. Imports pure/text.js.

import { clean } from "./text.js";

// URL_MAX is the most of a destination reported, in characters; longer
// ones are cut and marked, their origin kept whole at the front.
export const URL_MAX = 2048;

// NAME_MAX is the most of a control's name reported.
export const NAME_MAX = 200;

// BESIDE_LEVELS is how far up from a field outside any form the button
// beside it is looked for: the nearest of these ancestors that holds a
// button too gives it.
export const BESIDE_LEVELS = 3;

// FIELDS_MAX is the most fields of one form read for their kinds.
export const FIELDS_MAX = 200;

// destination resolves an address a page wrote (href, action, formaction)
// against base: {leads} for an address the browser would go to, {script:
// true} for a javascript: one, which runs the page's code instead of
// going anywhere, and null for one that cannot be read.
export function destination(raw, base) {
  let u;
  try {
    u = new URL(String(raw).trim(), base);
  } catch {
    return null;
  }
  if (u.protocol === "javascript:") return { script: true };
  return { leads: bound(u.href, URL_MAX) };
}

// bound cuts s to max characters, marking the cut with an ellipsis.
export function bound(s, max) {
  const chars = Array.from(s);
  return chars.length <= max ? s : chars.slice(0, max - 1).join("") + "…";
}

// controlName is a control's accessible name as reported: cleaned and cut.
export function controlName(name) {
  return bound(clean(name), NAME_MAX);
}

// method is a form's method as the browser reads the attribute: get, post
// or dialog, get for anything else.
export function method(raw) {
  const m = String(raw || "").trim().toLowerCase();
  return m === "post" || m === "dialog" ? m : "get";
}

// The kinds of field that say what a form does, and how each is known:
// by its autocomplete tokens, or by the words of its name, id, label or
// placeholder (in English, German, French and Spanish).
export const KINDS = ["amount", "card", "iban", "account"];

const AUTOCOMPLETE_KIND = { "transaction-amount": "amount", "transaction-currency": "amount" };

const WORD_KINDS = [
  ["amount", /\b(amount|amt|sum|summe|betrag|montant|importe|monto|cantidad a enviar)\b/],
  ["card", /\b(card ?number|card ?no|cc ?num(ber)?|cvc|cvv|csc|security code|expiry|kartennummer|numero de carte|num[eé]ro de carte|n[uú]mero de tarjeta)\b/],
  ["iban", /\b(iban|bic|swift)\b/],
  ["account", /\b(account ?(number|no)|acct ?(number|no)?|routing ?(number|no)?|sort ?code|kontonummer|bankleitzahl|blz|num[eé]ro de compte|n[uú]mero de cuenta)\b/],
];

// words makes hints one lower-case line of words: camel case split,
// separators (_ - . [ ]) made spaces, accents kept.
function words(hints) {
  return hints
    .map((h) => String(h || "").replace(/([a-z])([A-Z])/g, "$1 $2"))
    .join(" ")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ");
}

// fieldKinds are the kinds a field is of, from its autocomplete attribute
// and the other texts that describe it (name, id, label, placeholder);
// payment says it is a payment card's field (autocomplete cc-…).
export function fieldKinds(autocomplete, hints) {
  const kinds = new Set();
  let payment = false;
  for (const t of String(autocomplete || "").toLowerCase().split(/\s+/)) {
    if (t.startsWith("cc-")) {
      payment = true;
      kinds.add("card");
    }
    if (AUTOCOMPLETE_KIND[t]) kinds.add(AUTOCOMPLETE_KIND[t]);
  }
  const text = " " + words(hints) + " ";
  for (const [kind, re] of WORD_KINDS) if (re.test(text)) kinds.add(kind);
  if (kinds.has("card")) payment = true;
  return { kinds, payment };
}

// sortedKinds lists kinds in KINDS' order.
export function sortedKinds(kinds) {
  return KINDS.filter((k) => kinds.has(k));
}

// secretAutocomplete reports whether an autocomplete attribute marks a
// field whose value opens an account or spends money: a password, a
// one-time code, a payment card's data.
export function secretAutocomplete(autocomplete) {
  return String(autocomplete || "")
    .toLowerCase()
    .split(/\s+/)
    .some((t) => t === "current-password" || t === "new-password" || t === "one-time-code" || t.startsWith("cc-"));
}

// masked reports whether a computed -webkit-text-security draws a field's
// characters as shapes, as a password field does.
export function masked(textSecurity) {
  const v = String(textSecurity || "").trim().toLowerCase();
  return v !== "" && v !== "none";
}
