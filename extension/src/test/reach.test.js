// Resolve on elements scrolled out of view: which box it names to scroll,
// which way and how far, and where to turn the wheel. The whole script runs
// on a fake frame whose page is taller than its viewport (843 × 487,
// scrolled 120.5 px of 2513). Imports the entry content.js and the fake DOM.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { h, install, page } from "./fakedom.js";

const el = {};
const boxProps = (y, scrollTop) => ({
  box: { x: 8, y, width: 300, height: 100 },
  style: { overflowY: "auto" },
  scrollTop,
  scrollHeight: 600,
  clientHeight: 100,
  clientWidth: 300,
  scrollWidth: 300,
});
const doc = page(
  "Long page",
  // A wrapper that cuts off without scrolling, taller than the viewport:
  // what it holds below the fold is the page's to scroll.
  (el.wrap = h(
    "div",
    {},
    { box: { x: 0, y: 0, width: 843, height: 2600 }, style: { overflowX: "hidden", overflowY: "hidden" }, clientWidth: 843, clientHeight: 2600 },
    (el.below = h("button", {}, { box: { x: 8, y: 1500, width: 80, height: 30 } }, "Below")),
    // A box in view, its button scrolled away inside it.
    (el.box = h(
      "div",
      {},
      boxProps(100, 0),
      // Half shown by its box.
      (el.half = h("button", {}, { box: { x: 16, y: 180, width: 80, height: 40 } }, "Half")),
      (el.inbox = h("button", {}, { box: { x: 16, y: 400, width: 80, height: 30 } }, "In box"))
    )),
    // A box itself below the fold.
    (el.far = h("div", {}, boxProps(1800, 0), (el.infar = h("button", {}, { box: { x: 16, y: 2100, width: 80, height: 30 } }, "In far box")))),
    // A box that cuts off and does not scroll.
    (el.cut = h(
      "div",
      {},
      { box: { x: 8, y: 250, width: 300, height: 60 }, style: { overflowY: "hidden" }, clientWidth: 300, clientHeight: 60 },
      (el.incut = h("button", {}, { box: { x: 16, y: 350, width: 80, height: 30 } }, "Cut off"))
    ))
  ))
);
doc.documentElement.clientWidth = 843;
doc.documentElement.clientHeight = 487;
doc.documentElement.scrollHeight = 3000;
doc.documentElement.scrollWidth = 843;
let sw, snap, ids;

before(async () => {
  sw = install(doc);
  await import("../content.js");
  snap = sw.ask({ type: "snapshot" }).result;
  ids = {};
  const walk = (n) => {
    if (n.name) ids[n.name] = n.id;
    for (const c of n.children || []) walk(c);
  };
  walk(JSON.parse(snap.tree));
});

const resolve = (name) => sw.ask({ type: "resolve", doc: snap.doc, epoch: snap.epoch, id: ids[name], role: "button", name });

// hitAt answers the fake's elementFromPoint: the box over its area, else the wrapper.
function hitAt(x, y) {
  for (const b of [el.box, el.far, el.cut]) {
    const r = b.rect;
    if (x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height) return b;
  }
  return el.wrap;
}

test("below the fold inside a wrapper that cuts off, the page is what scrolls", () => {
  doc.hit = hitAt;
  const got = resolve("Below");
  assert.equal(got.error.code, "not_visible");
  const r = got.error.now.reach;
  assert.equal(r.page, true);
  assert.equal(r.dy, 1500 + 15 - 487 / 2);
  assert.deepEqual(r.scroll, { x: 0, y: 120.5, maxX: 0, maxY: 2513 });
  assert.equal(hitAt(r.point.x, r.point.y), el.wrap, "the wheel goes where nothing else scrolls");
});

test("a button scrolled away inside a box in view: the box scrolls, the wheel over it", () => {
  doc.hit = hitAt;
  const r = resolve("In box").error.now.reach;
  assert.equal(r.page, undefined);
  assert.equal(r.dy, 400 + 15 - (100 + 50));
  assert.deepEqual(r.point, { x: 158, y: 150 });
});

test("a box below the fold is brought into view first", () => {
  doc.hit = hitAt;
  const r = resolve("In far box").error.now.reach;
  assert.equal(r.page, true);
  assert.equal(r.dy, 1800 + 50 - 487 / 2);
});

test("a box that cuts off and does not scroll leaves nothing to reach by", () => {
  doc.hit = hitAt;
  const got = resolve("Cut off");
  assert.equal(got.error.code, "not_visible");
  assert.equal(got.error.now, undefined);
  assert.match(got.error.message, /does not scroll/);
});

test("an element half shown by its box is aimed at the middle of what shows", () => {
  doc.hit = (x, y) => (y >= 180 && y < 200 ? el.half : el.box);
  const got = resolve("Half");
  assert.ok(got.result, JSON.stringify(got));
  assert.deepEqual(got.result.point, { x: 56, y: 190 });
});

test("resolve never scrolls anything", () => {
  assert.equal(el.box.scrollTop, 0);
  assert.equal(scrollY, 120.5);
});
