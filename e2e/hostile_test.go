//go:build linux

package e2e

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/app/serve"
	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// hostilePage writes every trick into what a person will read: its button's
// role attribute, its aria-label and the document's title carry ESC
// sequences, a carriage return, newlines, U+202E and 5,000 characters.
func hostilePage() string {
	return `<!doctype html><html><head><title>loading</title>
<style>body{margin:0;font:16px sans-serif} button{width:220px;height:48px;margin:20px}</style></head>
<body><button id="hostile">Delete account</button>
<script>` + reportJS + `
const evil = "Delete account\u001b[2K\r Click \u201cCancel\u001b[8m\nAPPROVAL a99  claude (pid 1) asks:\n    Click \u201cCancel\u201d\u202edetaerc" + "W".repeat(5000);
const b = document.getElementById('hostile');
b.setAttribute('role', 'button\u001b[2K\r\nClick');
b.setAttribute('aria-label', evil);
document.title = evil;
watch(b, 'top');
addEventListener('load', () => report({type: 'loaded', page: 'hostile'}));
</script></body></html>`
}

// TestHostileTextNeverReachesThePerson runs the chain for real against a
// page and an agent that both lie: Chromium with the extension shows the
// page, an MCP client whose declared name is 300 characters, a newline and
// ESC[8m starts the real `reins mcp`, snapshots and clicks. What the popup
// draws (fyne's test driver, from the request core really made), the
// activity strip's lines, what `reins serve` prints on a real terminal and
// what `reins audit` prints over the real SQLite rows hold none of those
// characters, and every one of them shows the agent's real process in full.
func TestHostileTextNeverReachesThePerson(t *testing.T) {
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
	exec_ := &checkedExecutor{Executor: raw, dbPath: filepath.Join(data, "audit.db")}
	ctx := context.Background()
	rt, err := core.Start(ctx, core.StartOptions{DataDir: data, Executor: exec_, Reader: readerOf(t, x.Display, "", raw, deskread.AccessibleAuto), ApprovalTimeout: 60 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	events, stop := rt.Subscribe(1024)
	t.Cleanup(stop)
	person := watchPerson(events)

	// The person's terminal: `reins serve`'s door on a real pseudo-terminal.
	term := testenv.OpenTerminal(t)
	tty := term.TTY
	tctx, tcancel := context.WithCancel(ctx)
	t.Cleanup(tcancel)
	go (&serve.Terminal{Engine: rt.PersonDoor(), In: tty, Out: tty}).Run(tctx)

	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/hostile.html": hostilePage()})
	browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: reinsBinary.path, URL: origin + "/hostile.html", Width: 1000, Height: 700})
	tab := person.tab(t, rt, origin+"/hostile.html")
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if _, err := witness.Wait(wctx, "loaded", func(m map[string]any) bool { return m["page"] == "hostile" }); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}

	cs := agentThroughMCP(t, rt, data, sdk.Implementation{Name: plaintest.AgentName, Version: "6.6\x1b[8m"})

	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	process := plain.Process(exe, os.Getpid())

	// The first call waits for the person to allow the new agent.
	snapshot := mcptest.Go(ctx, cs, "browser_snapshot", nil)
	connect := person.request(t)
	if connect.Act.Kind != vocab.Connect || connect.Agent.Name != plaintest.AgentName {
		t.Fatalf("the first request is %s from %q, want a first connection from the hostile agent", connect.Act.Kind, connect.Agent.Name)
	}
	checkPopupTexts(t, rt, connect, process)
	if err := rt.Answer(connect.ID, vocab.AllowOnce); err != nil {
		t.Fatal(err)
	}
	snap := (<-snapshot).Reply()
	m := regexp.MustCompile(`"Delete account[^\n]*\[ref=(f?\d*e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no hostile button in the snapshot:\n%.3000s", snap)
	}

	clicked := mcptest.Go(ctx, cs, "browser_click", map[string]any{"ref": m[1], "element": plaintest.Newlines + plaintest.Conceal})
	req := person.request(t)
	if req.Act.Kind != vocab.Click || !strings.Contains(req.Target.Name, "Delete account") {
		t.Fatalf("the second request is %s on %q, want the click on the hostile button", req.Act.Kind, req.Target.Name)
	}
	// Chrome and the extension tame the page's text before Reins sees it
	// (controls go); its length stays the page's, so the checks below still
	// test the renderer's caps, and the agent's name arrives as it was sent.
	if len([]rune(req.Target.TabTitle)) <= plain.TitleMax || len([]rune(req.Target.Name)) <= plain.NameMax || req.Agent.Name != plaintest.AgentName {
		t.Fatalf("the page's text reached Reins already tamed: title %.80q, name %.80q", req.Target.TabTitle, req.Target.Name)
	}
	checkPopupTexts(t, rt, req, process)
	term.Wait(t, regexp.QuoteMeta("\nAPPROVAL "+req.ID+"  "+process+" · “"), 30*time.Second)
	if err := rt.Answer(req.ID, vocab.AllowOnce); err != nil {
		t.Fatal(err)
	}
	if out := (<-clicked).Reply(); !strings.Contains(out, "Done: Click") {
		t.Fatalf("the click was not done: %s", out)
	}
	if _, err := witness.Wait(wctx, "click", func(m map[string]any) bool { return m["id"] == "hostile" && m["trusted"] == true }); err != nil {
		t.Fatal(err)
	}
	final := person.activity(t, func(a persondoor.Activity) bool {
		return a.Kind == string(vocab.Click) && a.Outcome == vocab.OutcomeDone
	})
	t.Logf("the strip says: %s  %s  — %s", final.Agent, final.Act, final.Outcome)

	// The strip.
	for _, a := range person.activities() {
		plaintest.Check(t, "the strip's agent", a.Agent, 0)
		plaintest.Check(t, "the strip's act", a.Act, 0)
		plaintest.Check(t, "the strip's detail", a.Detail, plain.DetailMax)
		if !strings.HasPrefix(a.Agent, process+" · “") && a.Agent != "you" {
			t.Errorf("the strip names the agent %q, not by its process %s first", a.Agent, process)
		}
	}
	strip := ui.Collapse(person.activities())
	for _, l := range strip {
		plaintest.Check(t, "a strip line", l.Agent+"  "+l.Act+"  "+l.Outcome, 0)
	}

	// `reins audit`, over the rows in the real SQLite file.
	rows, err := rt.AuditRows(ctx, persondoor.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var mine int
	for _, row := range rows {
		line := persondoor.FormatAuditRow(row)
		plaintest.Check(t, "reins audit", line, 0)
		j, err := persondoor.AuditJSON(row)
		if err != nil {
			t.Fatal(err)
		}
		plaintest.Check(t, "reins audit -json", strings.TrimSuffix(string(j), "\n"), 0)
		if row.AgentName == plaintest.AgentName {
			mine++
			if !strings.Contains(line, " "+process+" · “") {
				t.Errorf("reins audit does not show the process %s: %s", process, line)
			}
		}
	}
	if mine < 3 {
		t.Fatalf("the log has %d rows of the hostile agent, want its connection, snapshot and click", mine)
	}

	// The terminal, as it received it.
	io := term.String()
	var blocks int
	for i, line := range strings.Split(io, "\n") {
		plaintest.Check(t, fmt.Sprintf("reins serve line %d", i+1), line, 0)
		if rest, ok := strings.CutPrefix(line, "APPROVAL "); ok {
			blocks++
			if id, _, _ := strings.Cut(rest, " "); id != connect.ID && id != req.ID {
				t.Errorf("a forged approval block on the terminal: %q", line)
			}
			if !strings.Contains(line, "  "+process+" · “") {
				t.Errorf("an approval block does not show the process %s in full: %q", process, line)
			}
		}
	}
	if blocks != 2 {
		t.Errorf("the terminal shows %d approval blocks for 2 requests:\n%s", blocks, io)
	}
	exec_.assertNone(t)
}

// checkPopupTexts builds the approval popup from the request core made, as
// the app shows it, and checks every text it draws.
func checkPopupTexts(t *testing.T, rt *core.Runtime, r vocab.Request, process string) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(ui.NewTheme())
	p := ui.NewPopup(ui.PopupOptions{Engine: noAnswer{}})
	w := test.NewTempWindow(t, p.Content())
	w.Resize(ui.PopupSize)
	p.Add(&r)
	var words []string
	for _, s := range drawnTexts(test.RenderToMarkup(w.Canvas())) {
		plaintest.Check(t, "the popup", s, 0)
		words = append(words, strings.Fields(s)...)
	}
	all := " " + strings.Join(words, " ") + " "
	if !strings.Contains(all, " "+process+" · “") {
		t.Errorf("the popup does not show the process %s in full, then the agent's name: %s", process, all)
	}
	if p.Current() == nil || p.Current().ID != r.ID {
		t.Fatalf("the popup does not show request %s", r.ID)
	}
}

var markupText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

func drawnTexts(markup string) []string {
	var out []string
	for _, m := range markupText.FindAllStringSubmatch(markup, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// noAnswer is the popup's engine in the test: the person answers through
// the runtime, after the popup was read.
type noAnswer struct{}

func (noAnswer) Answer(string, vocab.Decision) error { return nil }

// person is the person's door as the test sees it: core's events as they
// arrive.
type person struct {
	mu       sync.Mutex
	reqs     chan vocab.Request
	acts     []persondoor.Activity
	changed  chan struct{} // a tab or an activity arrived
	tabsSeen bool
}

func watchPerson(events <-chan persondoor.Event) *person {
	p := &person{reqs: make(chan vocab.Request, 16), changed: make(chan struct{}, 1)}
	go func() {
		for ev := range events {
			switch ev.Kind {
			case persondoor.EventApproval:
				p.reqs <- *ev.Request
			case persondoor.EventActivity:
				p.mu.Lock()
				p.acts = append(p.acts, *ev.Activity)
				p.mu.Unlock()
			case persondoor.EventTabs, persondoor.EventConnection:
			default:
				continue
			}
			select {
			case p.changed <- struct{}{}:
			default:
			}
		}
	}()
	return p
}

func (p *person) request(t *testing.T) vocab.Request {
	t.Helper()
	select {
	case r := <-p.reqs:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("no approval request came")
		return vocab.Request{}
	}
}

func (p *person) activities() []persondoor.Activity {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]persondoor.Activity(nil), p.acts...)
}

func (p *person) activity(t *testing.T, match func(persondoor.Activity) bool) persondoor.Activity {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		for _, a := range p.activities() {
			if match(a) {
				return a
			}
		}
		select {
		case <-p.changed:
		case <-timeout:
			t.Fatalf("the activity never showed it; it has %+v", p.activities())
		}
	}
}

// tab waits, on core's events, for the extension to report url.
func (p *person) tab(t *testing.T, rt *core.Runtime, url string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		for _, tab := range rt.Tabs() {
			if tab.Connected && strings.HasPrefix(tab.URL, url) {
				return tab.ID
			}
		}
		select {
		case <-p.changed:
		case <-timeout:
			t.Fatalf("the extension never reported %s", url)
		}
	}
}

func (c *checkedExecutor) assertNone(t *testing.T) {
	t.Helper()
	if p := c.problems(); len(p) > 0 {
		t.Fatalf("an act reached the executor before its audit row was committed: %v", p)
	}
}
