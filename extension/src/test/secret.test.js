// Which fields are secret: their values are never read out, typing into
// them is asked on its own, and pictures agents get black them out. A
// field is secret by its type, by its autocomplete, or by being drawn as
// a password field is (-webkit-text-security).
import { test } from "node:test";
import assert from "node:assert/strict";

import { isSecret } from "../dom/accessible.js";
import { forgetStyles } from "../dom/style.js";
import { h, install, page } from "./fakedom.js";

install(page("Sign in"));

const field = (tag, attrs, style) => {
  forgetStyles();
  return h(tag, attrs, { style });
};

test("passwords, card fields, one-time codes and password autocompletes are secret; other fields are not", () => {
  for (const attrs of [
    { type: "password" },
    { type: "PASSWORD" },
    { autocomplete: "cc-number" },
    { autocomplete: "billing cc-csc" },
    { autocomplete: "cc-exp" },
    { autocomplete: "cc-name" },
    { autocomplete: "one-time-code" },
    { autocomplete: "current-password" },
    { autocomplete: "section-a NEW-PASSWORD" },
  ]) {
    assert.equal(isSecret(field("input", attrs)), true, JSON.stringify(attrs));
  }
  for (const attrs of [{}, { type: "text" }, { autocomplete: "email" }, { autocomplete: "one-time" }, { autocomplete: "password" }, { autocomplete: "xcc-number" }]) {
    assert.equal(isSecret(field("input", attrs)), false, JSON.stringify(attrs));
  }
  assert.equal(isSecret(field("textarea", { autocomplete: "one-time-code" })), true);
  assert.equal(isSecret(field("div", { autocomplete: "one-time-code" })), false);
});

test("a text field drawn as a password field by CSS is secret", () => {
  for (const v of ["disc", "circle", "square"]) {
    assert.equal(isSecret(field("input", { type: "text" }, { webkitTextSecurity: v })), true, v);
    assert.equal(isSecret(field("textarea", {}, { webkitTextSecurity: v })), true, v);
  }
  assert.equal(isSecret(field("input", { type: "text" }, { webkitTextSecurity: "none" })), false);
  assert.equal(isSecret(field("input", { type: "text" }, {})), false);
});
