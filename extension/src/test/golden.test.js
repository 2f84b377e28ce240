// The content script's messages against the protocol's golden JSON in
// bridge/protocol/testdata: the whole script runs on a fake frame, answers
// the worker's requests and sends its events, and every node, report,
// result and event it makes carries the golden messages' fields with their
// types (and the golden nodes' fields all occur), so a field renamed on one
// side only fails here. Imports the entry content.js and the fake DOM.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, test } from "node:test";
import { h, install, page } from "./fakedom.js";

const golden = (f) => JSON.parse(readFileSync(new URL("../../../bridge/protocol/testdata/" + f, import.meta.url), "utf8"));

// The type of a JSON value, as the shape test compares them.
const kind = (v) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);

// shape collects, over every value given, each field's kinds: {field: Set}.
function shape(values) {
  const out = {};
  for (const v of values) for (const [k, x] of Object.entries(v)) (out[k] = out[k] || new Set()).add(kind(x));
  return out;
}

// nodes lists a tree's nodes, depth first.
function nodes(n, out = []) {
  out.push(n);
  for (const c of n.children || []) nodes(c, out);
  return out;
}

// sameFields fails unless got has the fields of the golden values want (one
// or a list of them), but for the fields a golden message leaves out, each
// of the kind given in extra; each field of the kind the golden value has.
function sameFields(got, want, extra = {}, what = "") {
  const g = shape([got]), w = shape([want].flat());
  for (const [k, kinds] of Object.entries(g)) {
    const allowed = w[k] || (extra[k] && new Set([extra[k]]));
    assert.ok(allowed, `${what}: field ${k} is in no golden message`);
    for (const t of kinds) assert.ok(allowed.has(t), `${what}: field ${k} is ${t}, golden ${[...allowed]}`);
  }
  for (const k of Object.keys(w)) if (!(k in extra)) assert.ok(k in g, `${what}: no field ${k}`);
}

// The frame: the golden snapshot's top frame, as a page, plus the kinds of
// element its child frame shows, so that every field a node can carry occurs.
const child = { name: "the pay frame's window" };
const el = {};
const doc = page(
  "Inbox (3)",
  (el.heading = h("h1", {}, { box: { x: 16, y: 8, width: 120, height: 32 } }, "Inbox")),
  (el.password = h("input", { type: "password", "aria-label": "Password" }, { box: { x: 16, y: 60, width: 240, height: 28 }, value: "hunter2" })),
  (el.signIn = h("button", { id: "go" }, { box: { x: 16, y: 100, width: 88, height: 32.5 } }, "Sign in")),
  (el.remember = h("input", { type: "checkbox", "aria-label": "Remember me" }, { box: { x: 120, y: 104, width: 16, height: 16 }, indeterminate: true, disabled: true })),
  '- button "Pay" [ref=e2]',
  (el.frame = h(
    "iframe",
    { title: "Payment", src: "https://pay.example.org/widget" },
    {
      box: { x: 16, y: 150, width: 402, height: 202 },
      style: { borderLeftWidth: "1px", borderTopWidth: "1px", paddingLeft: "0px", paddingTop: "0px" },
      clientWidth: 400,
      clientHeight: 200,
      contentWindow: child,
      src: "https://pay.example.org/widget",
    }
  )),
  h(
    "div",
    {},
    {},
    (el.country = h(
      "select",
      { "aria-label": "Country", "aria-expanded": "false" },
      { box: { x: 8, y: 8, width: 200, height: 24 } },
      (el.norway = h("option", {}, { selected: true }, "Norway"))
    )),
    (el.pay = h("div", { role: "button", "aria-pressed": "false", "aria-label": "Pay 12 €" }, { box: { x: 8, y: 40, width: 100, height: 30 } })),
    (el.terms = h("a", { href: "/terms" }, { box: { x: 8, y: 80, width: 40, height: 16 }, href: "https://pay.example.org/terms" }, "Terms")),
    (el.card = h(
      "input",
      { autocomplete: "cc-number", placeholder: "1234 5678 9012 3456", "aria-label": "Card number" },
      { box: { x: 8, y: 110, width: 200, height: 24 }, value: "4111111111111111" }
    )),
    (el.save = h("div", { role: "option", "aria-selected": "true" }, { box: { x: 8, y: 140, width: 100, height: 20 } }, "Save card")),
    (el.box = h(
      "div",
      {},
      { box: { x: 8, y: 166, width: 200, height: 30 }, style: { overflowY: "auto" }, scrollTop: 40, scrollHeight: 190, clientHeight: 30, clientWidth: 200, scrollWidth: 200 },
      "Terms of sale",
      (el.buy = h("button", {}, { box: { x: 8, y: 300, width: 80, height: 24 } }, "Buy"))
    )),
    (el.more = h("div", {}, { box: { x: 8, y: 170, width: 60, height: 20 }, style: { cursor: "pointer" } }, "More"))
  )
);
el.country.selectedOptions = [el.norway];
doc.documentElement.clientWidth = 843;
doc.documentElement.clientHeight = 487;
doc.activeElement = el.password;
let sw;
let first;

before(async () => {
  sw = install(doc, { frames: [child] });
  await import("../content.js");
  first = sw.ask({ type: "snapshot" });
});

test("the snapshot report has the golden frame's fields", () => {
  const frames = golden("snapshot_result.json").result.frames;
  const want = frames[0];
  const report = first.result;
  // The worker adds frame and parent; the app decodes tree into root; churn
  // comes only after a settle on a page that churned.
  sameFields(report, frames, { tree: "string", version: "number", same: "boolean", took: "number", frame: "number", parent: "number", root: "object", churn: "object" }, "report");
  sameFields(report.viewport, want.viewport, {}, "viewport");
  sameFields(report.window, want.window, {}, "window");
  assert.deepEqual(report.viewport, want.viewport, "the fake window has the golden's metrics");
  assert.deepEqual(report.window, want.window);
  assert.equal(report.url, "https://mail.example.com/inbox");
  assert.equal(report.origin, want.origin);
  assert.equal(report.index, -1);
  assert.equal(report.history, want.history);
  assert.equal(report.same, false);
  assert.equal(report.truncated, false);
  assert.match(report.doc, /^[0-9a-f-]{36}$/);
});

test("every node has the golden nodes' fields and kinds, and every golden field occurs", () => {
  const frames = golden("snapshot_result.json").result.frames;
  const want = shape(frames.flatMap((f) => nodes(f.root)));
  const root = JSON.parse(first.result.tree);
  const got = shape(nodes(root));
  for (const [k, kinds] of Object.entries(got)) {
    assert.ok(want[k], `nodes carry ${k}, which no golden node has`);
    for (const t of kinds) assert.ok(want[k].has(t), `${k} is ${t}, golden ${[...want[k]]}`);
  }
  for (const k of Object.keys(want)) assert.ok(got[k], `no node carries ${k}`);
  for (const box of nodes(root).filter((n) => n.box)) assert.deepEqual(Object.keys(box.box), ["x", "y", "w", "h"]);
});

test("the top frame's nodes are the golden's, but for what a page can show", () => {
  const want = golden("snapshot_result.json").result.frames[0].root;
  const root = JSON.parse(first.result.tree);
  assert.equal(root.role, "document");
  assert.equal(root.name, want.name);
  // The golden's button has a pointer; the extension marks a pointer only
  // on an element that has no role. Ids count from the document's first.
  const top = root.children.slice(0, want.children.length);
  const expect = want.children.map((n) => {
    const { pointer, ...rest } = n;
    return rest.id ? { ...rest, id: rest.id - want.children[0].id + 1 } : rest;
  });
  assert.deepEqual(top, expect);
});

test("the second frame's kinds of node, as a page shows them", () => {
  const root = JSON.parse(first.result.tree);
  const rest = root.children.slice(6);
  const byRole = Object.fromEntries(rest.map((n) => [n.role === "generic" ? "generic" : n.name, n]));
  assert.equal(byRole.Country.role, "combobox");
  assert.equal(byRole.Country.value, "Norway");
  assert.equal(byRole.Country.expanded, "false");
  assert.equal(byRole["Pay 12 €"].pressed, "false");
  assert.equal(byRole.Terms.url, "https://pay.example.org/terms");
  assert.equal(byRole["Card number"].secret, true);
  assert.equal(byRole["Card number"].placeholder, "1234 5678 9012 3456");
  assert.equal(byRole["Save card"].selected, true);
  assert.equal(byRole.generic.pointer, true);
  assert.deepEqual(byRole.generic.children, [{ role: "text", text: "More" }]);
  assert.ok(!JSON.stringify(root).includes("hunter2") && !JSON.stringify(root).includes("4111"), "no secret value is sent");
});

test("a repeat snapshot keeps every ref and says same when the app holds the tree", () => {
  const r = first.result;
  const again = sw.ask({ type: "snapshot", known: r.doc + ":" + r.version }).result;
  assert.equal(again.same, true);
  assert.equal(again.tree, undefined);
  assert.equal(again.version, r.version);
  const full = sw.ask({ type: "snapshot" }).result;
  assert.equal(full.tree, r.tree, "the same page gives the same tree");
  assert.equal(full.version, r.version, "and the same version");
});

test("resolve answers with the golden result's fields", () => {
  const want = golden("resolve_result.json").result;
  const r = first.result;
  doc.hit = el.signIn;
  const got = sw.ask({ type: "resolve", doc: r.doc, epoch: r.epoch, id: 3, role: "button", name: "Sign in" });
  assert.ok(got.result, JSON.stringify(got));
  // The worker adds topBox and zoom; it reads secret and index.
  sameFields(got.result, want, { secret: "boolean", index: "number", topBox: "object", zoom: "number", motion: "object" }, "resolve");
  assert.deepEqual(got.result.box, { x: 16, y: 100, w: 88, h: 32.5 });
  assert.deepEqual(got.result.point, { x: 60, y: 116.25 });
  assert.equal(got.result.editable, false);
  assert.equal(got.result.secret, false);
  assert.equal(got.result.origin, "https://mail.example.com");
  doc.hit = el.password;
  const typed = sw.ask({ type: "resolve", doc: r.doc, epoch: r.epoch, id: 2, role: "textbox", name: "Password" });
  assert.equal(typed.result.secret, true);
  assert.equal(typed.result.editable, true);
});

test("resolve refuses with the protocol's codes and the golden error's fields", () => {
  const want = golden("error_response.json").error;
  const wantChanged = golden("changed_error_response.json").error;
  const r = first.result;
  const ask = (p) => sw.ask({ type: "resolve", doc: r.doc, epoch: r.epoch, id: 3, role: "button", name: "Sign in", ...p });
  doc.hit = el.signIn;
  const cases = [
    [{ doc: "d-other" }, "stale_ref"],
    [{ epoch: r.epoch + 1 }, "stale_ref"],
    [{ id: 999 }, "stale_ref"],
    [{ name: "Delete everything" }, "changed"],
    [{ id: 4, role: "checkbox", name: "Remember me" }, "disabled"],
  ];
  for (const [p, code] of cases) {
    const got = ask(p);
    assert.ok(got.error, JSON.stringify(p));
    sameFields(got.error, code === "changed" ? wantChanged : want, {}, "error");
    assert.equal(got.error.code, code, JSON.stringify(p));
    if (code === "changed") {
      // What the element is now, under the id a snapshot names it by.
      assert.deepEqual(got.error.now, { id: 3, role: "button", name: "Sign in" });
    }
  }
  doc.hit = el.heading;
  assert.equal(ask({}).error.code, "obscured");
  assert.match(ask({}).error.message, /something else \(h1\)/);
  doc.hit = el.signIn;
  el.signIn.rect.y = 600;
  assert.equal(ask({}).error.code, "not_visible");
  assert.equal(ask({}).error.now, undefined, "the page cannot scroll: nothing to reach it by");
  el.signIn.rect.y = 100;
  el.signIn.childNodes[0].nodeValue = "Delete everything";
  assert.match(ask({}).error.message, /it is now button "Delete everything"/);
  el.signIn.childNodes[0].nodeValue = "Sign in";
  assert.equal(sw.ask({ type: "nonsense" }).error.code, "unknown_method");
});

test("a box that scrolls is a node with a ref and where it stands", () => {
  const want = golden("snapshot_result.json").result.frames[1].root.children.find((n) => n.scroll);
  const root = JSON.parse(first.result.tree);
  const got = nodes(root).find((n) => n.scroll);
  assert.ok(got, "no node for the box");
  assert.equal(got.role, "generic");
  assert.ok(got.id > 0, "the box has a ref");
  assert.deepEqual(Object.keys(got.scroll), Object.keys(want.scroll));
  assert.deepEqual(got.scroll, { x: 0, y: 40, maxX: 0, maxY: 160 });
});

test("resolve says how to bring an element scrolled out of its box into view", () => {
  const want = golden("reach_error_response.json").error;
  const r = first.result;
  const root = JSON.parse(first.result.tree);
  const buy = nodes(root).find((n) => n.name === "Buy");
  // The wheel over the box's middle scrolls the box.
  doc.hit = (x, y) => (y >= 166 && y < 196 ? el.box : el.heading);
  const got = sw.ask({ type: "resolve", doc: r.doc, epoch: r.epoch, id: buy.id, role: "button", name: "Buy" });
  assert.ok(got.error, JSON.stringify(got));
  sameFields(got.error, want, {}, "error");
  sameFields(got.error.now, want.now, { motion: "object" }, "now");
  sameFields(got.error.now.reach, want.now.reach, { page: "boolean" }, "reach");
  assert.equal(got.error.code, "not_visible");
  const reach = got.error.now.reach;
  assert.deepEqual(reach.point, { x: 108, y: 181 }, "the middle of the box");
  assert.equal(reach.dx, 0);
  assert.equal(reach.dy, 120, "the button's middle to the box's, held to what the box can still scroll");
  assert.deepEqual(reach.scroll, { x: 0, y: 40, maxX: 0, maxY: 160 });
  assert.equal(reach.page, undefined);
  // Nowhere to turn the wheel but over something else that scrolls.
  doc.hit = el.heading;
  assert.doesNotMatch(sw.ask({ type: "resolve", doc: r.doc, epoch: r.epoch, id: buy.id, role: "button", name: "Buy" }).error.message, /scroll it into view first/);
});

test("frameHit maps a point in the child frame to this one", () => {
  const r = first.result;
  doc.hit = el.frame;
  const got = sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 58, y: 55 });
  assert.deepEqual(got.result.point, { x: 75, y: 206 }, "the golden resolve's point");
  assert.deepEqual(Object.keys(got.result), ["point", "viewport", "window", "origin", "index"]);
  assert.equal(sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 401, y: 5 }).error.code, "not_visible");
  assert.equal(sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 1, x: 5, y: 5 }).error.code, "stale_ref");
  doc.hit = el.heading;
  assert.equal(sw.ask({ type: "frameHit", doc: r.doc, epoch: r.epoch, index: 0, x: 5, y: 5 }).error.code, "obscured");
});

test("metrics answers with the frame's viewport, window and generation", () => {
  const got = sw.ask({ type: "metrics" }).result;
  assert.deepEqual(Object.keys(got), ["viewport", "window", "origin", "doc", "epoch", "index"]);
  assert.equal(got.doc, first.result.doc);
});

test("the navigated and calibration events carry the golden params, but for what the worker adds", async () => {
  const nav = golden("navigated_event.json").params;
  const cal = golden("calibration_event.json").params;
  const byWorker = { tab: "number", frame: "number" };
  const sent = sw.sent.find((m) => m.type === "navigated");
  assert.equal(sent.kind, "document");
  const { type, ...params } = sent;
  sameFields(params, nav, byWorker, "navigated");
  // A frame takes one calibration each 250 ms, counted from its start.
  while (performance.now() < 300) await new Promise((r) => setTimeout(r, 20));
  sw.fire("pointermove", { isTrusted: true, isPrimary: true, screenX: 412, screenY: 388, clientX: 274.6666564941406, clientY: 186.6666717529297 });
  const c = sw.sent.find((m) => m.type === "calibration");
  assert.ok(c, "no calibration sent");
  const { type: _, ...cp } = c;
  sameFields(cp, cal, byWorker, "calibration");
  sameFields(cp.window, cal.window, {}, "calibration window");
  for (const k of ["screenX", "screenY", "clientX", "clientY", "window"]) assert.deepEqual(cp[k], cal[k], k);
  sw.fire("pointermove", { isTrusted: false, isPrimary: true, screenX: 1, screenY: 1, clientX: 1, clientY: 1 });
  assert.equal(sw.sent.filter((m) => m.type === "calibration").length, 1, "an untrusted event calibrates nothing");
});

test("a same-document navigation bumps the epoch and forgets every ref", () => {
  const r = first.result;
  location.href = "https://mail.example.com/inbox#message-7";
  sw.fire("hashchange", {});
  const nav = sw.sent.filter((m) => m.type === "navigated").at(-1);
  assert.deepEqual(nav, { type: "navigated", url: location.href, doc: r.doc, epoch: r.epoch + 1, kind: "hash" });
  doc.hit = el.signIn;
  const stale = sw.ask({ type: "resolve", doc: r.doc, epoch: r.epoch + 1, id: 3, role: "button", name: "Sign in" });
  assert.equal(stale.error.code, "stale_ref", "the old id names nothing now");
  const next = JSON.parse(sw.ask({ type: "snapshot" }).result.tree);
  const ids = nodes(next).filter((n) => n.id).map((n) => n.id);
  assert.ok(Math.min(...ids) > Math.max(...nodes(JSON.parse(r.tree)).filter((n) => n.id).map((n) => n.id)), "ids are never reused");
});

test("the script starts once however often it is injected", async () => {
  const listening = sw.ports.length;
  await import("../content.js?again");
  assert.equal(sw.ports.length, listening, "a second instance opened a port");
  assert.equal(globalThis.__reinsFrame.doc, first.result.doc);
});
