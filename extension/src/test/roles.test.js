// The explicit roles, checked against the ARIA role list: every role the
// tables in pure/roles.js name, and every role the content script gives an
// element of any HTML tag or input type, is an ARIA role or one of the
// wire's own (but the library's legend). Imports pure modules,
// dom/accessible.js and the fake DOM.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ARIA_ROLES, WIRE_ROLES, isWireRole } from "../pure/aria.js";
import { FRAME_ROLE, NAME_FROM_CONTENT, NO_NAME, SECTIONING_ROLES, SECTIONING_TAGS, SKIP_TAGS, TAG_ROLES, firstToken, inputRole } from "../pure/roles.js";
import { roleAsShown, roleOf } from "../dom/accessible.js";
import { h } from "./fakedom.js";

const HTML_TAGS = `a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption
  cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure
  footer form frame h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link
  main map mark math menu meta meter nav noscript object ol optgroup option output p picture pre progress q rp
  rt ruby s samp script search section select slot small source span strong style sub summary sup svg table
  tbody td template textarea tfoot th thead time title tr track u ul var video wbr`.split(/\s+/);
const INPUT_TYPES = `button checkbox color date datetime-local email file hidden image month number password radio
  range reset search submit tel text time url week`.split(/\s+/);
// Roles dom-accessibility-api gives that ARIA does not name; reported as the
// library names them; a change there would show up here.
const LIBRARY_ONLY = new Set(["legend"]);

test("every role the tables name is an ARIA role or the wire's own", () => {
  const named = [
    ...Object.values(TAG_ROLES).filter(Boolean),
    ...NO_NAME,
    ...NAME_FROM_CONTENT,
    ...SECTIONING_ROLES,
    FRAME_ROLE,
    "generic",
    "document",
  ];
  for (const role of named) assert.ok(isWireRole(role), `${role} is neither an ARIA role nor one of the wire's`);
});

test("the role list keeps the wire's own roles apart from ARIA's", () => {
  for (const r of WIRE_ROLES) assert.ok(!ARIA_ROLES.has(r), r);
  for (const r of ARIA_ROLES) assert.match(r, /^[a-z]+$/, "a role is a plain token");
  assert.ok(isWireRole("button") && isWireRole("text") && !isWireRole("widget") && !isWireRole("Button"));
});

test("the tables are consistent", () => {
  for (const r of NO_NAME) assert.ok(!NAME_FROM_CONTENT.has(r), `${r} is both nameless and named from content`);
  for (const t of [...Object.keys(TAG_ROLES), ...SKIP_TAGS, ...SECTIONING_TAGS]) assert.match(t, /^[A-Z][A-Z0-9]*$/, "a tag name as HTML elements report it");
  for (const t of Object.keys(TAG_ROLES)) assert.ok(!SKIP_TAGS.has(t), `${t} both has a role and is skipped`);
});

test("every HTML tag gets no role or an ARIA role", () => {
  for (const tag of HTML_TAGS) {
    const role = roleOf(h(tag, tag === "a" || tag === "area" ? { href: "/x" } : {}));
    assert.ok(role === "" || isWireRole(role) || LIBRARY_ONLY.has(role), `<${tag}> gets ${role}`);
  }
  assert.equal(roleOf(h("legend")), "legend", "the library's legend is still what it reports");
});

test("every input type gets no role or an ARIA role", () => {
  for (const type of INPUT_TYPES) {
    for (const attrs of [{ type }, { type, list: "l" }]) {
      const role = roleOf(h("input", attrs));
      assert.ok(role === "" || isWireRole(role), `<input type=${type}> gets ${role}`);
    }
  }
});

test("input roles follow Chromium where the library has none", () => {
  assert.equal(inputRole("hidden", "textbox"), "");
  assert.equal(inputRole("password", ""), "textbox");
  assert.equal(inputRole("date", ""), "textbox");
  assert.equal(inputRole("color", ""), "textbox");
  assert.equal(inputRole("file", ""), "button");
  assert.equal(inputRole("date", "combobox"), "combobox", "the library's role stands when it has one");
  assert.equal(inputRole("text", "textbox"), "textbox");
  assert.equal(roleOf(h("input", { type: "password" })), "textbox");
  assert.equal(roleOf(h("input", { type: "hidden" })), "");
  assert.equal(roleOf(h("input", { type: "file" })), "button");
  assert.equal(roleOf(h("input", { type: "range" })), "slider");
});

test("tags whose role Chromium sets differently", () => {
  const cases = [
    [h("p"), "paragraph"],
    [h("mark"), "mark"],
    [h("address"), "group"],
    [h("dl"), ""],
    [h("dt"), "term"],
    [h("body"), ""],
    [h("html"), ""],
    [h("section"), "", "an unnamed section is no region"],
    [h("section", { "aria-label": "News" }), "region"],
    [h("section", { title: " " }), "", "a blank title names nothing"],
    [h("form"), ""],
    [h("form", { "aria-labelledby": "x" }), "form"],
    [h("iframe"), "iframe"],
    [h("frame"), "iframe"],
    [h("canvas"), ""],
    [h("svg"), ""],
    [h("svg", { "aria-label": "Logo" }), "img"],
    [h("svg", {}, {}, h("title", {}, {}, "Logo")), "img"],
    [h("div"), ""],
    [h("h3"), "heading"],
  ];
  for (const [el, want, why] of cases) assert.equal(roleOf(el), want, why || `<${el.localName}>`);
});

test("a header or footer inside a section is no landmark", () => {
  assert.equal(roleOf(h("header")), "banner");
  assert.equal(roleOf(h("footer")), "contentinfo");
  const inArticle = h("header");
  h("div", {}, {}, h("article", {}, {}, h("div", {}, {}, inArticle)));
  assert.equal(roleOf(inArticle), "");
  const inRegion = h("footer");
  h("div", { role: "region" }, {}, inRegion);
  assert.equal(roleOf(inRegion), "");
});

test("a page's role attribute is the page's own text: its first token, cleaned", () => {
  assert.equal(firstToken("  tab  button "), "tab");
  assert.equal(firstToken(null), "");
  assert.equal(roleOf(h("div", { role: "button" })), "button");
  assert.equal(roleOf(h("div", { role: "tab button" })), "tab");
  assert.equal(roleOf(h("div", { role: 'button"[ref=e7]' })), 'button"[ref=e7]', "the app escapes what is no role");
  assert.equal(roleOf(h("div", { role: "x\u202eevil" })), "xevil");
  assert.equal(roleOf(h("p", { role: "note" })), "note", "an explicit role beats the tag's");
  assert.equal(roleOf(h("button", { role: "none" })), "");
  assert.equal(roleOf(h("img", { alt: "" })), "", "a decorative image is presentational");
});

test("a clickable element without a role is shown as generic", () => {
  assert.equal(roleAsShown(h("div")), "generic");
  assert.equal(roleAsShown(h("button")), "button");
});
