package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// BenchmarkAgentTask runs the same scripted tasks through Reins' MCP door
// (`reins mcp`, with a person who allows every question) and through
// Playwright MCP's (bench/node_modules/@playwright/mcp, with its default
// options and with its most economical ones) on one Chromium, and prints a
// Markdown table per tool: the characters of every result's text, the
// calls, the median milliseconds per call, and the steps the page saw take
// effect, read afterwards from what the page's own handlers posted to the
// test server. The tasks: the checkout of twenty steps in one page, as
// single acts and (Reins) as one plan; and snapshot, find, click, snapshot
// on three long saved pages (REINS_TASK_PAGES, the corpus folder; their
// scripts are taken out and a click recorder put in, which also keeps a
// link from leaving the page). The whole task is one iteration; run it once:
//
//	go test -run '^$' -bench AgentTask -benchtime 1x ./e2e
func BenchmarkAgentTask(b *testing.B) {
	peer := needPlaywrightMCP(b)
	for b.Loop() {
		runAgentTask(b, peer)
	}
}

// longTaskPages are three of the corpus' largest pages and, on each, the
// link the task finds and clicks.
var longTaskPages = []struct{ file, link string }{
	{"yahoo-3.html", "About Our Ads"},
	{"guardian-1.html", "All writers"},
	{"wikipedia-2.html", "ASEAN Plus Six"},
}

// checkoutIDs are the element ids of checkoutSteps, in order: what the
// page's reports name.
var checkoutIDs = []string{"email", "password", "signin", "name", "company", "street", "number", "line2", "postcode",
	"city", "country", "phone", "save", "standard", "door", "gift", "promo", "apply", "terms", "order"}

// heldReports replaces the pages' report(): what the handlers saw is held
// in the page and posted only when the page is left, after the task, so
// that no request of the witness's own is part of any act (Playwright MCP
// waits up to 5 s for the requests an act started to finish).
const heldReports = `const held = [];
function report(m) {
  if (m.type === 'loaded') { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); return; }
  held.push(Object.assign({}, m, {run: location.search}));
}
addEventListener('pagehide', () => { for (const m of held) navigator.sendBeacon('/witness', JSON.stringify(m)); });`

// clickRecorder is put at the end of each long page: it reports the page
// loaded and every click, and keeps a link from leaving the page.
const clickRecorder = `<script>
` + heldReports + `
document.addEventListener('click', (e) => {
  const el = e.target.closest('a, button, input, [role]') || e.target;
  e.preventDefault();
  report({type: 'click', trusted: e.isTrusted, text: (el.textContent || el.value || '').replace(/\s+/g, ' ').trim().slice(0, 200)});
}, true);
window.addEventListener('load', () => report({type: 'loaded', page: location.pathname, run: location.search}));
</script>`

// leftPage is where each task ends, so that the task's page posts what it saw.
const leftPage = `<!doctype html><title>Between tasks</title><script>
fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', run: location.search})});
</script>`

var (
	pageScript = regexp.MustCompile(`(?is)<script\b[^>]*>.*?</script\s*>`)
	// An iframe whose src is a javascript: URL is made about:blank, as the
	// corpus benchmark does.
	scriptFrame = regexp.MustCompile(`(?i)(<iframe\b[^>]*?\bsrc\s*=\s*)("\s*javascript:[^"]*"|'\s*javascript:[^']*'|javascript:[^\s>]*)`)
)

// taskRun is what one tool returned and the page saw in one task.
type taskRun struct {
	task, tool         string
	calls, chars       int
	ms                 []time.Duration
	took, steps, asked int
	note               string
	slow               []string // the calls that took over 2 s
}

// taskAgent is one MCP client whose calls are counted into run.
type taskAgent struct {
	tool string
	cs   *sdk.ClientSession
	pw   bool // Playwright MCP: refs go in "target"
	run  *taskRun
}

func (a *taskAgent) call(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	t0 := time.Now()
	r := mcptest.Try(context.Background(), a.cs, tool, args)
	d := time.Since(t0)
	if r.Err != nil {
		t.Fatalf("%s %s: %v", a.tool, tool, r.Err)
	}
	a.run.calls++
	a.run.chars += utf8.RuneCountInString(r.Text)
	a.run.ms = append(a.run.ms, d)
	if d > 2*time.Second {
		what := tool
		if e, ok := args["element"]; ok {
			what += fmt.Sprintf(" %q", e)
		}
		a.run.slow = append(a.run.slow, fmt.Sprintf("%s %v", what, d.Round(time.Millisecond)))
	}
	if r.IsErr {
		code, _, _ := strings.Cut(r.Text, ":")
		a.run.note = strings.TrimSpace(a.run.note + " " + tool + " refused " + code)
		t.Logf("%s, %s: %s was refused: %s", a.run.task, a.tool, tool, r.Text)
	}
	return r.Text
}

// target is the arguments naming an element for the agent's tool.
func (a *taskAgent) target(ref, element string) map[string]any {
	if a.pw {
		return map[string]any{"target": ref, "element": element}
	}
	return map[string]any{"ref": ref, "element": element}
}

// taskPerson allows every question, a plan whole, and counts them.
type taskPerson struct {
	mu    sync.Mutex
	asked int
}

func (p *taskPerson) run(rt *core.Runtime) func() {
	events, stop := rt.Subscribe(64)
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			p.mu.Lock()
			p.asked++
			p.mu.Unlock()
			if q := ev.Request; q.Act.Kind == vocab.Plan {
				rt.PersonDoor().AnswerPlan(q.ID, len(q.Plan))
			} else {
				rt.Answer(q.ID, vocab.AllowOnce)
			}
		}
	}()
	return stop
}

func (p *taskPerson) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.asked
}

func runAgentTask(b *testing.B, peer playwrightMCP) {
	r := reinsOn(b, "1280x800x24", 20*time.Second)
	r.answer.set("silent")
	person := &taskPerson{}
	b.Cleanup(person.run(r.rt))

	checkout := strings.Replace(checkoutPage(), "function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }", heldReports, 1)
	if checkout == checkoutPage() {
		b.Fatal("the checkout page's report() is not the one this benchmark holds back; update heldReports")
	}
	files := map[string]string{"/checkout.html": checkout, "/left.html": leftPage}
	dir := os.Getenv("REINS_TASK_PAGES")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus", "pages")
	}
	var long []string
	for _, p := range longTaskPages {
		raw, err := os.ReadFile(filepath.Join(dir, p.file))
		if err != nil {
			b.Logf("the long pages are left out: %v (REINS_TASK_PAGES names the corpus folder)", err)
			long = nil
			break
		}
		page := scriptFrame.ReplaceAllString(pageScript.ReplaceAllString(string(raw), ""), `${1}"about:blank"`)
		if i := strings.LastIndex(strings.ToLower(page), "</body>"); i >= 0 {
			page = page[:i] + clickRecorder + page[i:]
		} else {
			page += clickRecorder
		}
		files["/"+p.file] = page
		long = append(long, p.file)
	}
	origin := browsertest.Serve(b, r.witness, files)
	first := origin + "/checkout.html?start"
	browser := browsertest.Start(b, browsertest.Options{X: r.x, DataDir: r.data, Reins: reinsBinary.path, URL: first, Width: 1200, Height: 780, DevTools: true,
		Args: []string{"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"}})
	who := vocab.Agent{Name: "task agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]}
	coretest.Admitted(b, r.rt.AgentDoor(), r.rt.PersonDoor(), who)
	var tab string
	testenv.WaitWithin(b, 30*time.Second, "the extension to report the tab", func() bool {
		for _, tb := range r.rt.Tabs() {
			if tb.Connected && tb.URL == first {
				tab = tb.ID
				return true
			}
		}
		return false
	})
	if err := r.rt.SetShare(tab, vocab.Control); err != nil {
		b.Fatal(err)
	}
	reins := agentThroughMCP(b, r.rt, r.data, sdk.Implementation{Name: who.Name, Version: who.Version})

	// Every task starts on a fresh page, opened outside the count.
	goTo := func(path, run string) {
		b.Helper()
		url := origin + path + run
		mcptest.MustCall(b, reins, "browser_navigate", map[string]any{"tab": tab, "url": url})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := r.witness.Wait(ctx, "loaded", func(m map[string]any) bool { return m["run"] == run }); err != nil {
			b.Fatalf("%s did not load: %v", url, err)
		}
	}
	runCount := 0
	// open starts a task on a fresh page and returns the run its reports name.
	open := func(path string) string {
		b.Helper()
		runCount++
		run := fmt.Sprintf("?run%d", runCount)
		goTo(path, run)
		r.witness.Reset("input")
		r.witness.Reset("click")
		return run
	}
	// seen leaves the task's page, waits, up to a few seconds in all, for
	// each report it should have posted, and counts those that came.
	seen := func(want []func(map[string]any) bool, typ []string) int {
		runCount++
		goTo("/left.html", fmt.Sprintf("?run%d", runCount))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n := 0
		for i, w := range want {
			if _, err := r.witness.Wait(ctx, typ[i], w); err == nil {
				n++
			}
		}
		return n
	}

	var runs []*taskRun
	checkoutTask := func(a *taskAgent, asPlan bool) {
		run := open("/checkout.html")
		asked := person.count()
		task := "checkout, single acts"
		if asPlan {
			task = "checkout, one plan"
		}
		a.run = &taskRun{task: task, tool: a.tool, steps: len(checkoutSteps)}
		snap := a.call(b, "browser_snapshot", nil)
		var plan []map[string]any
		var want []func(map[string]any) bool
		var typ []string
		for i, st := range checkoutSteps {
			ref := mcptest.Ref(b, snap, st.role, st.name)
			id := checkoutIDs[i]
			args := a.target(ref, st.name)
			if st.act.Kind == vocab.Type {
				args["text"] = st.act.Text
				value := st.act.Text
				if id == "password" {
					value = fmt.Sprint(len(value))
				}
				want = append(want, func(m map[string]any) bool { return m["run"] == run && m["id"] == id && m["value"] == value })
				typ = append(typ, "input")
			} else {
				want = append(want, func(m map[string]any) bool { return m["run"] == run && m["id"] == id })
				typ = append(typ, "click")
			}
			if asPlan {
				step := map[string]any{"action": string(st.act.Kind), "ref": ref, "element": st.name}
				if st.act.Text != "" {
					step["text"] = st.act.Text
				}
				plan = append(plan, step)
				continue
			}
			tool := "browser_click"
			if st.act.Kind == vocab.Type {
				tool = "browser_type"
			}
			a.call(b, tool, args)
		}
		if asPlan {
			a.call(b, "browser_run_plan", map[string]any{"summary": "fill in the checkout and place the order", "steps": plan})
		}
		if !a.pw {
			a.run.asked = person.count() - asked
		}
		a.run.took = seen(want, typ)
		runs = append(runs, a.run)
	}
	refIn := regexp.MustCompile(`\[ref=(f?\d*e\d+)\]`)
	longPage := func(a *taskAgent, file string, link string) {
		run := open("/" + file)
		a.run = &taskRun{task: "long page " + strings.TrimSuffix(file, ".html"), tool: a.tool, steps: 1}
		snap := a.call(b, "browser_snapshot", nil)
		var ref string
		if a.pw {
			// Playwright MCP has no find: the agent looks in the snapshot.
			if m := regexp.MustCompile(`- link "` + regexp.QuoteMeta(link) + `"[^\n]*\[ref=(f?\d*e\d+)\]`).FindStringSubmatch(snap); m != nil {
				ref = m[1]
			}
		} else {
			found := a.call(b, "browser_find", map[string]any{"text": link, "role": "link"})
			for _, l := range strings.Split(found, "\n") {
				if strings.Contains(l, `"`+link+`"`) {
					if m := refIn.FindStringSubmatch(l); m != nil {
						ref = m[1]
						break
					}
				}
			}
		}
		if ref == "" {
			a.run.note = "no ref for the link"
			runs = append(runs, a.run)
			return
		}
		a.call(b, "browser_click", a.target(ref, link))
		a.call(b, "browser_snapshot", nil)
		a.run.took = seen([]func(map[string]any) bool{func(m map[string]any) bool { return m["run"] == run && strings.Contains(fmt.Sprint(m["text"]), link) }}, []string{"click"})
		runs = append(runs, a.run)
	}
	sizes := map[string]int{}
	listSize := func(name string, cs *sdk.ClientSession) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(res.Tools)
		sizes[name] = len(raw)
		b.Logf("%s: %d tools, %d characters of JSON", name, len(res.Tools), len(raw))
	}

	// Reins first, with no other client attached to the browser.
	listSize("Reins", reins)
	ra := &taskAgent{tool: "Reins", cs: reins}
	checkoutTask(ra, false)
	checkoutTask(ra, true)
	for i, f := range long {
		longPage(ra, f, longTaskPages[i].link)
	}

	port, err := devToolsPort(browser.Profile)
	if err != nil {
		b.Fatal(err)
	}
	for _, pw := range []struct {
		name string
		args []string
	}{
		{"Playwright MCP (default)", nil},
		{"Playwright MCP (--snapshot-mode none --codegen none)", []string{"--snapshot-mode", "none", "--codegen", "none"}},
	} {
		pc := peer.connect(b, port, "task agent", pw.name, pw.args...)
		if pw.args == nil {
			listSize("Playwright MCP", pc)
		}
		pa := &taskAgent{tool: pw.name, cs: pc, pw: true}
		checkoutTask(pa, false)
		for i, f := range long {
			longPage(pa, f, longTaskPages[i].link)
		}
		pc.Close()
	}
	fmt.Print(taskTable(runs, sizes))
}

// taskTable is the runs as a Markdown table, and the tool lists' sizes.
func taskTable(runs []*taskRun, sizes map[string]int) string {
	var s strings.Builder
	s.WriteString("| task | tool | calls | characters returned | median ms per call | slowest call ms | total ms | steps that took effect | person asked |\n")
	s.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		var total, slowest time.Duration
		for _, d := range r.ms {
			total += d
			slowest = max(slowest, d)
		}
		asked := "—"
		if !strings.HasPrefix(r.tool, "Playwright") {
			asked = fmt.Sprint(r.asked)
		}
		took := fmt.Sprintf("%d of %d", r.took, r.steps)
		if r.note != "" {
			took += " (" + r.note + ")"
		}
		fmt.Fprintf(&s, "| %s | %s | %d | %d | %.0f | %d | %d | %s | %s |\n", r.task, r.tool, r.calls, r.chars, quantileMS(r.ms, 0.5), slowest.Milliseconds(), total.Milliseconds(), took, asked)
	}
	s.WriteString("\nCalls over 2 s:\n")
	for _, r := range runs {
		if len(r.slow) > 0 {
			fmt.Fprintf(&s, "- %s, %s: %s\n", r.task, r.tool, strings.Join(r.slow, "; "))
		}
	}
	fmt.Fprintf(&s, "\n`tools/list` (the tools array as JSON): Reins %d characters, Playwright MCP %d.\n", sizes["Reins"], sizes["Playwright MCP"])
	return s.String()
}
