// What activating an element sets in motion: where a link or a submit
// control leads, resolved; what a field's or a control's form submits;
// and the button beside a field outside any form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { focus, motionOf } from "../dom/motion.js";
import { URL_MAX, bound, destination, fieldKinds, method, secretAutocomplete } from "../pure/motion.js";
import { h, install, page } from "./fakedom.js";

test("an address resolves against the page, a javascript: one is said to run script", () => {
  assert.deepEqual(destination("/pay?x=1", "https://shop.example/cart/"), { leads: "https://shop.example/pay?x=1" });
  assert.deepEqual(destination("  //evil.example/a ", "https://shop.example/"), { leads: "https://evil.example/a" });
  assert.deepEqual(destination("JavaScript:alert(1)", "https://shop.example/"), { script: true });
  assert.equal(destination("http://[", "https://shop.example/"), null);
  const long = destination("https://evil.example/?" + "a".repeat(5000), "https://shop.example/").leads;
  assert.equal(Array.from(long).length, URL_MAX);
  assert.ok(long.startsWith("https://evil.example/?") && long.endsWith("…"));
  assert.equal(bound("short", 10), "short");
});

test("a method is get, post or dialog as the browser reads it", () => {
  assert.equal(method("POST "), "post");
  assert.equal(method("dialog"), "dialog");
  assert.equal(method("put"), "get");
  assert.equal(method(null), "get");
});

test("fields say what a form does by their autocomplete and their words", () => {
  const kinds = (ac, ...hints) => {
    const k = fieldKinds(ac, hints);
    return [[...k.kinds].sort(), k.payment];
  };
  assert.deepEqual(kinds("cc-number"), [["card"], true]);
  assert.deepEqual(kinds("transaction-amount"), [["amount"], false]);
  assert.deepEqual(kinds("", "transferAmount"), [["amount"], false]);
  assert.deepEqual(kinds("", "recipient_iban"), [["iban"], false]);
  assert.deepEqual(kinds("", "", "", "Kontonummer"), [["account"], false]);
  assert.deepEqual(kinds("", "cardNumber"), [["card"], true]);
  assert.deepEqual(kinds("", "comment", "body", "Say something"), [[], false]);
  assert.deepEqual(kinds("", "amountain"), [[], false], "whole words only");
  assert.equal(secretAutocomplete("shipping cc-exp-month"), true);
  assert.equal(secretAutocomplete("username"), false);
});

// A shop's page: a link, a script link, a form that pays behind a button
// called Continue, a form tied by its form attribute, and a chat box with
// a Send button beside it.
const el = {};
const doc = page(
  "Checkout",
  (el.link = h("a", { href: "/orders" }, {}, (el.inLink = h("span", {}, {}, "Your orders")))),
  (el.script = h("a", { href: "javascript:void(0)" }, {}, "Menu")),
  (el.away = h("a", { href: "https://evil.example/collect?iban=DE89" }, {}, "Details")),
  (el.form = h(
    "form",
    { action: "/payments/confirm", method: "post", id: "pay" },
    {},
    (el.amount = h("input", { name: "amount", "aria-label": "How much" })),
    (el.card = h("input", { autocomplete: "cc-number", "aria-label": "Card" })),
    (el.cont = h("button", {}, {}, "Continue")),
    (el.elsewhere = h("button", { formaction: "https://evil.example/steal", formmethod: "get" }, {}, "Save")),
    h("button", { type: "button" }, {}, "Cancel")
  )),
  (el.tied = h("input", { form: "pay", "aria-label": "Reference" })),
  h("div", {}, {}, h("div", {}, {}, (el.chat = h("textarea", { "aria-label": "Comment" }))), h("div", {}, {}, (el.send = h("button", { type: "button" }, {}, "Send")))),
  h("div", {}, {}, h("div", {}, {}, h("div", {}, {}, h("div", {}, {}, (el.lonely = h("input", { "aria-label": "Search" })))))),
  h("button", {}, {}, "Far away")
);
install(doc, { url: "https://shop.example/checkout/" });

test("a link leads to its href resolved, a script link says so, and an element inside a link leads where the link does", () => {
  assert.deepEqual(motionOf(el.link), { leads: "https://shop.example/orders" });
  assert.deepEqual(motionOf(el.inLink), { leads: "https://shop.example/orders" });
  assert.deepEqual(motionOf(el.script), { script: true });
  assert.deepEqual(motionOf(el.away), { leads: "https://evil.example/collect?iban=DE89" });
});

test("a submit control leads where its form submits and says what the form holds", () => {
  assert.deepEqual(motionOf(el.cont), {
    leads: "https://shop.example/payments/confirm",
    form: { method: "post", action: "https://shop.example/payments/confirm", submit: "Continue", control: true, fields: ["amount", "card"], payment: true },
  });
  const other = motionOf(el.elsewhere);
  assert.equal(other.leads, "https://evil.example/steal", "formaction wins over the form's action");
  assert.equal(other.form.method, "get", "and formmethod over its method");
  assert.equal(other.form.submit, "Save");
  assert.equal(motionOf(doc.body.childNodes.at(-1)), undefined, "a button outside any form submits nothing");
});

test("a field in a form names the default button Enter presses; a field tied by form= too", () => {
  for (const f of [el.amount, el.tied]) {
    const m = motionOf(f);
    assert.equal(m.leads, undefined);
    assert.deepEqual(m.form, { method: "post", action: "https://shop.example/payments/confirm", submit: "Continue", fields: ["amount", "card"], payment: true });
  }
});

test("a field outside any form names the button beside it, looked for a few levels up only", () => {
  assert.deepEqual(motionOf(el.chat), { form: { submit: "Send", beside: true } });
  assert.equal(motionOf(el.lonely), undefined);
});

test("focus answers the focused field with what Enter there sets in motion, and nothing without the focus", () => {
  doc.activeElement = el.amount;
  doc.hasFocus = () => false;
  assert.deepEqual(focus(), { result: {} });
  doc.hasFocus = () => true;
  const r = focus().result;
  assert.equal(r.focused, true);
  assert.equal(r.role, "textbox");
  assert.equal(r.name, "How much");
  assert.equal(r.editable, true);
  assert.equal(r.origin, "https://shop.example");
  assert.equal(r.motion.form.submit, "Continue");
  doc.activeElement = h("iframe", { title: "x" });
  doc.body.append(doc.activeElement);
  assert.deepEqual(focus(), { result: { inner: true } });
});

// The golden messages in bridge/protocol/testdata carry the same fields.
const golden = (f) => JSON.parse(readFileSync(new URL("../../../bridge/protocol/testdata/" + f, import.meta.url), "utf8"));
const kinds = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? "array" : typeof v]));

test("motion and focus answers have the golden messages' fields", () => {
  const want = golden("resolve_result.json").result.motion;
  const got = motionOf(el.cont);
  assert.deepEqual(kinds(got), kinds(want));
  assert.deepEqual(kinds(got.form), kinds(want.form));
  doc.activeElement = el.amount;
  doc.hasFocus = () => true;
  const f = focus().result;
  const wantFocus = golden("focus_result.json").result;
  const { frame, secret, ...rest } = kinds(wantFocus); // the worker adds the frame; secret shows only for a secret field
  assert.deepEqual(kinds(f), rest);
  assert.deepEqual(kinds(f.motion.form), kinds(wantFocus.motion.form));
  assert.equal(golden("reach_error_response.json").error.now.motion.leads, "https://shop.example/order");
});
