// Unit tests for pure/wire.js: entries in, wire children out. Imports pure
// modules only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { childrenOf, shownChildren } from "../pure/wire.js";

// An entry as the live tree keeps it, and a toNode that names it by role.
const entry = (role, kids = [], more = {}) => ({ role, name: "", kids, pointer: false, block: true, ...more });
const inline = (kids) => entry("", kids, { block: false });
const toNode = (e) => ({ role: e.role || "generic", ...(e.kids.length ? { children: childrenOf(e.kids, toNode) } : {}) });

test("text runs merge across lifted inline elements", () => {
  assert.deepEqual(childrenOf(["Hello ", inline(["big ", inline(["wide"])]), " world"], toNode), [{ role: "text", text: "Hello big wide world" }]);
});

test("a lifted block element breaks a run of text", () => {
  assert.deepEqual(childrenOf(["one", entry("", ["two"]), "three"], toNode), [
    { role: "text", text: "one" },
    { role: "text", text: "two" },
    { role: "text", text: "three" },
  ]);
});

test("an element with a role or a pointer stands on its own and ends the run", () => {
  assert.deepEqual(childrenOf(["Sign ", entry("button"), "in"], toNode), [
    { role: "text", text: "Sign" },
    { role: "button" },
    { role: "text", text: "in" },
  ]);
  assert.deepEqual(childrenOf([inline(["a"]), entry("", [], { pointer: true, block: false })], toNode), [{ role: "text", text: "a" }, { role: "generic" }]);
});

test("text that shows nothing makes no node, and a null node is left out", () => {
  assert.deepEqual(childrenOf(["  \n ", inline(["\u200b"])], toNode), []);
  assert.deepEqual(childrenOf([entry("button"), entry("img")], (e) => (e.role === "img" ? null : { role: e.role })), [{ role: "button" }]);
});

test("text runs are cleaned", () => {
  assert.deepEqual(childrenOf(["a\u202e\tb\n"], toNode), [{ role: "text", text: "a b" }]);
});

test("a node named from its content keeps no children that only repeat it", () => {
  const text = [{ role: "text", text: "Sign in" }];
  assert.deepEqual(shownChildren("button", "Sign in", text), []);
  assert.deepEqual(shownChildren("button", "", text), text, "an unnamed button keeps its text");
  assert.deepEqual(shownChildren("list", "Sign in", text), text, "a list is not named from its content");
  const mixed = [...text, { role: "img" }];
  assert.deepEqual(shownChildren("link", "Sign in", mixed), mixed, "children that are more than text stay");
});
