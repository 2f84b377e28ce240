package extension

import (
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// The strip where the tab is: a toolbar button whose click opens the side
// panel (no popup), and the panel page Chrome loads for it.
func TestManifestDeclaresTheBadgeAndSidePanel(t *testing.T) {
	m := readManifest(t)
	if m.Action == nil || m.Action.DefaultTitle == "" {
		t.Fatal("the manifest declares no action with a default title: there is no badge")
	}
	if m.Action.DefaultPopup != "" {
		t.Errorf("the action opens a popup (%s); its click must open the side panel", m.Action.DefaultPopup)
	}
	if m.SidePanel == nil || m.SidePanel.DefaultPath != "panel.html" {
		t.Fatalf("side_panel = %+v, want default_path panel.html", m.SidePanel)
	}
	if !slices.Contains(m.Permissions, "sidePanel") {
		t.Error("no sidePanel permission")
	}
	for _, f := range []string{"panel.html", "panel.js", "strip.js"} {
		if _, err := fs.Stat(Files(), f); err != nil {
			t.Errorf("%s is not embedded: %v", f, err)
		}
	}
	html, _ := fs.ReadFile(Files(), "panel.html")
	for _, src := range []string{`<script src="strip.js">`, `<script src="panel.js">`} {
		if !strings.Contains(string(html), src) {
			t.Errorf("panel.html lacks %s", src)
		}
	}
	// Extension pages may run only their own files.
	for _, tag := range regexp.MustCompile(`<script[^>]*>[^<]*`).FindAllString(string(html), -1) {
		if !regexp.MustCompile(`^<script src="[a-z]+\.js">$`).MatchString(tag) {
			t.Errorf("panel.html runs more than its own files: %q", tag)
		}
	}
	if regexp.MustCompile(`\son[a-z]+\s*=`).Match(html) {
		t.Error("panel.html carries inline script")
	}
	for file, script := range map[string]string{"worker/badge.js": "strip.js", "worker/pairing.js": "session.js"} {
		b, _ := fs.ReadFile(Files(), file)
		if !strings.Contains(string(b), `import "../`+script+`";`) {
			t.Errorf("%s does not load %s", file, script)
		}
	}
}

// The panel shows text the app rendered and pages wrote; it must never be
// parsed as markup.
func TestPanelWritesTextOnly(t *testing.T) {
	markup := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|srcdoc`)
	for _, f := range []string{"panel.js", "strip.js"} {
		b, err := fs.ReadFile(Files(), f)
		if err != nil {
			t.Fatal(err)
		}
		if loc := markup.FindIndex(b); loc != nil {
			t.Errorf("%s: %q: the panel writes strings with textContent only", f, b[loc[0]:loc[1]])
		}
	}
}

// TestStripReplaysTheGoldenEvents runs strip.js in node on the protocol's
// golden share, state and activity events: the same files the Go side
// decodes, so a field renamed on one side only fails here.
func TestStripReplaysTheGoldenEvents(t *testing.T) {
	node := testenv.NeedCommand(t, "node")
	golden, err := filepath.Abs(filepath.Join("..", "bridge", "protocol", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "-e", stripHarness, "strip.js", golden)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}

const stripHarness = `
const fs = require("fs"), path = require("path"), vm = require("vm"), assert = require("assert");
const [file, golden] = process.argv.slice(1);
const ctx = { URL };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(file, "utf8") + "\n;globalThis.ReinsStrip = ReinsStrip;", ctx, { filename: file });
const read = (f) => JSON.parse(fs.readFileSync(path.join(golden, f), "utf8"));
const m = new ctx.ReinsStrip.Model();
// Values from the script's own context have its prototypes: compare as JSON.
const same = (got, want) => assert.strictEqual(JSON.stringify(got), JSON.stringify(want));

// Before the bridge pairs, nothing is shared and events are not taken.
const shares = read("shares_event.json");
same(m.apply(shares.method, shares.params), []);
assert.strictEqual(m.badge(1843).text, "");
assert.strictEqual(m.view(1843).connected, false);

m.reset(true);
assert.strictEqual(m.apply(shares.method, shares.params), "all");
assert.strictEqual(m.badge(1843).text, "C");
assert.strictEqual(m.badge(1844).text, "R");
assert.strictEqual(m.badge(1845).text, "", "an unshared tab has no badge");
// A tab shared with one agent alone says so, by the name the app gave it.
const only = shares.params.tabs.find((t) => t.tab === 1843).agent;
assert.ok(only, "the golden shares tab 1843 with one agent");
assert.ok(m.badge(1843).title.includes(only + " alone"), m.badge(1843).title);
assert.ok(m.view(1843).levelWords.startsWith("Only " + only + " may read and act"), m.view(1843).levelWords);
assert.strictEqual(m.view(1844).levelWords, "Agents may read this tab.");
assert.strictEqual(m.badge(99).text, "", "a tab missing from the table is not shared");

// An older or repeated table never overrides a newer one.
const older = JSON.parse(JSON.stringify(shares.params));
older.seq = shares.params.seq - 1;
older.tabs = [];
same(m.apply("shares", older), []);
same(m.apply("shares", shares.params), []);
assert.strictEqual(m.badge(1843).text, "C");

const state = read("tab_state_event.json");
same(m.apply(state.method, state.params), [1843]);
const dot = m.badge(1843);
assert.strictEqual(dot.text, "\u2022");
assert.strictEqual(dot.color, "#1f5fd1");
assert.notStrictEqual(m.badge(1844).color, dot.color, "the waiting dot must stand apart from a level");
m.apply("tab.state", { tab: 1843, state: "idle" });
assert.strictEqual(m.badge(1843).text, "C");

const act = read("activity_event.json");
m.apply(act.method, act.params);
m.apply(act.method, act.params);
m.apply(act.method, { ...act.params, act: "Take a screenshot", outcome: "read", refused: false, time: act.params.time + 1000 });
const v = m.view(1845);
assert.strictEqual(v.level, "none");
assert.strictEqual(v.lines.length, 2, "two identical attempts in a row are one line");
assert.strictEqual(v.lines[0].act, "Take a screenshot", "newest first");
assert.strictEqual(v.lines[1].count, 2);
assert.strictEqual(v.lines[1].agent, act.params.agent);
assert.strictEqual(v.lines[1].outcome, act.params.outcome);
assert.strictEqual(v.lines[1].refused, true);

// The mirror of the shares: reads need read, acts need control, the tab
// must still show the site it was shared on, and a tab missing from the
// table is not shared.
assert.strictEqual(m.refusal(1843, "control", "https://shop.example.com/cart"), "");
assert.strictEqual(m.refusal(1843, "read", "https://shop.example.com/"), "");
assert.strictEqual(m.refusal(1844, "read", "https://mail.example.com/inbox"), "");
assert.match(m.refusal(1844, "control", "https://mail.example.com/inbox"), /read only/);
assert.match(m.refusal(1845, "read", "https://bank.example/"), /not shared/);
assert.match(m.refusal(99, "read", "https://bank.example/"), /not shared/);
assert.match(m.refusal(1843, "read", "https://evil.example/"), /no longer shows https:\/\/shop.example.com/);
assert.match(m.refusal(1843, "read", "https://shop.example.com.evil.example/"), /no longer shows/);
assert.match(m.refusal(1843, "read", "not a url"), /no longer shows/);
// A newer table that leaves a tab out takes its share away.
m.apply("shares", { seq: shares.params.seq + 1, paused: false, tabs: [{ tab: 1844, level: "read", origin: "https://mail.example.com" }] });
assert.match(m.refusal(1843, "read", "https://shop.example.com/"), /not shared/);
m.apply("shares", { ...shares.params, seq: shares.params.seq + 2 });

// A paused table; then the bridge drops: every badge goes.
m.apply("shares", { ...shares.params, seq: shares.params.seq + 3, paused: true });
assert.strictEqual(m.view(1843).paused, true);
assert.match(m.refusal(1843, "control", "https://shop.example.com/cart"), /paused/, "nothing is acted on while paused");
assert.strictEqual(m.refusal(1843, "read", "https://shop.example.com/"), "", "reading goes on while paused");
m.reset(false);
for (const t of [1843, 1844, 1845]) assert.strictEqual(m.badge(t).text, "");
assert.match(m.refusal(1843, "read", "https://shop.example.com/"), /not paired/, "nothing is shared without a connection");
m.reset(true);
assert.match(m.refusal(1843, "read", "https://shop.example.com/"), /not shared/, "nothing is shared before the first table");
console.log("strip.js replayed", ["shares_event.json", "tab_state_event.json", "activity_event.json"].join(", "));
`
