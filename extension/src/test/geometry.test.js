// Unit tests for pure/geometry.js. Imports pure modules only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { contentBox, inViewport, insideContent, refable, round2, roundBox, visibleCentre } from "../pure/geometry.js";

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
