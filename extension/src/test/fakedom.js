// A small stand-in for a frame's DOM and the chrome.* the content script
// uses, enough for its DOM modules to run in node: elements with
// attributes, children, a computed style and a box; a document; the window
// facts; and a chrome.runtime that records what the script sends and lets
// a test play the service worker.
//
// Test helper. Imports nothing.

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const DOCUMENT_NODE = 9;

class FakeNode {
  constructor(type) {
    this.nodeType = type;
    this.parentNode = null;
    this.childNodes = [];
  }
  get ELEMENT_NODE() { return ELEMENT_NODE; }
  get TEXT_NODE() { return TEXT_NODE; }
  get DOCUMENT_NODE() { return DOCUMENT_NODE; }
  get isConnected() {
    let n = this;
    while (n.parentNode) n = n.parentNode;
    return n.nodeType === DOCUMENT_NODE;
  }
  getRootNode() {
    let n = this;
    while (n.parentNode) n = n.parentNode;
    return n;
  }
  get ownerDocument() {
    return globalThis.document || null;
  }
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  append(...kids) {
    for (const k of kids) {
      const c = typeof k === "string" ? new FakeText(k) : k;
      c.parentNode = this;
      this.childNodes.push(c);
    }
    return this;
  }
  *descendants() {
    for (const c of this.childNodes) {
      if (c.nodeType !== ELEMENT_NODE) continue;
      yield c;
      yield* c.descendants();
    }
  }
  // Selectors: a comma-separated list of tag names, [attr] and [attr="v"].
  querySelectorAll(selectors) {
    const tests = selectors.split(",").map((s) => s.trim()).map((s) => {
      const m = /^\[([\w-]+)(?:="([^"]*)")?\]$/.exec(s);
      if (m) return (el) => el.hasAttribute(m[1]) && (m[2] === undefined || el.getAttribute(m[1]) === m[2]);
      if (/^[a-z][\w-]*$/i.test(s)) return (el) => el.localName === s.toLowerCase();
      throw new Error("fakedom: selector " + s);
    });
    return [...this.descendants()].filter((el) => tests.some((t) => t(el)));
  }
  querySelector(selectors) {
    if (selectors === ":scope > title") return this.childNodes.find((c) => c.localName === "title") || null;
    return this.querySelectorAll(selectors)[0] || null;
  }
}

class FakeText extends FakeNode {
  constructor(text) {
    super(TEXT_NODE);
    this.nodeValue = text;
  }
  get textContent() {
    return this.nodeValue;
  }
}

const STYLE = { display: "block", visibility: "visible", pointerEvents: "auto", cursor: "auto", content: "none" };
const INLINE = new Set(["a", "span", "em", "strong", "code", "label", "input", "button", "select", "textarea", "iframe", "img", "b", "i"]);

class FakeElement extends FakeNode {
  // props: style (computed style facts), box ({x, y, width, height}), and
  // any element property (value, checked, disabled, type, href, …).
  constructor(tag, attrs = {}, props = {}) {
    super(ELEMENT_NODE);
    this.localName = tag.toLowerCase();
    this.tagName = tag === "svg" ? "svg" : tag.toUpperCase();
    this.attrs = new Map(Object.entries(attrs));
    const { style, box, ...rest } = props;
    this.computed = { ...STYLE, display: INLINE.has(this.localName) ? "inline" : "block", ...style };
    this.rect = { x: 0, y: 0, width: 100, height: 20, ...box };
    if (/^(input|textarea|select|button)$/.test(this.localName)) this.labels = [];
    if (this.localName === "input") this.type = (attrs.type || "text").toLowerCase();
    if (this.localName === "select") this.size = 0;
    this.id = attrs.id || "";
    Object.assign(this, rest);
  }
  get parentElement() {
    return this.parentNode && this.parentNode.nodeType === ELEMENT_NODE ? this.parentNode : null;
  }
  getAttribute(n) {
    return this.attrs.has(n) ? this.attrs.get(n) : null;
  }
  hasAttribute(n) {
    return this.attrs.has(n);
  }
  getAttributeNode(n) {
    if (!this.attrs.has(n)) return null;
    this.nodes = this.nodes || new Map();
    if (!this.nodes.has(n)) this.nodes.set(n, { name: n, value: this.attrs.get(n) });
    return this.nodes.get(n);
  }
  setAttribute(n, v) {
    this.attrs.set(n, String(v));
  }
  matches(sel) {
    if (sel === ":disabled") return !!this.disabled;
    throw new Error("fakedom: matches " + sel);
  }
  getBoundingClientRect() {
    return { ...this.rect };
  }
}

class FakeDocument extends FakeNode {
  constructor() {
    super(DOCUMENT_NODE);
    this.title = "";
    this.activeElement = null;
    this.hit = null; // what elementFromPoint returns: an element or (x, y) => element
  }
  get ownerDocument() {
    return null;
  }
  get defaultView() {
    return globalThis;
  }
  get documentElement() {
    return this.childNodes.find((c) => c.nodeType === ELEMENT_NODE) || null;
  }
  get body() {
    const html = this.documentElement;
    return (html && html.childNodes.find((c) => c.localName === "body")) || null;
  }
  getElementById(id) {
    return [...this.descendants()].find((el) => el.getAttribute("id") === id) || null;
  }
  elementFromPoint(x, y) {
    return typeof this.hit === "function" ? this.hit(x, y) : this.hit;
  }
}

// h builds an element: h("button", {id: "b"}, {box: {…}}, "Sign in", h(…)).
export function h(tag, attrs, props, ...kids) {
  return new FakeElement(tag, attrs || {}, props || {}).append(...kids);
}

// page makes a document of an <html> with a <body> holding kids.
export function page(title, ...kids) {
  const d = new FakeDocument();
  d.title = title;
  d.append(h("html", {}, {}, h("body", {}, {}, ...kids)));
  return d;
}

// install puts doc and a window with these metrics in place of the browser's,
// and returns what the content script sent and how to play the worker.
export function install(doc, { url = "https://mail.example.com/inbox", frames = [] } = {}) {
  const sent = [];
  const listeners = {};
  const g = globalThis;
  const onMessage = [];
  const ports = [];
  Object.assign(g, {
    document: doc,
    window: g,
    parent: g,
    frames,
    Node: { ELEMENT_NODE, TEXT_NODE, DOCUMENT_NODE },
    location: { href: url, origin: new URL(url).origin },
    history: { length: 3 },
    screenX: 0,
    screenY: 25,
    outerWidth: 1280,
    outerHeight: 775,
    innerWidth: 853,
    innerHeight: 487,
    devicePixelRatio: 1.5,
    scrollX: 0,
    scrollY: 120.5,
    visualViewport: { width: 853.3333129882812, height: 486.6666564941406, addEventListener() {} },
    getComputedStyle: (el, pseudo) => {
      const s = pseudo ? { ...STYLE, display: "inline" } : el.computed;
      return { ...s, getPropertyValue: (p) => s[p.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] ?? "" };
    },
    addEventListener: (type, fn) => (listeners[type] = listeners[type] || []).push(fn),
    MutationObserver: class {
      observe() {}
      takeRecords() {
        return [];
      }
    },
    chrome: {
      runtime: {
        id: "reins",
        sendMessage: async (msg) => void sent.push(msg),
        onMessage: { addListener: (fn) => onMessage.push(fn) },
        connect: () => {
          const port = { posted: [], onMessage: { addListener() {} }, onDisconnect: { addListener() {} } };
          port.postMessage = (m) => port.posted.push(m);
          ports.push(port);
          return port;
        },
      },
      dom: { openOrClosedShadowRoot: () => null },
    },
  });
  doc.documentElement.computed.display = "block";
  return {
    sent,
    ports,
    // ask sends a request the way a restarted worker does and returns the answer.
    ask(msg) {
      let answer;
      for (const fn of onMessage) fn(msg, { id: "reins" }, (a) => (answer = a));
      return answer;
    },
    // request sends a request the way a restarted worker does and resolves
    // with the answer, whether it comes at once or later.
    request(msg) {
      return new Promise((resolve) => {
        for (const fn of onMessage) fn(msg, { id: "reins" }, resolve);
      });
    },
    // fire dispatches an event to the window's listeners.
    fire(type, e) {
      for (const fn of listeners[type] || []) fn(e);
    },
  };
}
