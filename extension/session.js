// Reins pairing and session: the proofs of the handshake and the seal on
// every message after it, as bridge/session.go computes them (the vectors in
// bridge/protocol/testdata/pairing_vectors.json bind the two).
// Pure: WebCrypto and text only, no chrome.* calls, so a test runs it in node.
"use strict";

const ReinsSession = (() => {
  const APP_TO_EXTENSION = "app-to-extension";
  const EXTENSION_TO_APP = "extension-to-app";
  const HEADER = /^([1-9][0-9]{0,15}) ([0-9a-f]{64})$/;
  const encoder = new TextEncoder();

  function hex(buf) {
    return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function unhex(s) {
    const out = new Uint8Array(s.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
    return out;
  }

  function hmacKey(raw, uses) {
    return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, uses);
  }

  // bound is what the proofs and the key cover after their label: the port
  // the extension dialled, both nonces and the profile the hello names. A
  // relay on another port changes the port, so nothing it passes on checks.
  function bound(label, t) {
    return `${label}\n${t.port}\n${t.appNonce}\n${t.extensionNonce}\n${t.profile}`;
  }

  async function mac(secretHex, text) {
    const key = await hmacKey(unhex(secretHex), ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
  }

  const extensionProof = async (secretHex, t) => hex(await mac(secretHex, bound("reins-extension", t)));
  const appProof = async (secretHex, t) => hex(await mac(secretHex, bound("reins-app", t)));
  const sessionKey = async (secretHex, t) => mac(secretHex, bound("reins-session", t));

  // Sealed seals what this side sends and opens what the other side sent:
  // "<seq> <mac>\n<message>", seq counting each direction's messages from
  // 1, mac = HMAC-SHA256(key, direction + "\n" + seq + "\n" + message).
  // Seal and open each return in the order they were called, so the numbers
  // go out and are checked in order.
  class Sealed {
    constructor(keyBytes, sendDir) {
      this.key = hmacKey(keyBytes, ["sign", "verify"]);
      this.sendDir = sendDir;
      this.recvDir = sendDir === EXTENSION_TO_APP ? APP_TO_EXTENSION : EXTENSION_TO_APP;
      this.sent = 0;
      this.received = 0;
      this.sealing = Promise.resolve();
      this.opening = Promise.resolve();
    }

    seal(text) {
      const seq = ++this.sent;
      const done = this.sealing.then(async () => {
        const sig = await crypto.subtle.sign("HMAC", await this.key, encoder.encode(`${this.sendDir}\n${seq}\n${text}`));
        return `${seq} ${hex(sig)}\n${text}`;
      });
      this.sealing = done.catch(() => {});
      return done;
    }

    // open resolves to the message a sealed frame carries, or rejects when
    // the frame was changed, forged, replayed, reordered or follows a lost
    // one; after a rejection nothing more from the connection is trusted.
    open(frame) {
      const done = this.opening.then(async () => {
        if (this.broken) throw new Error("the connection already failed a check");
        const fail = (why) => {
          this.broken = true;
          throw new Error(why);
        };
        if (typeof frame !== "string") fail("a message from Reins is not text");
        const nl = frame.indexOf("\n");
        const m = nl > 0 ? HEADER.exec(frame.slice(0, nl)) : null;
        if (!m) fail("a message from Reins is not sealed");
        const seq = Number(m[1]);
        const body = frame.slice(nl + 1);
        const ok = await crypto.subtle.verify("HMAC", await this.key, unhex(m[2]), encoder.encode(`${this.recvDir}\n${m[1]}\n${body}`));
        if (!ok) fail("a message from Reins failed its check: it was changed or forged");
        if (seq !== this.received + 1) fail(`a message from Reins came out of order (number ${seq} where ${this.received + 1} was due)`);
        this.received = seq;
        return body;
      });
      this.opening = done.catch(() => {});
      return done;
    }
  }

  return { APP_TO_EXTENSION, EXTENSION_TO_APP, hex, extensionProof, appProof, sessionKey, Sealed };
})();

// The service worker's modules import this file for its one global.
globalThis.ReinsSession = ReinsSession;
