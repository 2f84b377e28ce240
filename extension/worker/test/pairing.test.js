// The pairing glue (worker/pairing.js): the golden handshake pairs for
// real, the sealed vectors pass both ways, what the app sends reaches the
// part of the worker it is for, and every way an app can fail to prove
// itself, or a connection can break, closes the socket and tries again.
// Imports ../pairing.js and the harness.
import assert from "node:assert/strict";
import { after, before, mock, test } from "node:test";
import { FakeSocket, Log, fakeChrome, golden, goldenText, handshake, install, settled, vectors } from "./harness.js";

const pair = () => ({ port: vectors.port, secret: vectors.secret });
const chrome = fakeChrome({ "runtime.sendNativeMessage": pair });
install(chrome);
const P = await import("../pairing.js");
const glue = { paired: new Log(), lost: new Log(), requests: new Log(), answers: new Log(), events: new Log() };
P.wire({
  paired: () => glue.paired.add(1),
  lost: () => glue.lost.add(1),
  request: (l, m) => glue.requests.add(m),
  answer: (m) => glue.answers.add(m),
  event: (method, params) => glue.events.add({ method, params }),
});

before(() => mock.timers.enable({ apis: ["setTimeout"] }));
after(() => mock.timers.reset());

// retried moves the clock past the retry delay and returns the socket
// pairing.js opens then.
async function retried() {
  const next = FakeSocket.next();
  mock.timers.tick(5000);
  return next;
}

test("the golden handshake pairs, and the vectors' sealed messages pass both ways", async () => {
  const app = await handshake(() => P.ensureConnected(), () => glue.paired.wait(1));
  assert.ok(P.linked(), "no link once the app proved itself");
  const asked = chrome.calls.filter((c) => c[0] === "runtime.sendNativeMessage");
  assert.deepEqual(asked, [["runtime.sendNativeMessage", "app.reins.bridge", { type: "pair" }]]);

  const [shares, snapshot] = vectors.sealed.filter((m) => m.direction === "app-to-extension").map((v) => (app.sock.receive(v.frame), JSON.parse(v.message)));
  await glue.requests.wait(1);
  app.sealed.sent = 2; // the vectors' two frames were the app's first
  assert.deepEqual([...glue.events], [{ method: shares.method, params: shares.params }]);
  assert.deepEqual([...glue.requests], [snapshot]);

  const mine = vectors.sealed.find((m) => m.direction === "extension-to-app");
  P.emit("tabs.changed", JSON.parse(mine.message).params);
  assert.deepEqual(await app.received(), [JSON.parse(mine.message)]);
  assert.equal(app.sock.sent.at(-1), mine.frame, "the extension's first sealed message is not the vector's");

  await app.deliver({ id: "p1", result: { ok: true } });
  await glue.answers.wait(1);
  assert.deepEqual([...glue.answers], [{ id: "p1", result: { ok: true } }]);
  assert.equal(app.sock.closed, null);
});

test("an answer over 16 MiB goes out as a too_large error; an event that large is dropped", async () => {
  const sock = FakeSocket.made.at(-1);
  const l = P.linked();
  const big = "é".repeat(9 << 20);
  P.send(l, { method: "tabs.changed", params: { big } });
  P.send(l, { id: "a9", result: { big } });
  const sent = await sock.nextSent();
  assert.match(sent, /\n\{"id":"a9","error":\{"code":"too_large",/);
  assert.match(sent, /^2 /, "the dropped event took a sequence number");
});

test("a changed frame closes the connection; the worker forgets the link, tells the rest and dials again", async () => {
  const sock = FakeSocket.made.at(-1);
  sock.receive(vectors.sealed[0].frame.replace('"paused":false', '"paused":true '));
  assert.equal((await sock.whenClosed).code, 4003);
  await glue.lost.wait(1);
  assert.equal(P.linked(), null);
  const before = sock.sent.length;
  P.emit("tabs.changed", { tabs: [] });
  await settled();
  assert.equal(sock.sent.length, before, "an event went out with no link");

  const next = await retried();
  assert.notEqual(next, sock);
  next.close(1006, "refused"); // nobody listens: the next try comes later
  await glue.lost.wait(2); // paired or not, a closed connection shares nothing
});

test("an app that does not prove itself gets the close and nothing about tabs", async () => {
  for (const [what, challenged, play] of [
    ["a wrong proof", true, (s) => s.receive(goldenText("welcome.json").replace(vectors.appProof, vectors.extensionProof))],
    ["an answer to another hello", true, (s) => s.receive(JSON.stringify({ ...golden("welcome.json"), id: "h00000000" }))],
    ["a second challenge", true, (s) => s.receive(goldenText("challenge.json"))],
    ["an oversized message", false, (s) => s.receive(JSON.stringify({ method: "challenge", params: { nonce: vectors.appNonce, pad: "x".repeat(5000) } }))],
    ["a request before the proof", false, (s) => s.receive(JSON.stringify({ id: "a1", method: "tabs", params: {} }))],
    ["not JSON", false, (s) => s.receive("{")],
  ]) {
    const sock = await retried();
    sock.open();
    if (challenged) {
      const hello = sock.nextSent();
      sock.receive(goldenText("challenge.json"));
      await hello;
    }
    play(sock);
    assert.equal((await sock.whenClosed).code, 4001, what);
    assert.equal(sock.sent.length, challenged ? 1 : 0, `${what}: more than the hello was sent`);
    assert.equal(P.linked(), null, what);
  }
  assert.equal(glue.paired.length, 1);
});

test("an app that keeps quiet is left after the handshake's time", async () => {
  const sock = await retried();
  sock.open();
  await settled();
  mock.timers.tick(4999);
  assert.equal(sock.closed, null);
  mock.timers.tick(1);
  assert.equal(sock.closed.code, 4002);
});

test("a bad pairing reply opens no socket and is tried again", async () => {
  const made = FakeSocket.made.length;
  for (const reply of [{ port: vectors.port, secret: "XYZ" }, { port: 70000, secret: vectors.secret }, { secret: vectors.secret }, undefined]) {
    const asked = new Promise((resolve) => {
      chrome.runtime.sendNativeMessage = async () => (resolve(), reply);
    });
    mock.timers.tick(5000);
    await asked;
    await settled();
    assert.equal(FakeSocket.made.length, made, `a socket was opened on ${JSON.stringify(reply)}`);
  }
  chrome.runtime.sendNativeMessage = async () => pair();
  const app = await handshake(
    () => mock.timers.tick(5000),
    () => glue.paired.wait(2)
  );
  assert.ok(app && P.linked(), "pairing did not resume once the reply was good");
});

test("timingSafeEqual compares whole strings only", () => {
  assert.equal(P.timingSafeEqual("ab", "ab"), true);
  assert.equal(P.timingSafeEqual("ab", "ac"), false);
  assert.equal(P.timingSafeEqual("ab", "abc"), false);
  assert.equal(P.timingSafeEqual(undefined, undefined), false);
  assert.equal(P.timingSafeEqual(1, 1), false);
});
