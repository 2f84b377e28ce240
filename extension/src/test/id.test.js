// Unit tests for pure/id.js.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newID } from "../pure/id.js";

test("an id has the form of a version 4 UUID, from getRandomValues alone", () => {
  const saved = globalThis.crypto.randomUUID;
  try {
    // As on a plain-http page: no randomUUID.
    Object.defineProperty(globalThis.crypto, "randomUUID", { value: undefined, configurable: true });
    const fill = (b) => globalThis.crypto.getRandomValues(b);
    const id = newID(fill);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(newID(fill), id);
  } finally {
    Object.defineProperty(globalThis.crypto, "randomUUID", { value: saved, configurable: true });
  }
});

test("the same bytes give the same id", () => {
  const fill = (b) => b.fill(0xff);
  assert.equal(newID(fill), "ffffffff-ffff-4fff-bfff-ffffffffffff");
});
