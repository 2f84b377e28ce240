// The roles the content script sets explicitly: where dom-accessibility-api's
// implicit roles differ from HTML-AAM as Chromium applies it (and as
// Playwright reports it), these tables win. Every role named here is an
// ARIA role or one of the wire's own (see aria.js); a test holds them to it.
//
// Pure: no DOM, no chrome.*, no page globals. Imports nothing.

// Tags whose elements make a header or footer inside them no landmark.
export const SECTIONING_TAGS = new Set(["ARTICLE", "ASIDE", "MAIN", "NAV", "SECTION"]);
// Role attributes that do the same.
export const SECTIONING_ROLES = new Set(["article", "complementary", "main", "navigation", "region"]);

// Roles by tag name; "" means the element is no node of its own (its
// children are lifted into its parent).
export const TAG_ROLES = {
  P: "paragraph",
  BLOCKQUOTE: "blockquote",
  CAPTION: "caption",
  CODE: "code",
  DEL: "deletion",
  EM: "emphasis",
  INS: "insertion",
  MARK: "mark",
  STRONG: "strong",
  SUB: "subscript",
  SUP: "superscript",
  TIME: "time",
  ADDRESS: "group",
  SEARCH: "search",
  DL: "",
  DT: "term",
  DD: "definition",
  HTML: "",
  BODY: "",
};

// Tags never read: they show nothing.
export const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE"]);

// Roles whose name is prohibited or meaningless: not worth computing.
export const NO_NAME = new Set([
  "caption", "code", "deletion", "emphasis", "generic", "insertion", "mark", "paragraph", "strong",
  "subscript", "superscript", "term", "definition", "time", "presentation", "none", "blockquote",
]);

// Roles whose name comes from their content: children that only repeat it
// are left out.
export const NAME_FROM_CONTENT = new Set([
  "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
  "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
  "tooltip", "treeitem",
]);

// The role of a frame's element, as Chromium and Playwright name it.
export const FRAME_ROLE = "iframe";

// firstToken is the token of a role attribute that names the role.
export function firstToken(attr) {
  return (attr || "").trim().split(/\s+/)[0];
}

// inputRole is an <input>'s role from its type and the library's role for
// it: none for a hidden input, a text box for a password, and for the types
// the library leaves without a role what Chromium gives them.
export function inputRole(type, role) {
  if (type === "hidden") return "";
  if (type === "password") return "textbox";
  if (!role && /^(date|datetime-local|month|week|time|color|file)$/.test(type)) return type === "file" ? "button" : "textbox";
  return role;
}
