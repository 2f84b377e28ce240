package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/a11ytest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// dialogPage raises each kind of dialog as soon as its button's click is
// through (a task of its own, which a page's timers, throttled in a window
// Chromium deems hidden, would hold back), and reports the page's answer
// through the witness.
const dialogPage = `<!doctype html><title>Dialogs</title>
<button onclick="soon(() => confirm('Delete the draft?'), 'confirm')">Ask confirm</button>
<button onclick="soon(() => prompt('Your name?', 'nobody'), 'prompt')">Ask prompt</button>
<script>
function soon(ask, kind) {
  const ch = new MessageChannel();
  ch.port1.onmessage = () => {
    const value = ask();
    fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'answer', kind, value})});
  };
  ch.port2.postMessage(0);
}
addEventListener('load', () => fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', page: 'dialogs'})}));
</script>`

// dialogRig is reinsOn on a desktop with an accessibility bus, and
// Chromium with its accessibility on, as a person using a screen reader
// has it: Chromium then shows its own dialogs on the bus. Unless full,
// Chromium's accessibility is only partly on (ACCESSIBILITY_ENABLED alone):
// its dialogs' windows show with their titles and nothing in them.
func dialogRig(t *testing.T, full bool) *rig {
	t.Helper()
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips, or fails under CI
	}
	reinsBinaryFor(t)
	desk := a11ytest.Start(t, a11ytest.Options{Screen: "1280x800x24", NoFixture: true})
	x, session := desk.X, desk.Session

	data := filepath.Join(t.TempDir(), "data")
	raw, err := executor.New(executor.Options{Display: x.Display})
	if err != nil {
		t.Fatal(err)
	}
	ex := &checkedExecutor{Executor: raw, dbPath: filepath.Join(data, "audit.db")}
	rd := readerOf(t, x.Display, session, raw, deskread.AccessibleAuto)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: data, Executor: ex, Reader: rd, ApprovalTimeout: 20 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	r := &rig{t: t, rt: rt, exec: ex, raw: raw, witness: browsertest.NewWitness(), data: data, scale: 1, display: x.Display, x: x, answer: &answerer{policy: "allow"}}
	t.Cleanup(r.answer.run(rt))
	r.origin = browsertest.Serve(t, r.witness, map[string]string{"/dialogs.html": dialogPage})
	var args []string
	if full {
		args = append(args, "--force-renderer-accessibility")
	}
	p, err := chromium.Launch(chromium.Options{
		Display: x.Display, Dir: t.TempDir(), Reins: reinsBinary.path, DataDir: data, URL: r.origin + "/dialogs.html",
		Width: 1000, Height: 700, Args: args,
		// Chromium finds the accessibility bus through the session bus.
		Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + session, "ACCESSIBILITY_ENABLED=1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.browser = &browsertest.Browser{Process: p}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(p.LogPath); err == nil {
				t.Logf("chromium log (tail):\n%s", tailOf(string(log), 3000))
			}
		}
	})
	r.assertNoProcessesLeft()
	r.tab = r.pairedTab(r.origin + "/dialogs.html")
	r.wait(context.Background(), "loaded", func(m map[string]any) bool { return m["page"] == "dialogs" })
	return r
}

// TestDialogConfirmAcceptedThroughMCP drives a page's confirm() through the
// real reins mcp: the agent's click makes the page ask; the agent's next
// snapshot is refused dialog_open, naming the dialog and its message; the
// agent accepts it, the person allows it, and the page itself reports true.
// The answer's row is committed before the key fires and ends done; a
// dismissed confirm gives false and a prompt answered with text gives that
// text. An agent that only reads the tab is refused, and nothing fires.
func TestDialogConfirmAcceptedThroughMCP(t *testing.T) {
	r := dialogRig(t, true)
	ctx := context.Background()
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e dialog agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	cs := agentThroughMCP(t, r.rt, r.data, sdk.Implementation{Name: "e2e dialog agent", Version: "1"})

	raise := func(t *testing.T, button string) {
		t.Helper()
		snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
		out := mcptest.MustCall(t, cs, "browser_click", map[string]any{"tab": r.tab, "ref": mcptest.Ref(t, snap, "button", button)})
		t.Logf("click %q: %s", button, out)
	}
	// refused waits for the dialog to be up: the agent's snapshot is
	// refused dialog_open, naming it.
	refused := func(t *testing.T, want string) string {
		t.Helper()
		var text string
		testenv.WaitWithin(t, 30*time.Second, "a snapshot refused dialog_open", func() bool {
			var isErr bool
			text, isErr = mcptest.Call(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
			return isErr && strings.HasPrefix(text, vocab.CodeDialogOpen+": ")
		})
		if !strings.Contains(text, want) || !strings.Contains(text, "browser_handle_dialog") {
			t.Errorf("the refusal %q does not name %q and browser_handle_dialog", text, want)
		}
		return text
	}

	t.Run("a confirm, accepted", func(t *testing.T) {
		raise(t, "Ask confirm")
		t0 := time.Now()
		text := refused(t, "confirm dialog; the page's message says “Delete the draft?”")
		t.Logf("refusal after %v: %s", time.Since(t0), text)
		fired := r.exec.fired.Load()
		out := mcptest.MustCall(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": true})
		if !strings.Contains(out, "Done: Press OK in the page's confirm; the page's message says “Delete the draft?”") {
			t.Errorf("the answer: %s", out)
		}
		m := regexp.MustCompile(`audit row (\d+)`).FindStringSubmatch(out)
		ans := r.wait(ctx, "answer", func(m map[string]any) bool { return m["kind"] == "confirm" })
		if ans["value"] != true {
			t.Errorf("the page's confirm() returned %v, want true", ans["value"])
		}
		if n := r.exec.fired.Load() - fired; n != 1 {
			t.Errorf("%d acts fired for the answer, want 1", n)
		}
		if errs := r.exec.problems(); len(errs) > 0 {
			t.Errorf("fired before its row was committed: %v", errs)
		}
		rows := r.auditRows(persondoor.AuditFilter{Act: string(vocab.Dialog)})
		if len(rows) != 2 || rows[1].Phase != "fire" || rows[0].Outcome != vocab.OutcomeDone || m == nil {
			t.Errorf("dialog rows %+v, want one fire row then done (answer %q)", rows, out)
		}
	})

	t.Run("a confirm, dismissed", func(t *testing.T) {
		r.witness.Reset("answer")
		raise(t, "Ask confirm")
		refused(t, "“Delete the draft?”")
		out := mcptest.MustCall(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": false})
		if !strings.Contains(out, "Done: Press Cancel in the page's confirm") {
			t.Errorf("the dismissal: %s", out)
		}
		if ans := r.wait(ctx, "answer", func(m map[string]any) bool { return m["kind"] == "confirm" }); ans["value"] != false {
			t.Errorf("the page's confirm() returned %v, want false", ans["value"])
		}
	})

	t.Run("a prompt, answered with text", func(t *testing.T) {
		raise(t, "Ask prompt")
		refused(t, "prompt dialog; the page's message says “Your name?”")
		out := mcptest.MustCall(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": true, "text": "Ada Lovelace"})
		if !strings.Contains(out, "Done: Answer the page's prompt with “Ada Lovelace” and press OK") {
			t.Errorf("the prompt's answer: %s", out)
		}
		if ans := r.wait(ctx, "answer", func(m map[string]any) bool { return m["kind"] == "prompt" }); ans["value"] != "Ada Lovelace" {
			t.Errorf("the page's prompt() returned %v, want the agent's text", ans["value"])
		}
	})

	t.Run("an agent without control", func(t *testing.T) {
		raise(t, "Ask confirm")
		refused(t, "“Delete the draft?”")
		if err := r.rt.SetShare(r.tab, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
		fired, asked := r.exec.fired.Load(), r.asked()
		mcptest.Refused(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": true}, vocab.CodeControlRequired)
		if r.exec.fired.Load() != fired || r.asked() != asked {
			t.Errorf("an agent with read only fired %d acts and asked %d times", r.exec.fired.Load()-fired, r.asked()-asked)
		}
		if got := r.witness.Events("answer"); len(got) != 2 {
			t.Errorf("the page answered %d times before the person did, want 2: %v", len(got), got)
		}
		// The person answers it themself; the page goes on.
		if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
			t.Fatal(err)
		}
		mcptest.MustCall(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": false})
		r.wait(ctx, "answer", func(m map[string]any) bool { return m["kind"] == "confirm" && m["value"] == false })
	})
}

// TestADialogReinsCannotReadIsSaidSoAndNotAnswered: with Chromium's
// accessibility only partly on, the dialog's window shows on the bus by its
// title alone. The agent is still told the page is stopped by a dialog,
// and that its message could not be read; answering it is refused, since
// nothing says the dialog holds the keyboard focus, and no key fires.
func TestADialogReinsCannotReadIsSaidSoAndNotAnswered(t *testing.T) {
	r := dialogRig(t, false)
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e dialog agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	cs := agentThroughMCP(t, r.rt, r.data, sdk.Implementation{Name: "e2e dialog agent", Version: "1"})
	snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
	mcptest.MustCall(t, cs, "browser_click", map[string]any{"tab": r.tab, "ref": mcptest.Ref(t, snap, "button", "Ask confirm")})
	t0 := time.Now()
	var text string
	// In this mode Chromium at times shows its dialog only 50 to 60 s after
	// the page asked for it (its own wait, on the accessibility bus).
	testenv.WaitWithin(t, 90*time.Second, "a snapshot refused dialog_open", func() bool {
		var isErr bool
		text, isErr = mcptest.Call(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
		return isErr && strings.HasPrefix(text, vocab.CodeDialogOpen+": ")
	})
	t.Logf("refused dialog_open %v after the click", time.Since(t0))
	if !strings.Contains(text, "a JavaScript dialog; Reins could not read its message") || strings.Contains(text, "Delete the draft") {
		t.Errorf("the refusal: %s", text)
	}
	fired, asked := r.exec.fired.Load(), r.asked()
	mcptest.Refused(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": true}, vocab.CodeNotVisible)
	if r.exec.fired.Load() != fired || r.asked() != asked {
		t.Errorf("fired %d acts and asked %d times for a dialog Reins cannot read", r.exec.fired.Load()-fired, r.asked()-asked)
	}
	if got := r.witness.Events("answer"); len(got) != 0 {
		t.Errorf("the page answered: %v", got)
	}
}
