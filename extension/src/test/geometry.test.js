// Unit tests for pure/geometry.js. Imports pure modules only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clipTo, contentBox, inViewport, insideContent, refable, round2, roundBox, scrollBy, visibleCentre } from "../pure/geometry.js";

test("boxes are rounded to hundredths of a pixel", () => {
  assert.equal(round2(32.456), 32.46);
  assert.deepEqual(roundBox({ x: 16.001, y: 8.333333, width: 120.125, height: 32.5, top: 1 }), { x: 16, y: 8.33, w: 120.13, h: 32.5 });
});

test("a frame's content box lies inside its border and padding", () => {
  const cs = { borderLeftWidth: "1px", borderTopWidth: "2px", paddingLeft: "3px", paddingTop: "4px", paddingRight: "5px", paddingBottom: "6px" };
  assert.deepEqual(contentBox({ x: 16, y: 150 }, cs, 400, 200), { x: 20, y: 156, w: 392, h: 190 });
  assert.deepEqual(contentBox({ x: 16, y: 150 }, { borderLeftWidth: "", paddingLeft: "auto" }, 400, 200), { x: 16, y: 150, w: 400, h: 200 });
});

test("only a visible box that takes pointer events may have a ref", () => {
  const shown = { visibility: "visible", pointerEvents: "auto" };
  assert.equal(refable(shown, { w: 10, h: 10 }), true);
  assert.equal(refable(shown, { w: 0, h: 10 }), false);
  assert.equal(refable(shown, { w: 10, h: -1 }), false);
  assert.equal(refable({ ...shown, visibility: "hidden" }, { w: 10, h: 10 }), false);
  assert.equal(refable({ ...shown, pointerEvents: "none" }, { w: 10, h: 10 }), false);
});

test("an act aims at the centre of what shows of the box", () => {
  assert.deepEqual(visibleCentre({ x: 8, y: 40, w: 100, h: 30 }, 843, 487), { x: 58, y: 55 });
  assert.deepEqual(visibleCentre({ x: -50, y: 470, w: 100, h: 30 }, 843, 487), { x: 25, y: 478.5 }, "clipped by the viewport");
  assert.equal(visibleCentre({ x: 10, y: 486.5, w: 100, h: 30 }, 843, 487), null, "less than a pixel shows");
  assert.equal(visibleCentre({ x: 900, y: 10, w: 100, h: 30 }, 843, 487), null, "out of view");
});

test("a point is inside a frame's content (edges included) and a viewport (far edges excluded)", () => {
  const c = { x: 17, y: 151, w: 400, h: 200 };
  assert.equal(insideContent(c, 0, 0), true);
  assert.equal(insideContent(c, 400, 200), true);
  assert.equal(insideContent(c, -0.5, 10), false);
  assert.equal(insideContent(c, 10, 200.5), false);
  assert.equal(inViewport({ x: 0, y: 0 }, 843, 487), true);
  assert.equal(inViewport({ x: 843, y: 10 }, 843, 487), false);
  assert.equal(inViewport({ x: 10, y: -1 }, 843, 487), false);
});

test("a box clipped to another keeps what lies inside, if a pixel of it does", () => {
  assert.deepEqual(clipTo({ x: 8, y: 300, w: 80, h: 24 }, { x: 0, y: 290, w: 100, h: 30 }), { x: 8, y: 300, w: 80, h: 20 });
  assert.equal(clipTo({ x: 8, y: 300, w: 80, h: 24 }, { x: 0, y: 0, w: 100, h: 299.5 }), null);
});

test("a scroll brings the box's middle to the view's, as far as the box can go", () => {
  const view = { x: 0, y: 0, w: 800, h: 600 };
  assert.deepEqual(scrollBy({ x: 10, y: 1500, w: 100, h: 40 }, view, { x: 0, y: 0, maxX: 0, maxY: 5000 }), { dx: 0, dy: 1220 });
  assert.deepEqual(scrollBy({ x: 10, y: 1500, w: 100, h: 40 }, view, { x: 0, y: 0, maxX: 0, maxY: 1000 }), { dx: 0, dy: 1000 }, "held to what is left");
  assert.deepEqual(scrollBy({ x: 10, y: -500, w: 100, h: 40 }, view, { x: 0, y: 200, maxX: 0, maxY: 1000 }), { dx: 0, dy: -200 }, "up, to the top at most");
  assert.deepEqual(scrollBy({ x: 10, y: 1500, w: 100, h: 40 }, view, { x: 0, y: 300, maxX: 0, maxY: 0 }), { dx: 0, dy: 0 }, "never the wrong way");
  assert.deepEqual(scrollBy({ x: 10, y: 900, w: 100, h: 2000 }, view, { x: 0, y: 0, maxX: 0, maxY: 5000 }), { dx: 0, dy: 900 }, "a box taller than the view: its top to the view's");
});
