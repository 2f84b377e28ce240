// The witness (dom/witness.js) through the whole content script on a fake
// frame: a watch on an element, what the pointer is over once it arrives
// near a screen point (or that it did not), and where an act's clicks, keys
// and input landed, all from trusted events only. Imports the entry
// content.js and the fake DOM.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { h, install, page } from "./fakedom.js";

const el = {};
const doc = page(
  "Editor",
  (el.save = h("button", { id: "save" }, { box: { x: 16, y: 16, width: 80, height: 30 } }, "Save")),
  (el.overlay = h("div", { id: "overlay" }, { box: { x: 0, y: 0, width: 400, height: 300 } })),
  (el.note = h("input", { type: "text", "aria-label": "Note", id: "note" }, { box: { x: 16, y: 60, width: 200, height: 24 }, value: "my private words" })),
  (el.card = h("div", { id: "card", role: "button", "aria-label": "Card" }, { box: { x: 16, y: 100, width: 300, height: 150 } },
    (el.inner = h("iframe", { id: "inner", title: "Inner" }, { box: { x: 20, y: 110, width: 200, height: 100 } }))))
);
let sw;
let snap;

before(async () => {
  sw = install(doc);
  await import("../content.js");
  snap = sw.ask({ type: "snapshot" }).result;
});

// idOf is the ref the snapshot gave the element named name.
function idOf(name) {
  const walk = (n) => (n.name === name && n.id ? n.id : (n.children || []).map(walk).find(Boolean));
  return walk(JSON.parse(snap.tree));
}

function watch(name) {
  const got = sw.ask({ type: "watch", doc: snap.doc, epoch: snap.epoch, id: idOf(name) });
  assert.ok(got.result, JSON.stringify(got));
  assert.match(got.result.watch, /^[0-9a-f]{32}$/);
  return got.result.watch;
}

// fire sends a trusted event of type at target, at screen point (x, y).
function fire(type, target, x = 0, y = 0, more = {}) {
  sw.fire(type, { type, isTrusted: true, screenX: x, screenY: y, clientX: x, clientY: y, composedPath: () => (target ? [target] : []), target, ...more });
}

const SAVE = { on: true, role: "button", name: "Save", tag: "button#save" };
const OVERLAY = { on: false, role: "generic", tag: "div#overlay" };

test("a watch is refused for a stale ref", () => {
  assert.equal(sw.ask({ type: "watch", doc: snap.doc, epoch: snap.epoch + 1, id: idOf("Save") }).error.code, "stale_ref");
  assert.equal(sw.ask({ type: "watch", doc: snap.doc, epoch: snap.epoch, id: 9999 }).error.code, "stale_ref");
});

test("witness answers at once with the latest move near the point, and what it was over", async () => {
  const w = watch("Save");
  fire("pointermove", el.overlay, 499, 301); // on the way, near too
  fire("pointermove", el.save, 500, 300);
  fire("pointermove", el.overlay, 480, 280); // untrusted moves do not count
  sw.fire("pointermove", { type: "pointermove", isTrusted: false, screenX: 500, screenY: 300, composedPath: () => [el.overlay] });
  const got = await sw.request({ type: "witness", watch: w, x: 501, y: 299, slack: 2, within: 1000 });
  assert.deepEqual(got, { result: { seen: true, near: true, at: SAVE, x: 500, y: 300 } });
});

test("witness waits for the pointer to arrive", async () => {
  const w = watch("Save");
  const asked = sw.request({ type: "witness", watch: w, x: 200, y: 100, slack: 1, within: 2000 });
  fire("pointerover", el.save, 200.5, 100); // an iframe entered gives its parent only this
  fire("pointermove", el.overlay, 200.5, 100);
  assert.deepEqual(await asked, { result: { seen: true, near: true, at: OVERLAY, x: 200.5, y: 100 } });
});

test("witness says when the pointer never came near, with where it last was", async () => {
  const w = watch("Save");
  const start = performance.now();
  assert.deepEqual(await sw.request({ type: "witness", watch: w, x: 500, y: 300, slack: 2, within: 30 }), { result: { seen: false, near: false } });
  assert.ok(performance.now() - start >= 25, "answered before within");
  fire("pointermove", el.overlay, 10, 10);
  assert.deepEqual(await sw.request({ type: "witness", watch: w, x: 500, y: 300, slack: 2, within: 30 }), { result: { seen: true, near: false, at: OVERLAY, x: 10, y: 10 } });
});

test("effects says a click landed on another element, and ends the watch", async () => {
  const w = watch("Save");
  const asked = sw.request({ type: "effects", watch: w, kind: "click", within: 2000 });
  fire("pointerdown", el.overlay);
  fire("pointerdown", el.save); // only the first press counts
  fire("pointerup", el.overlay);
  fire("click", el.overlay);
  assert.deepEqual(await asked, { result: { down: OVERLAY, up: OVERLAY, click: OVERLAY, keys: 0, keysOn: 0, inputs: 0 } });
  assert.equal((await sw.request({ type: "witness", watch: w, x: 0, y: 0, slack: 0, within: 0 })).error.code, "stale_ref");
  assert.equal((await sw.request({ type: "effects", watch: w, kind: "click", within: 0 })).error.code, "stale_ref");
});

test("effects counts typing on the focused element once the keys stop", async () => {
  const w = watch("Note");
  doc.activeElement = el.note;
  const asked = sw.request({ type: "effects", watch: w, kind: "type", within: 3000 });
  for (let i = 0; i < 3; i++) {
    fire("keydown", el.note);
    fire("beforeinput", el.note);
    fire("input", el.note);
    await new Promise((r) => setTimeout(r, 5));
  }
  const start = performance.now();
  const got = await asked;
  assert.ok(performance.now() - start < 1000, "waited for within instead of the quiet time");
  assert.deepEqual(got, { result: { keys: 3, keysOn: 3, input: { on: true, role: "textbox", name: "Note", tag: "input#note" }, inputs: 3 } });
  assert.doesNotMatch(JSON.stringify(got), /private/, "an input's value is never sent");
  doc.activeElement = null;
});

test("asked about the focus, witness answers once it arrives in the element, or says it did not", async () => {
  const w = watch("Note");
  doc.activeElement = el.save;
  const asked = sw.request({ type: "witness", watch: w, focus: true, within: 3000 });
  const start = performance.now();
  doc.activeElement = el.note;
  fire("focusin", el.note);
  assert.deepEqual(await asked, { result: { focused: true } });
  assert.ok(performance.now() - start < 1000, "waited for within instead of the focus");
  assert.deepEqual(await sw.request({ type: "witness", watch: w, focus: true, within: 3000 }), { result: { focused: true } }, "already there: at once");
  doc.activeElement = el.save;
  assert.deepEqual(await sw.request({ type: "witness", watch: w, focus: true, within: 30 }), { result: { focused: false } });
  doc.activeElement = null;
});

test("effects notes keys that went elsewhere, a hover answers at once, and a page left cuts a wait short", async () => {
  let w = watch("Note");
  doc.activeElement = el.save;
  fire("keydown", el.save);
  fire("input", el.save);
  doc.activeElement = null;
  const got = await sw.request({ type: "effects", watch: w, kind: "type", within: 3000 });
  assert.deepEqual(got.result, { keys: 1, keysOn: 0, input: { ...SAVE, on: false }, inputs: 0 });

  w = watch("Save");
  const start = performance.now();
  assert.deepEqual(await sw.request({ type: "effects", watch: w, kind: "hover", within: 3000 }), { result: { keys: 0, keysOn: 0, inputs: 0 } });

  w = watch("Save");
  const asked = sw.request({ type: "effects", watch: w, kind: "double_click", within: 3000 });
  fire("click", el.save);
  sw.fire("pagehide", { type: "pagehide", isTrusted: true });
  assert.deepEqual(await asked, { result: { keys: 0, keysOn: 0, inputs: 0, left: true } }, "a click is not a double click");
  assert.ok(performance.now() - start < 1000, "waited for within");
});

test("an editor that cancels beforeinput to type itself still counts as input", async () => {
  const w = watch("Note");
  doc.activeElement = el.note;
  fire("keydown", el.note);
  fire("beforeinput", el.note, 0, 0, { defaultPrevented: true });
  const got = await sw.request({ type: "effects", watch: w, kind: "type", within: 3000 });
  assert.equal(got.result.inputs, 1);
  doc.activeElement = null;
});

test("a new watch ends the one before it", async () => {
  const old = watch("Save");
  const asked = sw.request({ type: "witness", watch: old, x: 0, y: 0, slack: 0, within: 3000 });
  const now = watch("Note");
  assert.equal((await asked).error.code, "stale_ref");
  await sw.request({ type: "effects", watch: now, kind: "hover", within: 0 }); // nothing left waiting
});

test("a frame inside the watched element is not the element: what lands there lands in another page", async () => {
  const w = watch("Card");
  fire("pointermove", el.inner, 60, 130);
  const got = await sw.request({ type: "witness", watch: w, x: 60, y: 130, slack: 1, within: 500 });
  assert.equal(got.result.near, true);
  assert.equal(got.result.at.on, false, JSON.stringify(got));
  assert.equal(got.result.at.tag, "iframe#inner");
});
