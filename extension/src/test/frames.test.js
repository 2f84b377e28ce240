// Frames under CSS transforms: a scaled frame's content box and scale, a
// turned frame named and refused, points mapped in the child's own pixels,
// and the worker's resolve carrying the scales of every hop up to the top
// box. The pure helpers in pure/geometry.js, the whole content script on a
// fake frame, and the worker's handler table with a stand-in chrome.
// Imports pure/geometry.js, the entry content.js, the fake DOM and
// ../worker/requests.js.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { frameScale, scaledContent, turnOf } from "../pure/geometry.js";
import { h, install, page } from "./fakedom.js";

// A frame element with a 1px border, padding 4px left and top and 6px right
// and bottom, laid out 402 × 202 (client 400 × 200), at (10, 20).
const CS = { borderLeftWidth: "1px", borderTopWidth: "1px", paddingLeft: "4px", paddingTop: "4px", paddingRight: "6px", paddingBottom: "6px" };

test("a frame scaled down maps its border, padding and content by its scale", () => {
  const g = scaledContent({ x: 10, y: 20, width: 301.5, height: 151.5 }, CS, 402, 202, 400, 200);
  assert.deepEqual(g.scale, { x: 0.75, y: 0.75 });
  assert.deepEqual(g.content, { x: 13.75, y: 23.75, w: 292.5, h: 142.5 });
  assert.deepEqual(g.size, { w: 390, h: 190 }, "the child's own pixels");
});

test("a frame scaled up, unevenly, maps each axis by its own scale", () => {
  const g = scaledContent({ x: 10, y: 20, width: 603, height: 202 }, CS, 402, 202, 400, 200);
  assert.deepEqual(g.scale, { x: 1.5, y: 1 });
  assert.deepEqual(g.content, { x: 17.5, y: 25, w: 585, h: 190 });
});

test("a frame's layout size is its computed one, which is not rounded", () => {
  const cs = { ...CS, width: "390.5px", height: "190px", borderRightWidth: "1px", borderBottomWidth: "1px" };
  // 402.5 × 202 laid out, where offsetWidth says 403.
  assert.deepEqual(scaledContent({ x: 0, y: 0, width: 201.25, height: 101 }, cs, 403, 202, 400, 200).scale, { x: 0.5, y: 0.5 });
  assert.deepEqual(scaledContent({ x: 0, y: 0, width: 201.25, height: 101 }, { ...cs, boxSizing: "border-box", width: "402.5px", height: "202px" }, 403, 202, 400, 200).scale, { x: 0.5, y: 0.5 });
});

test("a frame's scale is rounded, snapped to 1 when nearly 1, and 1 without a layout size", () => {
  assert.deepEqual(frameScale({ width: 402.2, height: 201.9 }, 402, 202), { x: 1, y: 1 });
  assert.deepEqual(frameScale({ width: 134, height: 101 }, 402, 202), { x: 0.3333, y: 0.5 });
  assert.deepEqual(frameScale({ width: 100, height: 0 }, 0, 50), { x: 1, y: 1 });
});

// A DOMMatrix's fields for a 2-D matrix(a, b, c, d, e, f).
const m2 = (a, b, c, d) => ({ is2D: true, a, b, c, d, m11: a, m12: b, m21: c, m22: d, m13: 0, m14: 0, m23: 0, m24: 0, m31: 0, m32: 0, m34: 0, m44: 1 });

test("a rotation, a skew, a 3-D turn or a mirror turns a frame; moving and scaling do not", () => {
  const r = Math.SQRT1_2;
  assert.equal(turnOf({ m: m2(r, r, -r, r) }), "rotated or skewed");
  assert.equal(turnOf({ m: m2(1, 0, 0.5, 1) }), "rotated or skewed");
  assert.equal(turnOf({ m: m2(-1, 0, 0, 1) }), "mirrored");
  assert.equal(turnOf({ m: m2(-1, 1e-9, 0, -1) }), "mirrored", "a half turn");
  assert.equal(turnOf({ m: m2(2, 0, 0, 0.5) }), "");
  assert.equal(turnOf({ m: null, rotate: "none", scale: "none" }), "");
  assert.equal(turnOf({ m: { ...m2(r, 0, 0, 1), is2D: false, m13: -r, m31: r } }), "under a 3-D transform", "rotateY");
  assert.equal(turnOf({ m: { ...m2(1, 0, 0, 1), is2D: false, m34: -0.002 } }), "under a 3-D transform", "perspective");
  assert.equal(turnOf({ m: { ...m2(1, 0, 0, 1), is2D: false, m43: 5 } }), "", "translateZ lifts a layer and turns nothing");
  assert.equal(turnOf({ m: null, rotate: "45deg" }), "rotated or skewed");
  assert.equal(turnOf({ m: null, rotate: "0 0 1 0deg" }), "");
  assert.equal(turnOf({ m: null, rotate: "x 0.5turn" }), "rotated or skewed");
  assert.equal(turnOf({ m: null, scale: "-1 1" }), "mirrored");
  assert.equal(turnOf({ m: null, scale: "2 0.5" }), "");
});

// The page: a frame scaled to 0.75 inside a stage that may be turned.
const child = { name: "the scaled frame's window" };
const el = {};
const doc = page(
  "Stage",
  (el.stage = h(
    "div",
    { id: "stage" },
    { box: { x: 0, y: 0, width: 800, height: 400 } },
    (el.frame = h(
      "iframe",
      { title: "Scaled", src: "https://widget.example.org/" },
      { box: { x: 10, y: 20, width: 301.5, height: 151.5 }, style: CS, offsetWidth: 402, offsetHeight: 202, clientWidth: 400, clientHeight: 200, contentWindow: child, src: "https://widget.example.org/" }
    ))
  ))
);
let sw;
let first;

before(async () => {
  sw = install(doc, { frames: [child] });
  // Enough of DOMMatrixReadOnly for the 2-D matrix() a computed style gives.
  globalThis.DOMMatrixReadOnly = class {
    constructor(text) {
      const v = /^matrix\(([^)]*)\)$/.exec(text);
      if (!v) throw new SyntaxError("fake DOMMatrixReadOnly: " + text);
      Object.assign(this, m2(...v[1].split(",").map(Number)));
    }
  };
  await import("../content.js");
  first = sw.ask({ type: "snapshot" });
});

const frameNode = (tree) => {
  const walk = (n) => (n.frame ? n : (n.children || []).map(walk).find(Boolean));
  return walk(JSON.parse(tree));
};

test("a scaled frame's node carries its scale, and an unturned one no reason", () => {
  const f = frameNode(first.result.tree).frame;
  assert.deepEqual(f, { content: { x: 13.75, y: 23.75, w: 292.5, h: 142.5 }, scale: { x: 0.75, y: 0.75 }, src: "https://widget.example.org/", index: 0 });
});

test("frameHit maps a point in the child's own pixels by the frame's scale", () => {
  const r = first.result;
  doc.hit = el.frame;
  const got = sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 100, y: 50 });
  assert.deepEqual(got.result.point, { x: 88.75, y: 61.25 });
  assert.deepEqual(got.result.scale, { x: 0.75, y: 0.75 });
  assert.ok(sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 300, y: 150 }).result, "inside 390 × 190, though past 292.5 × 142.5");
  assert.equal(sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 391, y: 5 }).error.code, "not_visible");
});

test("a frame inside a rotated box is named in its node and refused as unmapped", () => {
  const r = first.result;
  doc.hit = el.frame;
  el.stage.computed.transform = "matrix(0.7071, 0.7071, -0.7071, 0.7071, 0, 0)";
  try {
    const got = sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 100, y: 50 });
    assert.equal(got.error.code, "unmapped");
    assert.match(got.error.message, /rotated or skewed \(transform on div#stage\).*; nothing was done$/);
    const f = frameNode(sw.ask({ type: "snapshot" }).result.tree).frame;
    assert.match(f.turned, /^the frame is rotated or skewed \(transform on div#stage\); Reins does not guess where its content shows$/);
  } finally {
    el.stage.computed.transform = "none";
  }
  assert.ok(sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 100, y: 50 }).result, "an identity transform turns nothing");
});

// The worker's handler table (worker/requests.js) with a stand-in chrome:
// it answers every call with an empty promise, but for the frames' answers
// a test gives through tabs.sendMessage. The handlers read chrome when
// called, so each load gives the module a chrome of its own.
async function loadWorker(frameAnswer) {
  const callable = () => {
    const f = new Proxy(function () {}, {
      get: (_, k) => (k === "then" ? undefined : callable()),
      apply: () => Promise.resolve([]),
    });
    return f;
  };
  const chrome = new Proxy(
    {},
    {
      get: (_, area) =>
        area === "tabs"
          ? new Proxy({ sendMessage: async (tab, msg, o) => frameAnswer(o.frameId, msg), getZoom: async () => 1.25 }, { get: (t, k) => (k in t ? t[k] : callable()) })
          : callable(),
    }
  );
  const { HANDLERS } = await import("../../worker/requests.js");
  const call = async (p) => {
    const was = globalThis.chrome;
    globalThis.chrome = chrome;
    try {
      return await HANDLERS.resolve(p);
    } finally {
      globalThis.chrome = was;
    }
  };
  // Answers as the wire carries them.
  return { resolve: async (p) => JSON.parse(JSON.stringify(await call(p))) };
}

test("the worker's resolve scales the element's box by every frame on the way up", async () => {
  const HANDLERS = await loadWorker((frame, msg) => {
    if (frame === 2) return { result: { box: { x: 10, y: 10, w: 20, h: 10 }, point: { x: 20, y: 15 }, index: 0, secret: false, editable: false, origin: "https://c.example" } };
    if (frame === 1) return { result: { point: { x: 110, y: 57.5 }, scale: { x: 0.5, y: 0.5 }, index: 0 } };
    return { result: { point: { x: 300, y: 200 }, scale: { x: 1.5, y: 1.5 }, index: -1, viewport: {}, window: {} } };
  });
  const hop = (frame) => ({ frame, index: 0, doc: "d", epoch: 1 });
  const got = await HANDLERS.resolve({ tab: 7, frame: 2, doc: "d", epoch: 1, id: 3, role: "button", name: "Go", path: [hop(1), hop(0)] });
  assert.deepEqual(got.scale, { x: 0.75, y: 0.75 });
  assert.deepEqual(got.point, { x: 300, y: 200 });
  // The point is the box's centre, so the box spreads 0.75 of its size around it.
  assert.deepEqual(got.topBox, { x: 292.5, y: 196.25, w: 15, h: 7.5 });
  assert.deepEqual(got.box, { x: 10, y: 10, w: 20, h: 10 });
  assert.equal(got.zoom, 1.25);

  const flat = await loadWorker((frame) =>
    frame === 1 ? { result: { box: { x: 10, y: 10, w: 20, h: 10 }, point: { x: 20, y: 15 }, index: 0 } } : { result: { point: { x: 120, y: 65 }, index: -1 } }
  );
  const plain = await flat.resolve({ tab: 7, frame: 1, doc: "d", epoch: 1, id: 3, path: [hop(0)] });
  assert.equal(plain.scale, undefined, "no scale is sent for 1");
  assert.deepEqual(plain.topBox, { x: 110, y: 60, w: 20, h: 10 });
});
