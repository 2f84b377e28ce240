// Reins content script: runs in the ISOLATED world of every frame. It only
// looks: it never changes the page, never dispatches events and never runs
// page code. It answers the service worker with this frame's accessibility
// tree, and re-finds an element just before an act.
//
// This is the source; extension/content.js is its esbuild bundle with
// dom-accessibility-api (cd extension/src && npm ci && npm run build).
"use strict";

import { computeAccessibleName, getRole as libraryRole } from "dom-accessibility-api";

(() => {
  if (globalThis.__reinsFrame) return; // injected twice (install + manifest)
  const frame = (globalThis.__reinsFrame = {});

  // The document generation: a new document is a new content-script instance.
  const doc = crypto.randomUUID();
  let epoch = 0;
  // The last tree text sent and its version: an app that already holds it
  // is told "same" instead of receiving it again.
  let lastTree = "";
  let treeVersion = 0;
  let lastURL = location.href;
  let lastEntry = currentEntry();

  // element → {id, role, name}; id → WeakRef(element). Both are dropped on
  // every navigation signal, so every element then gets a new id. Ids are
  // never reused within this document.
  let refs = new WeakMap();
  let byId = new Map();
  let nextId = 1;

  function currentEntry() {
    try {
      return globalThis.navigation && navigation.currentEntry ? String(navigation.currentEntry.id) : "";
    } catch {
      return "";
    }
  }

  function send(msg) {
    try {
      chrome.runtime.sendMessage(msg).catch(() => {});
    } catch {
      // The extension was reloaded; this instance is orphaned.
    }
  }

  // checkNav notices a same-document navigation (pushState, popstate, hash,
  // a new navigation entry) whether or not an event told us.
  function checkNav(kind) {
    const url = location.href;
    const entry = currentEntry();
    if (url === lastURL && entry === lastEntry) return false;
    lastURL = url;
    lastEntry = entry;
    epoch++;
    refs = new WeakMap();
    byId = new Map();
    send({ type: "navigated", url, doc, epoch, kind: kind || "entry" });
    return true;
  }

  addEventListener("popstate", () => checkNav("popstate"), true);
  addEventListener("hashchange", () => checkNav("hash"), true);
  try {
    if (globalThis.navigation) navigation.addEventListener("currententrychange", () => checkNav("entry"));
  } catch {}
  send({ type: "navigated", url: location.href, doc, epoch, kind: "document" });

  // Calibration: a trusted pointermove gives this frame's exact screen origin.
  let lastCal = 0;
  addEventListener(
    "pointermove",
    (e) => {
      if (!e.isTrusted || !e.isPrimary) return;
      const now = performance.now();
      if (now - lastCal < 250) return;
      lastCal = now;
      send({
        type: "calibration",
        screenX: e.screenX,
        screenY: e.screenY,
        clientX: e.clientX,
        clientY: e.clientY,
        window: windowMetrics(),
      });
    },
    { capture: true, passive: true }
  );

  function windowMetrics() {
    return {
      screenX: screenX,
      screenY: screenY,
      outerWidth: outerWidth,
      outerHeight: outerHeight,
      dpr: devicePixelRatio,
    };
  }

  function viewport() {
    const vv = globalThis.visualViewport;
    const de = document.documentElement;
    return {
      width: vv ? vv.width : innerWidth,
      height: vv ? vv.height : innerHeight,
      innerWidth: innerWidth,
      innerHeight: innerHeight,
      clientWidth: de ? de.clientWidth : innerWidth,
      clientHeight: de ? de.clientHeight : innerHeight,
      scrollX: scrollX,
      scrollY: scrollY,
    };
  }

  // frameIndex is this frame's position in its parent's window.frames.
  function frameIndex() {
    if (window === window.parent) return -1;
    try {
      const fs = window.parent.frames;
      for (let i = 0; i < fs.length; i++) if (fs[i] === window) return i;
    } catch {}
    return -1;
  }

  // --- styles ----------------------------------------------------------------

  // One snapshot reads each element's computed style once; the library's
  // name computation shares the same memo. Styles are live objects, so the
  // memo must not outlive the snapshot.
  let styles = new Map();
  function styleOf(el, pseudo) {
    if (pseudo) return getComputedStyle(el, pseudo);
    let s = styles.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  }

  // --- roles and names -------------------------------------------------------

  // Where dom-accessibility-api's implicit roles differ from HTML-AAM as
  // Chromium applies it (and as Playwright reports it), these win.
  const SECTIONING = /^(ARTICLE|ASIDE|MAIN|NAV|SECTION)$/;
  const TAG_ROLES = {
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
  const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE"]);
  // Roles whose name is prohibited or meaningless: not worth computing.
  const NO_NAME = new Set([
    "caption", "code", "deletion", "emphasis", "generic", "insertion", "mark", "paragraph", "strong",
    "subscript", "superscript", "term", "definition", "time", "presentation", "none", "blockquote",
  ]);
  // Roles whose name comes from their content: children that only repeat it
  // are left out.
  const NAME_FROM_CONTENT = new Set([
    "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
    "tooltip", "treeitem",
  ]);

  function inSection(el) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (SECTIONING.test(p.tagName)) return true;
      const r = p.getAttribute("role");
      if (r && /^(article|complementary|main|navigation|region)$/.test(r)) return true;
    }
    return false;
  }

  function hasOwnName(el) {
    return !!((el.getAttribute("aria-label") || "").trim() || el.hasAttribute("aria-labelledby") || (el.getAttribute("title") || "").trim());
  }

  // roleOf is the element's role, cleaned: the first token of a page's role
  // attribute is the page's own text.
  function roleOf(el) {
    return clean(rawRole(el));
  }

  function rawRole(el) {
    let role = libraryRole(el) || "";
    if (role === "none" || role === "presentation") return "";
    if (el.hasAttribute("role") && role === (el.getAttribute("role") || "").trim().split(/\s+/)[0]) return role;
    const tag = el.tagName;
    if (tag in TAG_ROLES) return TAG_ROLES[tag];
    switch (tag) {
      case "SECTION":
      case "FORM":
        return hasOwnName(el) ? role : "";
      case "HEADER":
      case "FOOTER":
        return inSection(el) ? "" : role;
      case "INPUT": {
        const t = el.type;
        if (t === "hidden") return "";
        if (t === "password") return "textbox";
        if (!role && /^(date|datetime-local|month|week|time|color|file)$/.test(t)) return t === "file" ? "button" : "textbox";
        return role;
      }
      case "IFRAME":
      case "FRAME":
        return "iframe";
      case "SVG":
      case "svg":
        return el.hasAttribute("aria-label") || el.querySelector(":scope > title") ? "img" : "";
      case "CANVAS":
        return "";
    }
    return role;
  }

  function isSecret(el) {
    if (el.tagName !== "INPUT") return false;
    if ((el.getAttribute("type") || "").toLowerCase() === "password") return true;
    const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    return /\bcc-(number|csc|exp|exp-month|exp-year)\b/.test(ac);
  }

  // Secret fields with a value in this frame, found once per snapshot: a
  // name computed across one (a label that embeds it) must not carry it.
  let secretValues = null;
  function secrets() {
    if (secretValues) return secretValues;
    secretValues = [];
    for (const i of document.querySelectorAll("input")) if (isSecret(i) && i.value) secretValues.push(i);
    return secretValues;
  }

  // clean makes page text one line a person can read as it is: line breaks
  // and tabs become spaces, and what cannot be seen goes (C0 and C1 controls
  // such as ESC, bidi overrides and isolates, zero-width and other format
  // characters), so a name cannot move a terminal's cursor or reorder what
  // is shown. The app renders every text again; this is the first layer.
  function clean(s) {
    return String(s || "")
      .replace(/[\u0085\u2028\u2029]/g, " ")
      .replace(/[\p{Cc}\p{Cf}]/gu, (c) => (/\s/.test(c) ? " " : ""))
      .replace(/\s+/g, " ")
      .trim();
  }

  function nameOf(el, role) {
    if (!role || NO_NAME.has(role)) return "";
    let name;
    try {
      name = computeAccessibleName(el, { getComputedStyle: styleOf, computedStyleSupportsPseudoElements: true });
    } catch {
      name = "";
    }
    if (!name && role === "iframe") name = el.getAttribute("title") || el.getAttribute("name") || "";
    // HTML-AAM's last resort for a text field, which Chromium applies.
    if (!name && (el.tagName === "INPUT" || el.tagName === "TEXTAREA")) name = el.getAttribute("placeholder") || "";
    name = clean(name);
    if (name && secrets().length) {
      for (const s of secrets()) {
        if (s.value.length >= 1 && name.includes(s.value)) name = name.split(s.value).join("•".repeat(Math.min(s.value.length, 8)));
      }
    }
    return name;
  }

  function shadowOf(el) {
    try {
      return chrome.dom.openOrClosedShadowRoot(el) || null;
    } catch {
      return el.shadowRoot || null;
    }
  }

  // childNodesOf walks the composed tree: a shadow host's shadow root stands
  // in for its children, and a slot for what is assigned to it.
  function childNodesOf(node) {
    if (node.nodeType === Node.ELEMENT_NODE) {
      const sr = shadowOf(node);
      if (sr) {
        watch(sr);
        return sr.childNodes;
      }
      if (node.tagName === "SLOT") {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return node.childNodes;
  }

  // --- the live tree ---------------------------------------------------------
  //
  // Each element that was read keeps an entry: its role, name, style facts
  // and its children (text strings and child entries). A mutation marks the
  // entries on its path to the root dirty (an attribute change: the whole
  // subtree, since classes and styles cascade), and the next snapshot reads
  // again only what is dirty. Boxes, form state and focus change without
  // mutations, so they are read afresh at every serialisation, for emitted
  // elements only.

  const entries = new WeakMap(); // element → entry
  let allDirty = false;
  // Elements named from outside their own subtree (aria-labelledby, <label>):
  // any mutation may change their name.
  let external = new Set();

  function parentOf(n) {
    return n.parentNode || n.host || null;
  }

  function markDirty(node, deep) {
    if (!node) return;
    if (node.nodeType !== Node.ELEMENT_NODE) node = parentOf(node);
    let first = true;
    for (let n = node; n; n = parentOf(n)) {
      if (n.nodeType !== Node.ELEMENT_NODE) continue;
      const e = entries.get(n);
      if (e) {
        e.dirty = true;
        if (first && (deep || shadowOf(n))) e.deep = true;
      }
      // A slotted node's slot is in the host's shadow tree, not on its path.
      if (first && n.assignedSlot) markDirty(n.assignedSlot, false);
      first = false;
    }
  }

  // quietSince is when the last full serialisation began, provided nothing
  // that could change the tree has happened since; 0 once something has.
  let quietSince = 0;
  let port = null; // see connectPort
  // The first stir after a full read is told to the service worker over the
  // frame's port, which answers "same" for a quiet frame without asking it.
  // It goes out in the same task as the change, ahead of any later request.
  function stir() {
    if (!quietSince) return;
    quietSince = 0;
    if (!port) connectPort();
    try {
      if (port) port.postMessage({ stirred: true });
    } catch {}
  }

  function onMutations(records) {
    if (records.length) stir();
    for (const r of records) {
      if (r.type === "attributes") markDirty(r.target, true);
      else markDirty(r.target, false);
    }
    for (const el of external) {
      if (el.isConnected) markDirty(el, false);
      else external.delete(el); // the set must not keep removed elements alive
    }
  }

  const observer = new MutationObserver(onMutations);
  const watched = new WeakSet();
  function watch(root) {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  watch(document);

  // State that changes without a mutation: hover and focus styles, finished
  // transitions, a new viewport size for media queries. Hover rules usually
  // sit within a few levels of the pointer (li:hover > ul).
  const near = (e) => {
    stir();
    let n = e.composedPath ? e.composedPath()[0] : e.target;
    for (let i = 0; n && i < 4; i++, n = parentOf(n)) markDirty(n, true);
  };
  for (const t of ["pointerover", "pointerout", "focusin", "focusout", "transitionend", "animationend", "toggle", "slotchange"]) {
    addEventListener(t, near, { capture: true, passive: true });
  }
  addEventListener("resize", () => {
    allDirty = true;
    stir();
  }, { passive: true });
  // Boxes, values and layout that move without a mutation: scrolling (of the
  // page or any element), typing, loaded images and fonts.
  for (const t of ["scroll", "input", "change", "load", "error"]) {
    addEventListener(t, stir, { capture: true, passive: true });
  }
  if (globalThis.visualViewport) {
    visualViewport.addEventListener("resize", stir, { passive: true });
    visualViewport.addEventListener("scroll", stir, { passive: true });
  }
  try {
    document.fonts.addEventListener("loadingdone", stir);
  } catch {}

  const MAX_NODES = 50000;
  let budget = 0;

  // read returns the entry of an element, rebuilt if dirty, or null when the
  // element and all below it are not in the tree.
  function read(el, depth, fresh) {
    if (SKIP_TAGS.has(el.tagName)) return null;
    let e = entries.get(el);
    if (e && !e.dirty && !fresh) {
      budget -= e.size;
      return e;
    }
    const deep = fresh || (e ? e.deep : false);
    const style = styleOf(el);
    // Content hidden from assistive technology but on screen stays: the
    // agent acts by pointer on what a person sees (Playwright's AI mode
    // makes the same choice).
    if (style.display === "none") {
      e = { hidden: true, dirty: false, deep: false, size: 0 };
      entries.set(el, e);
      return e;
    }
    budget--;
    const role = roleOf(el);
    const visible = style.visibility === "visible";
    const kids = [];
    let size = 1;
    if (role !== "iframe" && depth < 256) {
      const nodes = el.tagName === "SELECT" ? el.querySelectorAll("option") : childNodesOf(el);
      for (const c of nodes) {
        if (budget <= 0) break;
        if (c.nodeType === Node.TEXT_NODE) {
          if (visible && c.nodeValue) {
            kids.push(c.nodeValue);
            budget--;
            size++;
          }
        } else if (c.nodeType === Node.ELEMENT_NODE) {
          const k = read(c, depth + 1, deep);
          if (k && !k.hidden) {
            kids.push(k);
            size += k.size;
          }
        }
      }
    }
    const name = visible || role ? nameOf(el, role) : "";
    const pointer = style.cursor === "pointer";
    e = {
      el,
      role,
      name,
      kids,
      visible,
      pe: style.pointerEvents !== "none",
      // A generic element is kept only when it is itself clickable (not
      // merely inside something clickable), else its children are lifted.
      pointer: !role && pointer && visible && !(el.parentElement && styleOf(el.parentElement).cursor === "pointer"),
      block: !/^(inline|contents)/.test(style.display) || el.tagName === "BR",
      dirty: false,
      deep: false,
      size,
    };
    if (el.hasAttribute("aria-labelledby") || (el.labels && el.labels.length)) external.add(el);
    entries.set(el, e);
    return e;
  }

  // --- serialising -----------------------------------------------------------

  const r2 = (v) => Math.round(v * 100) / 100;

  function box(el) {
    const r = el.getBoundingClientRect();
    return { x: r2(r.x), y: r2(r.y), w: r2(r.width), h: r2(r.height) };
  }

  function idFor(el, role, name) {
    const known = refs.get(el);
    if (known && known.role === role && known.name === name) return known.id;
    const id = nextId++;
    refs.set(el, { id, role, name });
    byId.set(id, new WeakRef(el));
    return id;
  }

  function frameChild(el) {
    const b = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const px = (v) => parseFloat(v) || 0;
    const content = {
      x: b.x + px(cs.borderLeftWidth) + px(cs.paddingLeft),
      y: b.y + px(cs.borderTopWidth) + px(cs.paddingTop),
      w: el.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight),
      h: el.clientHeight - px(cs.paddingTop) - px(cs.paddingBottom),
    };
    let index = -1;
    try {
      const w = el.contentWindow;
      for (let i = 0; i < frames.length; i++) if (frames[i] === w) { index = i; break; }
    } catch {}
    return { content, src: el.src || "", index };
  }

  // emit turns children into wire nodes: runs of text (across lifted inline
  // elements) merge into one text node; a lifted block element breaks them.
  function emit(kids, out, buf) {
    for (const k of kids) {
      if (typeof k === "string") {
        buf.s += k;
        continue;
      }
      if (!k.role && !k.pointer) {
        if (k.block) flush(out, buf);
        emit(k.kids, out, buf);
        if (k.block) flush(out, buf);
        continue;
      }
      flush(out, buf);
      const n = node(k);
      if (n) out.push(n);
    }
    return out;
  }

  function flush(out, buf) {
    const t = clean(buf.s);
    buf.s = "";
    if (t) out.push({ role: "text", text: t });
  }

  function node(e) {
    const el = e.el;
    const role = e.role || "generic";
    const n = { role };
    if (e.name) n.name = e.name;
    const b = box(el);
    n.box = b;
    if (e.visible && e.pe && b.w > 0 && b.h > 0) n.id = idFor(el, e.role ? role : "generic", e.name);
    if (e.pointer) n.pointer = true;
    states(el, role, n);
    if (role === "iframe") n.frame = frameChild(el);
    const children = [];
    const buf = { s: "" };
    emit(e.kids, children, buf);
    flush(children, buf);
    // A node named from its content would repeat that content as children.
    // Invisible itself, it stands only as the parent of something visible.
    if (!e.visible && !children.length) return null;
    const kids = NAME_FROM_CONTENT.has(role) && e.name && children.every((c) => c.role === "text") ? [] : children;
    if (kids.length) n.children = kids;
    return n;
  }

  function states(el, role, n) {
    const aria = (a) => el.getAttribute(a);
    if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
      if (el.tagName === "INPUT") n.checked = el.indeterminate ? "mixed" : String(el.checked);
      else if (aria("aria-checked")) n.checked = aria("aria-checked");
    }
    if (aria("aria-disabled") === "true" || (/^(BUTTON|INPUT|SELECT|TEXTAREA|OPTION|OPTGROUP|FIELDSET)$/.test(el.tagName) && el.matches(":disabled"))) n.disabled = true;
    const ex = aria("aria-expanded");
    if (ex) n.expanded = ex;
    else if (el.tagName === "DETAILS") n.expanded = String(el.open);
    else if (el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") n.expanded = String(el.parentElement.open);
    const pr = aria("aria-pressed");
    if (pr) n.pressed = pr;
    if (aria("aria-selected") === "true" || (el.tagName === "OPTION" && el.selected)) n.selected = true;
    if (role === "heading") {
      const level = /^H([1-6])$/.exec(el.tagName);
      n.level = parseInt(aria("aria-level") || (level ? level[1] : "2"), 10) || 2;
    }
    if (el === focused) n.focused = true;
    if (role === "link" && el.href) n.url = typeof el.href === "string" ? el.href : "";
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
      if (isSecret(el)) n.secret = true;
      else if (el.value && !/^(button|submit|reset|checkbox|radio|image|file)$/i.test(el.type)) n.value = el.value;
      const ph = el.getAttribute("placeholder");
      if (ph) n.placeholder = ph;
    }
    if (el.tagName === "SELECT" && el.selectedOptions && el.selectedOptions.length) n.value = clean(el.selectedOptions[0].textContent);
  }

  // The focused element, looked for inside shadow roots too.
  let focused = null;
  function deepActive() {
    let a = document.activeElement;
    for (let i = 0; a && i < 32; i++) {
      const sr = shadowOf(a);
      if (!sr || !sr.activeElement) break;
      a = sr.activeElement;
    }
    return a;
  }

  // A page can still change what a snapshot shows without any event (a
  // script setting a field's value, a running CSS animation), so "quiet" is
  // trusted for a second at most; clicks never depend on it, since every act
  // finds its element again.
  const QUIET_MS = 1000;
  let lastTruncated = false;

  // report is a frame's answer; the tree is left out when the app holds it.
  function report(t0, tree, same) {
    return {
      url: location.href,
      origin: location.origin,
      doc,
      epoch,
      entry: currentEntry(),
      history: history.length,
      index: frameIndex(),
      viewport: viewport(),
      window: windowMetrics(),
      // One string: see protocol.FrameReport.Decode for why.
      tree: same ? undefined : tree,
      version: treeVersion,
      same,
      truncated: lastTruncated,
      took: Math.round((performance.now() - t0) * 100) / 100,
    };
  }

  function snapshot(known) {
    const t0 = performance.now();
    if (checkNav()) stir();
    const records = observer.takeRecords();
    if (records.length) onMutations(records);
    if (quietSince && t0 - quietSince < QUIET_MS && known === doc + ":" + treeVersion) {
      return report(t0, "", true); // quiet: answer without walking the page
    }
    quietSince = t0;
    focused = deepActive();
    const fresh = allDirty;
    allDirty = false;
    styles = new Map();
    secretValues = null;
    budget = MAX_NODES;
    const out = [];
    const top = document.body || document.documentElement;
    if (top) {
      const e = read(top, 0, fresh);
      const buf = { s: "" };
      if (e && !e.hidden) emit(e.role || e.pointer ? [e] : e.kids, out, buf);
      flush(out, buf);
    }
    const root = { role: "document", name: document.title || "", children: out };
    styles = new Map();
    const tree = JSON.stringify(root);
    if (tree !== lastTree) {
      lastTree = tree;
      treeVersion++;
    }
    lastTruncated = budget <= 0;
    return report(t0, tree, known === doc + ":" + treeVersion);
  }

  // --- finding an element again ---------------------------------------------

  function deepFromPoint(x, y) {
    let hit = document.elementFromPoint(x, y);
    for (let i = 0; hit && i < 32; i++) {
      const sr = shadowOf(hit);
      if (!sr) break;
      const inner = sr.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  function composedContains(outer, inner) {
    for (let n = inner; n; n = n.parentNode || n.host) {
      if (n === outer) return true;
      if (n.nodeType === Node.DOCUMENT_NODE) return false;
    }
    return false;
  }

  function fail(code, message) {
    return { error: { code, message } };
  }

  // refable: visible with a box, and it receives pointer events.
  function refable(el, style, b) {
    if (b.w <= 0 || b.h <= 0) return false;
    if (style.visibility !== "visible") return false;
    if (style.pointerEvents === "none") return false;
    return true;
  }

  // roleAsShown is the role the snapshot printed for el: a clickable element
  // without a role is shown (and its ref recorded) as generic.
  function roleAsShown(el) {
    return roleOf(el) || "generic";
  }

  function resolve(p) {
    checkNav();
    if (p.doc !== doc) return fail("stale_ref", "the page has loaded a new document since the snapshot");
    if (p.epoch !== epoch) return fail("stale_ref", "the page has navigated since the snapshot");
    const ref = byId.get(p.id);
    const el = ref && ref.deref();
    if (!el || !el.isConnected) return fail("stale_ref", "the element is no longer on the page");
    styles = new Map();
    secretValues = null;
    const role = roleAsShown(el);
    const name = role === "generic" ? "" : nameOf(el, role);
    styles = new Map();
    const known = refs.get(el);
    if (!known || known.role !== role || known.name !== name || role !== p.role || name !== p.name) {
      return fail("changed", `the element changed since the snapshot: it is now ${role} "${name}"`);
    }
    if (el.getAttribute("aria-disabled") === "true" || (el.matches && el.matches(":disabled"))) return fail("disabled", "the element is disabled");
    const style = getComputedStyle(el);
    const b = box(el);
    if (!refable(el, style, b)) return fail("not_visible", "the element is not visible");
    const vw = document.documentElement.clientWidth || innerWidth;
    const vh = document.documentElement.clientHeight || innerHeight;
    // The centre of the part of the box inside the viewport.
    const x0 = Math.max(b.x, 0), x1 = Math.min(b.x + b.w, vw);
    const y0 = Math.max(b.y, 0), y1 = Math.min(b.y + b.h, vh);
    if (x1 - x0 < 1 || y1 - y0 < 1) return fail("not_visible", "the element is scrolled out of view; scroll it into view first");
    const point = { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
    const hit = deepFromPoint(point.x, point.y);
    if (!hit || !(hit === el || composedContains(el, hit))) {
      const what = hit ? hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "") : "nothing";
      return fail("obscured", `something else (${what}) is on top of the element; it may be covered or clipped`);
    }
    const editable = el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
    return {
      result: {
        box: b,
        point,
        viewport: viewport(),
        window: windowMetrics(),
        secret: isSecret(el),
        editable,
        origin: location.origin,
        index: frameIndex(),
      },
    };
  }

  // frameHit maps a point in a child frame to this frame, checking that the
  // child's iframe element is really what is at that point.
  function frameHit(p) {
    checkNav();
    if (p.doc !== doc || p.epoch !== epoch) return fail("stale_ref", "the page around the frame has navigated since the snapshot");
    let w;
    try {
      w = frames[p.index];
    } catch {}
    if (!w) return fail("stale_ref", "the frame is gone");
    let el = null;
    const all = document.querySelectorAll("iframe, frame");
    for (const f of all) if (f.contentWindow === w) { el = f; break; }
    if (!el) return fail("stale_ref", "the frame's element is gone");
    const c = frameChild(el).content;
    if (p.x < 0 || p.y < 0 || p.x > c.w || p.y > c.h) return fail("not_visible", "the element lies outside its frame's visible area");
    const point = { x: c.x + p.x, y: c.y + p.y };
    const vw = document.documentElement.clientWidth || innerWidth;
    const vh = document.documentElement.clientHeight || innerHeight;
    if (point.x < 0 || point.y < 0 || point.x >= vw || point.y >= vh) return fail("not_visible", "the frame is scrolled out of view; scroll it into view first");
    const hit = deepFromPoint(point.x, point.y);
    if (hit !== el) return fail("obscured", "something covers the frame the element is in");
    return { result: { point, viewport: viewport(), window: windowMetrics(), origin: location.origin, index: frameIndex() } };
  }

  function metrics() {
    checkNav();
    return { result: { viewport: viewport(), window: windowMetrics(), origin: location.origin, doc, epoch, index: frameIndex() } };
  }

  function answer(msg) {
    try {
      switch (msg.type) {
        case "snapshot":
          return { result: snapshot(msg.known) };
        case "resolve":
          return resolve(msg);
        case "frameHit":
          return frameHit(msg);
        case "metrics":
          return metrics();
        default:
          return fail("unknown_method", "unknown request " + msg.type);
      }
    } catch (e) {
      return fail("internal", String(e && e.message ? e.message : e));
    }
  }

  // A port to the service worker, opened when the document starts: requests
  // and the "stirred" notice travel over it, in order. A worker that
  // restarted has lost the ports, so one-off messages still work too, and
  // reopen the port.
  function connectPort() {
    try {
      const p = chrome.runtime.connect({ name: "reins-frame" });
      p.onMessage.addListener((msg) => {
        if (msg && msg.rid) p.postMessage({ rid: msg.rid, ...answer(msg) });
      });
      p.onDisconnect.addListener(() => {
        if (port === p) port = null;
      });
      port = p;
    } catch {
      port = null; // the extension was reloaded; this instance is orphaned
    }
  }

  chrome.runtime.onMessage.addListener((msg, sender, reply) => {
    if (!msg || sender.id !== chrome.runtime.id || sender.tab) return false;
    if (!port) connectPort();
    reply(answer(msg));
    return false;
  });
  connectPort();

  frame.doc = doc;
})();
