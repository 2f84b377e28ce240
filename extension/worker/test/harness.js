// A stand-in for what the service worker's modules meet in Chrome: the
// chrome.* areas they call, recording each call; a WebSocket the test plays
// the app on; and the app's side of the golden handshake
// (bridge/protocol/testdata), so a test pairs a real pairing.js with real
// proofs and seals. Imports ../../session.js.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { webcrypto } from "node:crypto";
import "../../session.js";

const S = globalThis.ReinsSession;
const golden = (f) => JSON.parse(readFileSync(new URL("../../../bridge/protocol/testdata/" + f, import.meta.url), "utf8"));
const goldenText = (f) => readFileSync(new URL("../../../bridge/protocol/testdata/" + f, import.meta.url), "utf8");
export { golden, goldenText };

export const vectors = golden("pairing_vectors.json");

// event is a chrome event: listeners added and removed, and fire() for the test.
export function event() {
  const listeners = [];
  return {
    listeners,
    addListener: (f) => listeners.push(f),
    removeListener: (f) => {
      const i = listeners.indexOf(f);
      if (i >= 0) listeners.splice(i, 1);
    },
    fire: (...args) => listeners.map((f) => f(...args)),
  };
}

function storage(init) {
  const data = { ...init };
  return {
    data,
    get: async (k) => (k in data ? { [k]: data[k] } : {}),
    set: async (o) => Object.assign(data, o),
  };
}

// fakeChrome is a chrome whose calls are recorded in calls (area.method and
// its arguments) and answer as answers says, by "area.method".
export function fakeChrome(answers = {}) {
  const calls = [];
  const area = (name, fixed = {}) =>
    new Proxy(fixed, {
      get(t, k) {
        if (k in t) return t[k];
        if (typeof k !== "string" || k === "then") return undefined;
        if (k.startsWith("on")) return (t[k] = event());
        return (t[k] = async (...args) => {
          calls.push([`${name}.${k}`, ...args]);
          const a = answers[`${name}.${k}`];
          return typeof a === "function" ? a(...args) : a;
        });
      },
    });
  const chrome = {
    calls,
    runtime: area("runtime", {
      id: "reinsid",
      getManifest: () => ({ version: "0.1.0" }),
      getURL: (p) => "chrome-extension://reinsid/" + p,
    }),
    storage: { local: storage({ profile: vectors.profile }), session: storage({ browserSession: golden("hello.json").params.browserSession }) },
  };
  for (const n of ["tabs", "windows", "webNavigation", "action", "sidePanel", "scripting", "alarms"]) chrome[n] = area(n);
  return chrome;
}

// FakeSocket is the WebSocket pairing.js dials; the test plays the app.
export class FakeSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 3;
  static made = [];
  static waiting = [];

  constructor(url) {
    this.url = url;
    this.readyState = FakeSocket.CONNECTING;
    this.sent = [];
    this.closed = null;
    this.waitingSent = [];
    this.listeners = { open: [], close: [] };
    this.whenClosed = new Promise((resolve) => (this.closedNow = resolve));
    FakeSocket.made.push(this);
    for (const w of FakeSocket.waiting.splice(0)) w(this);
  }
  static next() {
    return new Promise((resolve) => FakeSocket.waiting.push(resolve));
  }
  addEventListener(type, f) {
    this.listeners[type].push(f);
  }
  open() {
    this.readyState = FakeSocket.OPEN;
    for (const f of this.listeners.open.splice(0)) f();
  }
  send(data) {
    this.sent.push(data);
    for (const w of this.waitingSent.splice(0)) w(data);
  }
  nextSent() {
    return new Promise((resolve) => this.waitingSent.push(resolve));
  }
  close(code, reason) {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.readyState = FakeSocket.CLOSED;
    this.closed = { code, reason };
    this.closedNow(this.closed);
    for (const f of this.listeners.close.splice(0)) f();
    if (this.onclose) this.onclose();
  }
  receive(data) {
    this.onmessage({ data });
  }
}

// install puts the stand-ins where the modules look for them: chrome,
// WebSocket, navigator (a Chromium 138, as hello.json names it) and a
// crypto whose random bytes are the vectors' extension nonce.
export function install(chrome) {
  globalThis.chrome = chrome;
  globalThis.WebSocket = FakeSocket;
  Object.defineProperty(globalThis, "navigator", {
    configurable: true,
    value: { userAgent: "test", userAgentData: { brands: [{ brand: "Chromium", version: "138" }, { brand: "Not.A/Brand", version: "99" }] } },
  });
  const nonce = unhex(vectors.extensionNonce);
  Object.defineProperty(globalThis, "crypto", {
    configurable: true,
    value: {
      subtle: webcrypto.subtle,
      randomUUID: () => webcrypto.randomUUID(),
      getRandomValues: (a) => (a.length === nonce.length ? (a.set(nonce), a) : webcrypto.getRandomValues(a)),
    },
  });
}

// settled lets every pending promise and microtask run.
export const settled = () => new Promise((resolve) => setImmediate(resolve));

// Log is a list a test waits on: wait(n) resolves once it holds n items.
export class Log extends Array {
  static get [Symbol.species]() {
    return Array;
  }
  add(x) {
    this.push(x);
    for (const w of (this.waiters || []).splice(0)) w();
  }
  async wait(n) {
    while (this.length < n) await new Promise((resolve) => (this.waiters = [...(this.waiters || []), resolve]));
    return this;
  }
}

// App is the app's side of one paired connection: it seals what it sends
// and opens what the extension sent, with the vectors' session key.
export class App {
  constructor(sock) {
    this.sock = sock;
    this.sealed = new S.Sealed(unhex(vectors.sessionKey), S.APP_TO_EXTENSION);
    this.read = 0;
  }
  async deliver(obj) {
    this.sock.receive(await this.sealed.seal(typeof obj === "string" ? obj : JSON.stringify(obj)));
  }
  // received waits for n more messages from the extension and returns
  // every one sent since the last call, opened.
  async received(n = 1) {
    while (this.sock.sent.length < this.read + n) await this.sock.nextSent();
    const out = [];
    for (; this.read < this.sock.sent.length; this.read++) out.push(JSON.parse(await this.sealed.open(this.sock.sent[this.read])));
    return out;
  }
}

const unhex = (h) => Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16));

// handshake plays the app's part of the golden handshake on the next
// socket pairing.js opens, waits until paired() resolves (the glue's
// signal) and returns the App of the paired connection.
export async function handshake(connect, paired) {
  const next = FakeSocket.next();
  const done = connect();
  const sock = await next;
  assert.equal(sock.url, `ws://127.0.0.1:${vectors.port}/bridge`);
  sock.open();
  await done;
  return prove(sock, paired);
}

// prove plays the app's part of the golden handshake on an open socket.
export async function prove(sock, paired) {
  const hello = sock.nextSent();
  sock.receive(goldenText("challenge.json"));
  assert.deepEqual(JSON.parse(await hello), golden("hello.json"));
  sock.receive(goldenText("welcome.json"));
  await paired();
  assert.equal(sock.closed, null, "the extension closed the socket on the golden welcome");
  const app = new App(sock);
  app.read = sock.sent.length;
  return app;
}
