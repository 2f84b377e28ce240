// The role names a wire node may carry: the concrete roles of WAI-ARIA 1.2
// (abstract roles are for the specification only), the ones ARIA 1.3 adds
// that Chromium already maps, and the two the wire adds itself. Tests hold
// the explicit role tables in roles.js to this list.
//
// Pure: no DOM, no chrome.*, no page globals. Imports nothing.

export const ARIA_ROLES = new Set([
  "alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption",
  "cell", "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo",
  "definition", "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure", "form",
  "generic", "grid", "gridcell", "group", "heading", "img", "insertion", "link", "list", "listbox",
  "listitem", "log", "main", "marquee", "math", "menu", "menubar", "menuitem", "menuitemcheckbox",
  "menuitemradio", "meter", "navigation", "none", "note", "option", "paragraph", "presentation",
  "progressbar", "radio", "radiogroup", "region", "row", "rowgroup", "rowheader", "scrollbar",
  "search", "searchbox", "separator", "slider", "spinbutton", "status", "strong", "subscript",
  "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox", "time",
  "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem",
  // ARIA 1.3
  "comment", "image", "mark", "sectionfooter", "sectionheader", "suggestion",
]);

// Roles of the wire that ARIA does not define: a run of text, and a frame's
// element (which the app stitches the child frame's tree into).
export const WIRE_ROLES = new Set(["text", "iframe"]);

// isWireRole reports whether role may name a node the extension builds.
export function isWireRole(role) {
  return ARIA_ROLES.has(role) || WIRE_ROLES.has(role);
}
