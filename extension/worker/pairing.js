// Pairing and the one connection to the Reins app: the per-install secret
// from native messaging, the WebSocket to 127.0.0.1 on the port it names,
// the handshake in which each side proves it knows the secret (bound to
// that port), and the seal on every message after it. What a paired
// connection brings is handed to the rest of the worker through wire().
// Imports session.js (for its ReinsSession).
import "../session.js";

const { ReinsSession } = globalThis;

const HOST = "app.reins.bridge";
const PROTOCOL_VERSION = 2;
const MAX_MESSAGE = 16 << 20;
const MAX_HANDSHAKE_MESSAGE = 4 << 10; // before the app has proved itself
const HANDSHAKE_MS = 5000; // a silent or slow squatter is left for a retry after this

let ws = null; // the socket, once open
let authed = false; // the app proved it knows the secret
let link = null; // {sock, sealed}: the paired connection, once authed
let connecting = null; // a pending connect()
let retryDelay = 500;
let retryTimer = null;

// glue is what pairing tells the rest of the worker, as sw.js wires it:
// paired() once the app proved itself, request(l, m) for each request the
// app sends, answer(m) for its answers to ours, event(method, params) for
// its events, and lost() whenever the connection closes, paired or not.
let glue = { paired() {}, request() {}, answer() {}, event() {}, lost() {} };

export function wire(g) {
  glue = g;
}

// linked is the paired connection, or null while there is none.
export function linked() {
  return link && authed ? link : null;
}

export function timingSafeEqual(a, b) {
  if (typeof a !== "string" || typeof b !== "string" || a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

async function profileId() {
  const { profile } = await chrome.storage.local.get("profile");
  if (profile) return profile;
  const id = crypto.randomUUID();
  await chrome.storage.local.set({ profile: id });
  return id;
}

// browserSessionId names this run of the browser. chrome.storage.session
// keeps it while the browser runs, through restarts of this worker, and
// forgets it when the browser quits: the app then drops the profile's tabs
// and their shares, since the new browser reuses the old one's tab ids.
async function browserSessionId() {
  const { browserSession } = await chrome.storage.session.get("browserSession");
  if (browserSession) return browserSession;
  const id = crypto.randomUUID();
  await chrome.storage.session.set({ browserSession: id });
  return id;
}

function browserName() {
  const brands = (navigator.userAgentData && navigator.userAgentData.brands) || [];
  const b = brands.find((x) => !/Not.?A.?Brand/i.test(x.brand) && x.brand !== "Chromium") || brands[0];
  return b ? `${b.brand} ${b.version}` : navigator.userAgent;
}

export function ensureConnected() {
  if (ws || connecting) return connecting;
  connecting = connect().finally(() => (connecting = null));
  return connecting;
}

function scheduleRetry() {
  if (retryTimer) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    ensureConnected();
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 5000);
}

async function pairing() {
  const reply = await chrome.runtime.sendNativeMessage(HOST, { type: "pair" });
  if (!reply || !reply.port || !/^[0-9a-f]{64}$/.test(reply.secret || "")) throw new Error("bad pairing reply");
  return reply;
}

async function connect() {
  let pair;
  try {
    pair = await pairing();
  } catch (e) {
    scheduleRetry(); // Reins is not installed or not running
    return;
  }
  const port = Number(pair.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    scheduleRetry();
    return;
  }
  const sock = new WebSocket(`ws://127.0.0.1:${port}/bridge`);
  const myNonce = ReinsSession.hex(crypto.getRandomValues(new Uint8Array(32)));
  let appNonce = null;
  let helloId = null;
  let transcript = null;
  ws = sock;
  authed = false;
  link = null;
  // Whatever listens on the port must prove itself in time; one that keeps
  // quiet is left, and the next try asks native messaging for the port again.
  const deadline = setTimeout(() => {
    if (ws === sock && !authed) sock.close(4002, "the app did not pair in time");
  }, HANDSHAKE_MS);

  // The handshake, one message at a time and in order; it reports true once
  // the app has proved itself, and closes the socket on anything else.
  async function handshake(data) {
    let m;
    try {
      if (typeof data !== "string" || data.length > MAX_HANDSHAKE_MESSAGE) throw new Error("oversized");
      m = JSON.parse(data);
    } catch {
      sock.close(4001, "the app did not prove itself");
      return false;
    }
    if (m && m.method === "challenge" && !m.id && !appNonce && /^[0-9a-f]{64}$/.test((m.params || {}).nonce || "")) {
      appNonce = m.params.nonce;
      helloId = "h" + myNonce.slice(0, 8);
      transcript = { port, appNonce, extensionNonce: myNonce, profile: await profileId() };
      sock.send(
        JSON.stringify({
          id: helloId,
          method: "hello",
          params: {
            version: PROTOCOL_VERSION,
            port,
            extension: chrome.runtime.getManifest().version,
            browser: browserName(),
            profile: transcript.profile,
            browserSession: await browserSessionId(),
            nonce: myNonce,
            proof: await ReinsSession.extensionProof(pair.secret, transcript),
          },
        })
      );
      return false;
    }
    if (helloId && m && m.id === helloId && m.result) {
      // Made over the port the app listens on: a relay's port gives another.
      const want = await ReinsSession.appProof(pair.secret, transcript);
      if (timingSafeEqual(m.result.proof, want)) {
        const key = await ReinsSession.sessionKey(pair.secret, transcript);
        link = { sock, sealed: new ReinsSession.Sealed(key, ReinsSession.EXTENSION_TO_APP) };
        authed = true;
        clearTimeout(deadline);
        retryDelay = 500;
        glue.paired();
        return true;
      }
    }
    sock.close(4001, "the app did not prove itself");
    return false;
  }

  let inbox = Promise.resolve();
  sock.onmessage = (ev) => {
    inbox = inbox.then(async () => {
      if (ws !== sock) return;
      if (!authed) {
        await handshake(ev.data);
        return;
      }
      let m;
      try {
        m = JSON.parse(await link.sealed.open(ev.data));
      } catch (e) {
        // Reins seals every message in order: this one came from something else.
        sock.close(4003, "a message failed its check");
        return;
      }
      if (!m || typeof m !== "object") return;
      if (m.id && m.method) glue.request(link, m);
      else if (m.id) glue.answer(m);
      else if (m.method) glue.event(m.method, m.params);
    });
  };
  sock.onclose = () => {
    clearTimeout(deadline);
    if (ws === sock) {
      ws = null;
      authed = false;
      link = null;
      glue.lost();
      scheduleRetry();
    }
  };
  sock.onerror = () => {};
  await new Promise((resolve) => {
    sock.addEventListener("open", resolve, { once: true });
    sock.addEventListener("close", resolve, { once: true });
  });
}

// send seals obj as the next message on the paired connection l. Sealing
// is asynchronous but keeps the order of the calls, and so does the socket.
export function send(l, obj) {
  let text = JSON.stringify(obj);
  // The app's limit is in bytes of UTF-8; a character may take three.
  if (text.length * 3 > MAX_MESSAGE && new TextEncoder().encode(text).length > MAX_MESSAGE) {
    if (!obj.id) return;
    text = JSON.stringify({ id: obj.id, error: { code: "too_large", message: "the answer is over 16 MiB" } });
  }
  l.sealed.seal(text).then((frame) => {
    if (l.sock.readyState === WebSocket.OPEN) l.sock.send(frame);
  });
}

export function emit(method, params) {
  if (link && authed) send(link, { method, params });
}
