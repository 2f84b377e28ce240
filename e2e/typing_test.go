package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

// paceText is what the pace measurements type: shifted characters, the
// same letter twice and three times running, and spaces, 300 characters.
var paceText = func() string {
	const line = "Hello, World! aa bb ccc The QUICK brown fox #42 jumps; ZZ zz? "
	s := strings.Repeat(line, 5)
	return s[:300]
}()

// paceSteps are the paces the measurement steps down through: each key
// held d and d between one key's release and the next's press.
var paceSteps = []time.Duration{10 * time.Millisecond, 5 * time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond, time.Millisecond, 0}

// pacedExecutor fires acts at the key pace last set, or the desktop's own.
type pacedExecutor struct {
	executor.Executor
	pace atomic.Pointer[executor.KeyPace]
}

func (p *pacedExecutor) Fire(ctx context.Context, t audit.Ticket) error {
	if kp := p.pace.Load(); kp != nil {
		ctx = executor.WithKeyPace(ctx, *kp)
	}
	return p.Executor.Fire(ctx, t)
}

// typingPage has a field whose own handlers count the keys (Shift aside)
// and the input that arrive; Enter reports them with the field's value and empties it.
const typingPage = `<!doctype html>
<html><head><title>Typing test page</title>
<style>body { margin: 0; font: 16px sans-serif; } input { width: 900px; margin: 20px; }</style></head>
<body>
<input id="field" aria-label="Pace field" autocomplete="off" spellcheck="false">
<script>
` + reportJS + `
const f = document.getElementById('field');
let keys = 0, inputs = 0;
f.addEventListener('keydown', (e) => {
  if (e.key === 'Shift') return;
  if (e.key !== 'Enter') { keys++; return; }
  report({type: 'typed', value: f.value, keys, inputs, trusted: e.isTrusted});
  keys = 0; inputs = 0; f.value = '';
});
f.addEventListener('input', () => inputs++);
addEventListener('load', () => report({type: 'loaded', page: 'typing'}));
</script>
</body></html>`

// typingRig is Reins on a real Chromium showing typingPage, with an agent
// through `reins mcp`.
type typingRig struct {
	rt      *core.Runtime
	exec    *pacedExecutor
	browser *browsertest.Browser
	witness *browsertest.Witness
	cs      *sdk.ClientSession
	origin  string
	tab     string
	answers *answerer
}

func startTypingRig(t testing.TB, devTools bool) *typingRig {
	t.Helper()
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1280x800x24")
	data := filepath.Join(t.TempDir(), "data")
	raw, err := executor.New(executor.Options{Display: x.Display})
	if err != nil {
		t.Fatal(err)
	}
	r := &typingRig{exec: &pacedExecutor{Executor: raw}, witness: browsertest.NewWitness(), answers: &answerer{policy: "allow-tab"}}
	r.rt, err = core.Start(context.Background(), core.StartOptions{DataDir: data, Executor: r.exec, ApprovalTimeout: 5 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.rt.Close() })
	t.Cleanup(r.answers.run(r.rt))
	r.origin = browsertest.Serve(t, r.witness, map[string]string{"/typing.html": typingPage})
	r.browser = browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: reinsBinary.path, URL: r.origin + "/typing.html", Width: 1200, Height: 780, DevTools: devTools})
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e typing agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	testenv.WaitWithin(t, 30*time.Second, "the extension to pair and report the tab", func() bool {
		for _, tb := range r.rt.Tabs() {
			if tb.Connected && strings.HasPrefix(tb.URL, r.origin+"/typing.html") {
				r.tab = tb.ID
				return true
			}
		}
		return false
	})
	r.wait(t, "loaded")
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	r.cs = agentThroughMCP(t, r.rt, data, sdk.Implementation{Name: "e2e typing agent", Version: "1"})
	return r
}

func (r *typingRig) wait(t testing.TB, typ string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	m, err := r.witness.Wait(ctx, typ, func(map[string]any) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// field is the ref of the page's field.
func (r *typingRig) field(t testing.TB) string {
	t.Helper()
	return mcptest.Ref(t, mcptest.MustCall(t, r.cs, "browser_snapshot", map[string]any{"tab": r.tab}), "textbox", "Pace field")
}

// typeInto types text into the page's field and presses Enter, and returns
// the answer and what the page's handlers counted.
func (r *typingRig) typeInto(t testing.TB, ref, text string) (answer string, got typedReport) {
	t.Helper()
	answer = mcptest.MustCall(t, r.cs, "browser_type", map[string]any{"tab": r.tab, "ref": ref, "text": text, "submit": true})
	m := r.wait(t, "typed")
	got.value, _ = m["value"].(string)
	keys, _ := m["keys"].(float64)
	got.keys = int(keys)
	return answer, got
}

// typedReport is what a field's own handlers saw arrive.
type typedReport struct {
	value string
	keys  int // key presses, Enter and Shift aside
}

// lost is how many of want's characters the field did not end up with: the
// length of want less that of the longest common subsequence of the two,
// counting a character typed twice as one lost too.
func lost(want, got string) int {
	a, b := []rune(want), []rune(got)
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	common := prev[len(b)]
	return len(a) - common + len(b) - common
}

// gtkField is a GTK 3 window with one text field on a display of its own,
// which counts the key presses that reach it, Shift aside, and says them, with the
// field's text, on Enter.
type gtkField struct {
	ex    executor.Executor
	lines chan string
	x, y  float64 // a point in the field, in pixels
}

const gtkFieldScript = `
import json, sys
import gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gdk, Gtk
w = Gtk.Window(title="Pace field")
w.set_default_size(700, 60)
e = Gtk.Entry()
w.add(e)
n = {'keys': 0}
def key(_w, ev):
    if ev.keyval not in (Gdk.KEY_Shift_L, Gdk.KEY_Shift_R):
        n['keys'] += 1
    return False
def activate(_e):
    print(json.dumps({'keys': n['keys'] - 1, 'value': e.get_text()}), flush=True)
    n['keys'] = 0
    e.set_text('')
e.connect('key-press-event', key)
e.connect('activate', activate)
w.connect('map-event', lambda *_: print('ready', flush=True))
w.connect('destroy', Gtk.main_quit)
w.show_all()
Gtk.main()
`

func startGTKField(t testing.TB) *gtkField {
	t.Helper()
	python := testenv.NeedCommand(t, "/usr/bin/python3")
	x := xvfb.StartT(t, "1280x800x24")
	script := filepath.Join(t.TempDir(), "field.py")
	if err := os.WriteFile(script, []byte(gtkFieldScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script)
	cmd.Env = append(os.Environ(), "DISPLAY="+x.Display, "GDK_BACKEND=x11", "NO_AT_BRIDGE=1", "GTK_IM_MODULE=gtk-im-context-simple", "GSETTINGS_BACKEND=memory")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	g := &gtkField{lines: make(chan string, 16), x: 300, y: 25}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			g.lines <- sc.Text()
		}
		close(g.lines)
	}()
	if line := g.next(t); line != "ready" {
		t.Fatalf("the GTK field said %q, want ready; stderr: %s", line, stderr.String())
	}
	if g.ex, err = executor.New(executor.Options{Display: x.Display}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.ex.Close() })
	return g
}

func (g *gtkField) next(t testing.TB) string {
	t.Helper()
	select {
	case line, ok := <-g.lines:
		if !ok {
			t.Fatal("the GTK field exited")
		}
		return line
	case <-time.After(testenv.Patience):
		t.Fatalf("the GTK field said nothing in %v", testenv.Patience)
	}
	return ""
}

// typeInto clicks the field, types text and Enter at pace (the desktop's
// own when nil), and returns what the field's handlers counted.
func (g *gtkField) typeInto(t testing.TB, text string, pace *executor.KeyPace) typedReport {
	t.Helper()
	ctx := context.Background()
	if pace != nil {
		ctx = executor.WithKeyPace(ctx, *pace)
	}
	tk := audit.TestOnlyDesktopTicket(vocab.Act{Kind: vocab.Type, Text: text, Submit: true}, audit.Landing{X: g.x, Y: g.y, Scale: 1})
	if err := g.ex.Fire(ctx, tk); err != nil {
		t.Fatalf("typing into the GTK field: %v", err)
	}
	var m struct {
		Keys  int    `json:"keys"`
		Value string `json:"value"`
	}
	if line := g.next(t); json.Unmarshal([]byte(line), &m) != nil {
		t.Fatalf("the GTK field said %q", line)
	}
	return typedReport{value: m.Value, keys: m.Keys}
}

// TestTypedKeysAllArrive types 300 characters, shifted ones and the same
// letter several times running among them, at the pace Reins types at,
// into a real Chromium field through `reins mcp` and into a GTK field: the
// fields' own handlers see every key and end up with the text, and the
// answer says how many characters were typed and how long it took.
func TestTypedKeysAllArrive(t *testing.T) {
	t.Run("chromium", func(t *testing.T) {
		r := startTypingRig(t, false)
		ref := r.field(t)
		for i := range 2 {
			answer, got := r.typeInto(t, ref, paceText)
			if got.value != paceText || got.keys != len(paceText) {
				t.Errorf("run %d: the page saw %d key presses and ended up with %q (%d characters lost), want %d and %q",
					i, got.keys, got.value, lost(paceText, got.value), len(paceText), paceText)
			}
			if !strings.Contains(answer, fmt.Sprintf("typed %d characters in ", len(paceText))) {
				t.Errorf("the answer does not say how long typing took:\n%s", answer)
			}
			t.Logf("answer: %s", firstLine(answer))
		}
	})
	t.Run("gtk", func(t *testing.T) {
		g := startGTKField(t)
		for i := range 2 {
			if got := g.typeInto(t, paceText, nil); got.value != paceText || got.keys != len(paceText) {
				t.Errorf("run %d: the field saw %d key presses and ended up with %q (%d characters lost), want %d and %q",
					i, got.keys, got.value, lost(paceText, got.value), len(paceText), paceText)
			}
		}
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// BenchmarkKeyPace steps the pace typing keeps down, each key held d and d
// between keys, and reports how many of 300 characters a real Chromium
// field and a GTK field lost at each: where keys start to drop. Run it
// with -benchtime=3x for three runs a pace:
//
//	go test -run '^$' -bench KeyPace -benchtime=3x ./e2e
func BenchmarkKeyPace(b *testing.B) {
	r := startTypingRig(b, false)
	ref := r.field(b)
	g := startGTKField(b)
	for _, d := range paceSteps {
		pace := executor.KeyPace{Hold: d, Gap: d}
		b.Run(fmt.Sprintf("chromium/%v", d), func(b *testing.B) {
			r.exec.pace.Store(&pace)
			defer r.exec.pace.Store(nil)
			dropped, runs := 0, 0
			for b.Loop() {
				_, got := r.typeInto(b, ref, paceText)
				dropped += lost(paceText, got.value) + abs(len(paceText)-got.keys)
				runs++
			}
			b.ReportMetric(float64(dropped)/float64(runs), "lost/run")
			b.Logf("Chromium, keys held %v, %v apart: %d characters or key presses lost in %d runs of %d", d, d, dropped, runs, len(paceText))
		})
		b.Run(fmt.Sprintf("gtk/%v", d), func(b *testing.B) {
			dropped, runs := 0, 0
			for b.Loop() {
				got := g.typeInto(b, paceText, &pace)
				dropped += lost(paceText, got.value) + abs(len(paceText)-got.keys)
				runs++
			}
			b.ReportMetric(float64(dropped)/float64(runs), "lost/run")
			b.Logf("GTK, keys held %v, %v apart: %d characters or key presses lost in %d runs of %d", d, d, dropped, runs, len(paceText))
		})
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// BenchmarkTypeAgainstPlaywrightMCP types 20 characters into a real
// Chromium field, from the call to the answer, through `reins mcp` at the
// pace Reins types at, at the pace it typed at before (each key held 10 ms,
// one after the other), and through Playwright MCP's browser_type on the
// same Chromium:
//
//	cd bench && npm ci
//	go test -run '^$' -bench TypeAgainstPlaywrightMCP -benchtime=20x ./e2e
func BenchmarkTypeAgainstPlaywrightMCP(b *testing.B) {
	const text = "Ada Lovelace, 1815!x" // 20 characters on the layout
	peer := needPlaywrightMCP(b)
	r := startTypingRig(b, true)
	port, err := devToolsPort(r.browser.Profile)
	if err != nil {
		b.Fatal(err)
	}
	pc := peer.connect(b, port, "bench agent", "Playwright MCP")
	defer pc.Close()
	reinsArgs := map[string]any{"tab": r.tab, "ref": r.field(b), "text": text}
	pwArgs := map[string]any{"target": mcptest.Ref(b, mcptest.MustCall(b, pc, "browser_snapshot", map[string]any{}), "textbox", "Pace field"), "element": "Pace field", "text": text}
	mcptest.MustCall(b, r.cs, "browser_type", reinsArgs) // the typing the person allows on the tab
	mcptest.MustCall(b, pc, "browser_type", pwArgs)
	before := executor.KeyPace{Hold: 10 * time.Millisecond}
	asked := askedSoFar(r.answers)
	var reins, input, old, pw []time.Duration
	typed := ""
	took := regexp.MustCompile(`typed 20 characters in ([0-9]+) ms`)
	for b.Loop() {
		t0 := time.Now()
		out := mcptest.MustCall(b, r.cs, "browser_type", reinsArgs)
		reins = append(reins, time.Since(t0))
		typed = firstLine(out)
		m := took.FindStringSubmatch(typed)
		if m == nil {
			b.Fatalf("the answer does not say how long the typing took: %q", typed)
		}
		ms, _ := strconv.Atoi(m[1])
		input = append(input, time.Duration(ms)*time.Millisecond)
		r.exec.pace.Store(&before)
		t0 = time.Now()
		mcptest.MustCall(b, r.cs, "browser_type", reinsArgs)
		old = append(old, time.Since(t0))
		r.exec.pace.Store(nil)
		t0 = time.Now()
		mcptest.MustCall(b, pc, "browser_type", pwArgs)
		pw = append(pw, time.Since(t0))
	}
	if n := askedSoFar(r.answers) - asked; n != 0 {
		b.Fatalf("the person was asked %d times during the timed typing", n)
	}
	b.ReportMetric(quantileMS(reins, 0.5), "reins-median-ms")
	b.ReportMetric(quantileMS(reins, 0.9), "reins-p90-ms")
	b.ReportMetric(quantileMS(input, 0.5), "reins-input-median-ms")
	b.ReportMetric(quantileMS(old, 0.5), "reins-10ms-held-median-ms")
	b.ReportMetric(quantileMS(pw, 0.5), "pw-median-ms")
	b.ReportMetric(quantileMS(pw, 0.9), "pw-p90-ms")
	b.Logf("20 characters, %d times each: Reins median %.0f ms, p90 %.0f ms, the input itself %.0f ms (at the old pace %.0f ms); Playwright MCP median %.0f ms, p90 %.0f ms; Reins answered %q",
		len(reins), quantileMS(reins, 0.5), quantileMS(reins, 0.9), quantileMS(input, 0.5), quantileMS(old, 0.5), quantileMS(pw, 0.5), quantileMS(pw, 0.9), typed)
}
