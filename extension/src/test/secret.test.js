// Which fields are secret: their values are never read out, typing into
// them is asked on its own, and pictures agents get black them out.
import { test } from "node:test";
import assert from "node:assert/strict";

import { isSecret } from "../dom/accessible.js";

const input = (attrs) => ({ tagName: "INPUT", getAttribute: (k) => (k in attrs ? attrs[k] : null) });

test("passwords, card fields and one-time codes are secret; other fields are not", () => {
  for (const attrs of [{ type: "password" }, { type: "PASSWORD" }, { autocomplete: "cc-number" }, { autocomplete: "billing cc-csc" }, { autocomplete: "cc-exp" }, { autocomplete: "one-time-code" }]) {
    assert.equal(isSecret(input(attrs)), true, JSON.stringify(attrs));
  }
  for (const attrs of [{}, { type: "text" }, { autocomplete: "email" }, { autocomplete: "cc-name" }, { autocomplete: "one-time" }]) {
    assert.equal(isSecret(input(attrs)), false, JSON.stringify(attrs));
  }
  assert.equal(isSecret({ tagName: "TEXTAREA", getAttribute: () => "one-time-code" }), false);
});
