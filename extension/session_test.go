package extension

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// TestSessionFollowsThePairingVectors runs session.js in node on the
// vectors the Go side is tested against: the same proofs, the same session
// key, the same sealed frames, and the same refusals of a changed, replayed,
// reordered or reflected message.
func TestSessionFollowsThePairingVectors(t *testing.T) {
	node := testenv.NeedCommand(t, "node")
	vectors, err := filepath.Abs(filepath.Join("..", "bridge", "protocol", "testdata", "pairing_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, "-e", sessionHarness, "session.js", vectors).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}

const sessionHarness = `
const fs = require("fs"), vm = require("vm"), assert = require("assert");
const [file, vectors] = process.argv.slice(1);
const ctx = { crypto: globalThis.crypto, TextEncoder };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(file, "utf8") + "\n;globalThis.ReinsSession = ReinsSession;", ctx, { filename: file });
const S = ctx.ReinsSession;
const v = JSON.parse(fs.readFileSync(vectors, "utf8"));
const t = { port: v.port, appNonce: v.appNonce, extensionNonce: v.extensionNonce, profile: v.profile };
const rejects = async (p, re, what) => {
  let err = null;
  try { await p; } catch (e) { err = e; }
  assert.ok(err, what + ": accepted");
  assert.match(err.message, re, what);
};

(async () => {
  assert.strictEqual(await S.extensionProof(v.secret, t), v.extensionProof);
  assert.strictEqual(await S.appProof(v.secret, t), v.appProof);
  const key = await S.sessionKey(v.secret, t);
  assert.strictEqual(S.hex(key), v.sessionKey);
  // The port is bound: the same hello over a relay's port proves nothing.
  assert.notStrictEqual(await S.appProof(v.secret, { ...t, port: v.port + 1 }), v.appProof);

  const toApp = v.sealed.filter((m) => m.direction === S.EXTENSION_TO_APP);
  const toExt = v.sealed.filter((m) => m.direction === S.APP_TO_EXTENSION);
  const mine = new S.Sealed(key, S.EXTENSION_TO_APP);
  for (const m of toApp) assert.strictEqual(await mine.seal(m.message), m.frame);
  for (const m of toExt) assert.strictEqual(await mine.open(m.frame), m.message);

  // Each refusal on a fresh session, and a session that refused once
  // refuses everything after.
  const fresh = () => new S.Sealed(key, S.EXTENSION_TO_APP);
  const [first, second] = toExt;
  const flip = first.frame.slice(0, -2) + (first.frame.at(-2) === "1" ? "2" : "1") + first.frame.at(-1);
  await rejects(fresh().open(flip), /failed its check/, "a changed byte");
  await rejects(fresh().open(first.frame.replace(/ [0-9a-f]{64}/, " " + "0".repeat(64))), /failed its check/, "a forged MAC");
  await rejects(fresh().open(second.frame), /out of order/, "the second message first");
  let s = fresh();
  await s.open(first.frame);
  await rejects(s.open(first.frame), /out of order/, "a replay");
  await rejects(s.open(second.frame), /already failed/, "anything after a refusal");
  await rejects(fresh().open(toApp[0].frame), /failed its check/, "the extension's own message reflected back");
  await rejects(fresh().open(first.message), /not sealed/, "a message without a seal");
  await rejects(new S.Sealed(new Uint8Array(32), S.EXTENSION_TO_APP).open(first.frame), /failed its check/, "another session's key");

  // Seals come out in the order they were asked for, however long each takes.
  s = new S.Sealed(key, S.EXTENSION_TO_APP);
  const frames = await Promise.all([s.seal("x".repeat(1 << 20)), s.seal("{}"), s.seal("[]")]);
  assert.deepStrictEqual(frames.map((f) => f.split(" ")[0]), ["1", "2", "3"]);
  console.log("session.js follows", v.sealed.length, "sealed vectors and refuses 8 kinds of bad frame");
})().catch((e) => { console.error(e); process.exit(1); });
`
