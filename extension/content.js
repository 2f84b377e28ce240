// Reins content script: runs in the ISOLATED world of every frame. It only
// looks: it never changes the page, never dispatches events and never runs
// page code. It answers the service worker with this frame's accessibility
// tree, and re-finds an element just before an act.
"use strict";

(() => {
  if (globalThis.__reinsFrame) return; // injected twice (install + manifest)
  const frame = (globalThis.__reinsFrame = {});

  // The document generation: a new document is a new content-script instance.
  const doc = crypto.randomUUID();
  let epoch = 0;
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

  // --- roles and names -------------------------------------------------------

  const INPUT_ROLES = {
    button: "button",
    submit: "button",
    reset: "button",
    image: "button",
    checkbox: "checkbox",
    radio: "radio",
    range: "slider",
    number: "spinbutton",
    search: "searchbox",
    email: "textbox",
    tel: "textbox",
    text: "textbox",
    url: "textbox",
    password: "textbox",
    "": "textbox",
  };
  const TAG_ROLES = {
    A: (el) => (el.hasAttribute("href") ? "link" : ""),
    AREA: (el) => (el.hasAttribute("href") ? "link" : ""),
    ARTICLE: () => "article",
    ASIDE: () => "complementary",
    BUTTON: () => "button",
    DIALOG: () => "dialog",
    DETAILS: () => "group",
    FIELDSET: () => "group",
    FIGURE: () => "figure",
    FOOTER: (el) => (inSection(el) ? "" : "contentinfo"),
    FORM: () => "form",
    H1: () => "heading",
    H2: () => "heading",
    H3: () => "heading",
    H4: () => "heading",
    H5: () => "heading",
    H6: () => "heading",
    HEADER: (el) => (inSection(el) ? "" : "banner"),
    HR: () => "separator",
    IFRAME: () => "iframe",
    FRAME: () => "iframe",
    IMG: (el) => (el.getAttribute("alt") === "" ? "" : "img"),
    INPUT: (el) => {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "hidden") return "";
      if ((t === "" || t === "text" || t === "search") && el.hasAttribute("list")) return "combobox";
      return INPUT_ROLES[t] || "textbox";
    },
    LI: () => "listitem",
    MAIN: () => "main",
    MENU: () => "list",
    NAV: () => "navigation",
    OL: () => "list",
    OPTION: () => "option",
    P: () => "paragraph",
    PROGRESS: () => "progressbar",
    SECTION: (el) => (el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : ""),
    SELECT: (el) => (el.multiple || el.size > 1 ? "listbox" : "combobox"),
    SUMMARY: () => "button",
    TABLE: () => "table",
    TBODY: () => "rowgroup",
    THEAD: () => "rowgroup",
    TFOOT: () => "rowgroup",
    TD: () => "cell",
    TH: () => "columnheader",
    TR: () => "row",
    TEXTAREA: () => "textbox",
    UL: () => "list",
  };
  // Roles whose name comes from their content.
  const NAME_FROM_CONTENT = new Set([
    "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
    "tooltip", "treeitem",
  ]);
  const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE"]);

  function inSection(el) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (/^(ARTICLE|ASIDE|MAIN|NAV|SECTION)$/.test(p.tagName)) return true;
    }
    return false;
  }

  function roleOf(el) {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit && explicit !== "none" && explicit !== "presentation") return explicit;
    if (explicit) return "";
    const f = TAG_ROLES[el.tagName];
    return f ? f(el) : "";
  }

  function isSecret(el) {
    if (el.tagName !== "INPUT") return false;
    if ((el.getAttribute("type") || "").toLowerCase() === "password") return true;
    const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    return /\bcc-(number|csc|exp|exp-month|exp-year)\b/.test(ac);
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
      if (sr) return sr.childNodes;
      if (node.tagName === "SLOT") {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return node.childNodes;
  }

  function hidden(el, style) {
    if (el.hidden && style.display === "none") return true;
    if (style.display === "none") return true;
    if (el.getAttribute("aria-hidden") === "true") return true;
    return false;
  }

  function textOf(node, depth) {
    if (depth > 20) return "";
    if (node.nodeType === Node.TEXT_NODE) return node.nodeValue;
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return "";
    if (node.nodeType === Node.ELEMENT_NODE) {
      if (SKIP_TAGS.has(node.tagName)) return "";
      const style = getComputedStyle(node);
      if (hidden(node, style) || style.visibility === "hidden") return "";
      if (node.tagName === "IMG") return node.getAttribute("alt") || "";
      if (node.tagName === "INPUT" && !isSecret(node)) {
        const t = (node.getAttribute("type") || "").toLowerCase();
        if (t === "button" || t === "submit" || t === "reset") return node.value;
      }
    }
    let s = "";
    for (const c of childNodesOf(node)) {
      const part = textOf(c, depth + 1);
      if (!part) continue;
      const block = c.nodeType === Node.ELEMENT_NODE && !/^(inline|contents)/.test(getComputedStyle(c).display);
      s += block ? " " + part + " " : part;
    }
    return s;
  }

  function clean(s) {
    return (s || "").replace(/\s+/g, " ").trim();
  }

  function byIdRefs(el, attr) {
    const ids = (el.getAttribute(attr) || "").trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    return ids.map((id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id))).filter(Boolean);
  }

  function nameOf(el, role) {
    const labelled = byIdRefs(el, "aria-labelledby");
    if (labelled.length) return clean(labelled.map((n) => textOf(n, 0)).join(" "));
    const aria = clean(el.getAttribute("aria-label"));
    if (aria) return aria;
    if (/^(INPUT|TEXTAREA|SELECT|METER|PROGRESS|OUTPUT)$/.test(el.tagName)) {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (el.tagName === "INPUT" && (t === "button" || t === "submit" || t === "reset")) {
        return clean(el.value || (t === "submit" ? "Submit" : t === "reset" ? "Reset" : ""));
      }
      if (el.tagName === "INPUT" && t === "image") return clean(el.getAttribute("alt") || el.getAttribute("title"));
      if (el.labels && el.labels.length) return clean(Array.from(el.labels).map((l) => textOf(l, 0)).join(" "));
      const title = clean(el.getAttribute("title"));
      if (title) return title;
      return clean(el.getAttribute("placeholder"));
    }
    if (el.tagName === "IMG" || el.tagName === "AREA") {
      const alt = clean(el.getAttribute("alt"));
      if (alt) return alt;
    }
    if (el.tagName === "FIELDSET") {
      const legend = el.querySelector(":scope > legend");
      if (legend) return clean(textOf(legend, 0));
    }
    if (el.tagName === "TABLE") {
      const cap = el.querySelector(":scope > caption");
      if (cap) return clean(textOf(cap, 0));
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const t = clean(textOf(el, 0));
      if (t) return t;
    }
    if (el.tagName === "IFRAME" || el.tagName === "FRAME") return clean(el.getAttribute("title") || el.getAttribute("name"));
    return clean(el.getAttribute("title"));
  }

  // --- the tree --------------------------------------------------------------

  function box(el) {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  }

  // refable: visible with a box, and it receives pointer events.
  function refable(el, style, b) {
    if (b.w <= 0 || b.h <= 0) return false;
    if (style.visibility !== "visible") return false;
    if (style.pointerEvents === "none") return false;
    return true;
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

  const MAX_NODES = 50000;
  let budget = 0;

  function build(node, out, depth) {
    if (budget <= 0 || depth > 256) return;
    if (node.nodeType === Node.TEXT_NODE) {
      const t = clean(node.nodeValue);
      if (t) {
        budget--;
        out.push({ role: "text", text: t });
      }
      return;
    }
    if (node.nodeType === Node.DOCUMENT_FRAGMENT_NODE) {
      for (const c of node.childNodes) build(c, out, depth + 1);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || SKIP_TAGS.has(node.tagName)) return;
    const el = node;
    const style = getComputedStyle(el);
    if (hidden(el, style)) return;
    budget--;
    const role = roleOf(el);
    const children = [];
    if (el.tagName !== "IFRAME" && el.tagName !== "FRAME") {
      if (!(el.tagName === "SELECT")) {
        for (const c of childNodesOf(el)) build(c, children, depth + 1);
      } else {
        for (const o of el.querySelectorAll("option")) build(o, children, depth + 1);
      }
    }
    const visible = style.visibility === "visible";
    const pointer = style.cursor === "pointer";
    if (!role) {
      // A generic element: keep it only when it is clickable, else lift its children.
      if (pointer && visible && !(el.parentElement && getComputedStyle(el.parentElement).cursor === "pointer")) {
        const b = box(el);
        const n = { role: "generic", pointer: true, box: b, children };
        const nm = clean(el.getAttribute("aria-label") || el.getAttribute("title"));
        if (nm) n.name = nm;
        if (refable(el, style, b)) n.id = idFor(el, "generic", n.name || "");
        out.push(n);
        return;
      }
      for (const c of children) out.push(c);
      return;
    }
    if (!visible && !children.length) return;
    const name = nameOf(el, role);
    const b = box(el);
    const n = { role, box: b };
    if (name) n.name = name;
    if (visible && refable(el, style, b)) n.id = idFor(el, role, name);
    states(el, role, n);
    if (pointer && role === "generic") n.pointer = true;
    if (n.role === "iframe") n.frame = frameChild(el);
    // A node named from its content would repeat that content as children.
    const kids = NAME_FROM_CONTENT.has(role) && name && children.every((c) => c.role === "text") ? [] : children;
    if (kids.length) n.children = kids;
    out.push(n);
  }

  function states(el, role, n) {
    const aria = (a) => el.getAttribute(a);
    if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
      if (el.tagName === "INPUT") n.checked = el.indeterminate ? "mixed" : String(el.checked);
      else if (aria("aria-checked")) n.checked = aria("aria-checked");
    }
    if (el.disabled || aria("aria-disabled") === "true") n.disabled = true;
    if (aria("aria-expanded")) n.expanded = aria("aria-expanded");
    else if (el.tagName === "DETAILS") n.expanded = String(el.open);
    if (aria("aria-pressed")) n.pressed = aria("aria-pressed");
    if (aria("aria-selected") === "true" || (el.tagName === "OPTION" && el.selected)) n.selected = true;
    const level = /^H([1-6])$/.exec(el.tagName);
    if (role === "heading") n.level = parseInt(aria("aria-level") || (level ? level[1] : "2"), 10);
    if (document.activeElement === el) n.focused = true;
    if (role === "link" && el.href) n.url = el.href;
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
      if (isSecret(el)) n.secret = true;
      else if (el.value && !/^(button|submit|reset|checkbox|radio|image)$/i.test(el.type)) n.value = el.value;
      const ph = el.getAttribute("placeholder");
      if (ph) n.placeholder = ph;
    }
    if (el.tagName === "SELECT" && el.selectedOptions && el.selectedOptions.length) n.value = el.selectedOptions[0].textContent.trim();
  }

  function snapshot() {
    checkNav();
    budget = MAX_NODES;
    const out = [];
    const top = document.body || document.documentElement;
    if (top) build(top, out, 0);
    const root = { role: "document", name: document.title || "", children: out };
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
      root,
      truncated: budget <= 0,
    };
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

  function resolve(p) {
    checkNav();
    if (p.doc !== doc) return fail("stale_ref", "the page has loaded a new document since the snapshot");
    if (p.epoch !== epoch) return fail("stale_ref", "the page has navigated since the snapshot");
    const ref = byId.get(p.id);
    const el = ref && ref.deref();
    if (!el || !el.isConnected) return fail("stale_ref", "the element is no longer on the page");
    const role = roleOf(el);
    const name = nameOf(el, role);
    const known = refs.get(el);
    if (!known || known.role !== role || known.name !== name || role !== p.role || name !== p.name) {
      return fail("changed", `the element changed since the snapshot: it is now ${role || "generic"} "${name}"`);
    }
    if (el.disabled || el.getAttribute("aria-disabled") === "true") return fail("disabled", "the element is disabled");
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

  chrome.runtime.onMessage.addListener((msg, sender, reply) => {
    if (!msg || sender.id !== chrome.runtime.id || sender.tab) return false;
    try {
      switch (msg.type) {
        case "snapshot":
          reply({ result: snapshot() });
          break;
        case "resolve":
          reply(resolve(msg));
          break;
        case "frameHit":
          reply(frameHit(msg));
          break;
        case "metrics":
          reply(metrics());
          break;
        default:
          reply(fail("unknown_method", "unknown request " + msg.type));
      }
    } catch (e) {
      reply(fail("internal", String(e && e.message ? e.message : e)));
    }
    return false;
  });

  frame.doc = doc;
})();
