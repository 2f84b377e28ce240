// Unit tests for pure/text.js. Imports pure modules only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clean, maskSecrets } from "../pure/text.js";

test("clean folds line breaks, tabs and runs of spaces into one line", () => {
  assert.equal(clean("  Sign\n\tin \r\n now  "), "Sign in now");
  assert.equal(clean("a\u2028b\u2029c\u0085d"), "a b c d");
  assert.equal(clean("a\u00a0\u00a0b"), "a b");
});

test("clean drops what a person cannot see", () => {
  assert.equal(clean("\u001b[31mred\u001b[0m"), "[31mred[0m", "ESC goes, the rest is text");
  assert.equal(clean("pay\u202emoc.evil"), "paymoc.evil", "a bidi override goes");
  assert.equal(clean("\u2066x\u2069"), "x", "isolates go");
  assert.equal(clean("zero\u200bwidth\ufeff"), "zerowidth");
  assert.equal(clean("c1\u009bcontrol"), "c1control");
  assert.equal(clean("soft\u00adhyphen"), "softhyphen");
});

test("clean takes anything and gives a string", () => {
  assert.equal(clean(undefined), "");
  assert.equal(clean(null), "");
  assert.equal(clean(0), "");
  assert.equal(clean(42), "42");
  assert.equal(clean("Pay 12 €"), "Pay 12 €");
});

test("maskSecrets hides every occurrence of each value, in at most eight dots", () => {
  assert.equal(maskSecrets("Password hunter2 (hunter2)", ["hunter2"]), "Password ••••••• (•••••••)");
  assert.equal(maskSecrets("Card 4111111111111111", ["4111111111111111"]), "Card ••••••••");
  assert.equal(maskSecrets("nothing here", ["hunter2"]), "nothing here");
  assert.equal(maskSecrets("a", [""]), "a", "an empty value masks nothing");
  assert.equal(maskSecrets("ab", ["a", "b"]), "••", "each value in turn");
});
