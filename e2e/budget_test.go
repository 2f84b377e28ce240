package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

// tableRows is the size of the big page: a row per order, each with a
// checkbox and a "Delete N" button, 10,000 controls in all.
const tableRows = 5000

// tablePage is an orders page: a banner with a link, a table of tableRows
// rows of controls in the main landmark, and a footer link after it.
func tablePage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Orders</title>
<style>body{margin:0;font:14px sans-serif} td{padding:0 6px}</style></head><body>
<header><h1>Orders</h1><a href="/small.html">Home</a></header>
<main><h2>All orders</h2>
<table aria-label="Orders"><thead><tr><th>Order</th><th>Pick</th><th>Action</th></tr></thead><tbody>
`)
	for i := 1; i <= tableRows; i++ {
		fmt.Fprintf(&b, "<tr><td>Order %d</td><td><input type=checkbox aria-label=\"Select %d\"></td><td><button>Delete %d</button></td></tr>\n", i, i, i)
	}
	b.WriteString(`</tbody></table></main>
<footer><a href="/help.html">Help</a></footer>
<script>fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', page: 'table'})});</script>
</body></html>`)
	return b.String()
}

const smallPage = `<!doctype html><html><head><title>Start</title></head><body>
<h1>Start</h1><a href="/table.html">Orders</a>
<script>fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', page: 'small'})});</script>
</body></html>`

// TestBudgetOnAFiveThousandRowTable reads a page of 10,000 controls the way
// an agent does, through `reins mcp`: every answer it gets by default is
// within the budget and says what was left out, and following what it says
// reads the rest.
func TestBudgetOnAFiveThousandRowTable(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1280x800x24")
	data := filepath.Join(t.TempDir(), "data")
	ex, err := executor.New(executor.Options{Display: x.Display})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt, err := core.Start(ctx, core.StartOptions{DataDir: data, Executor: ex, Reader: readerOf(t, x.Display, "", ex, deskread.AccessibleAuto), ApprovalTimeout: 5 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	answers := &answerer{policy: "allow"}
	t.Cleanup(answers.run(rt))
	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/small.html": smallPage, "/table.html": tablePage()})
	browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: reinsBinary.path, URL: origin + "/small.html", Width: 1200, Height: 780})
	coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "e2e MCP agent", Version: "0.9", PID: os.Getpid(), Exe: os.Args[0]})
	var tab string
	testenv.WaitWithin(t, 30*time.Second, "the extension to pair and report the tab", func() bool {
		for _, tb := range rt.Tabs() {
			if tb.Connected && strings.HasPrefix(tb.URL, origin+"/small.html") {
				tab = tb.ID
				return true
			}
		}
		return false
	})
	waitLoaded := func(page string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := witness.Wait(wctx, "loaded", func(m map[string]any) bool { return m["page"] == page }); err != nil {
			t.Fatal(err)
		}
	}
	waitLoaded("small")
	if err := rt.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	cs := agentThroughMCP(t, rt, data, sdk.Implementation{Name: "e2e MCP agent", Version: "0.9"})
	within := func(what, answer string) {
		t.Helper()
		t.Logf("%s: %d characters", what, len(answer))
		if len(answer) > agentdoor.DefaultBudget {
			t.Errorf("%s is %d characters, over the budget of %d:\n%s", what, len(answer), agentdoor.DefaultBudget, tailString(answer, 2000))
		}
	}

	mcptest.MustCall(t, cs, "browser_snapshot", nil)
	// Opening the big page answers within an act's budget: what changed,
	// cut, or, while the page is too busy loading to report its tree in
	// time, that it could not be read.
	nav := mcptest.MustCall(t, cs, "browser_navigate", map[string]any{"url": origin + "/table.html"})
	within("browser_navigate to the table", nav)
	t.Logf("browser_navigate answered:\n%s", tailString(nav, 800))
	waitLoaded("table")
	if !strings.Contains(nav, "could not be read") && !strings.Contains(nav, "left out") && len(nav) > agentdoor.ChangesBudget+1000 {
		t.Errorf("the navigation's answer is long and says nothing was left out:\n%s", tailString(nav, 2000))
	}

	// The default snapshot: within the budget, saying what it left out.
	// A frame has 3 s to report its tree, and the first walk of 10,000
	// controls on a loaded machine may take longer; the agent's remedy is
	// to ask again, and so does the test.
	var snap string
	var t0 time.Time
	testenv.WaitWithin(t, 60*time.Second, "a snapshot of the table", func() bool {
		t0 = time.Now()
		text, isErr := mcptest.Call(t, cs, "browser_snapshot", nil)
		if isErr {
			t.Logf("browser_snapshot: %s", text)
			return false
		}
		snap = text
		return true
	})
	t.Logf("default browser_snapshot of %d controls through reins mcp: %v", 2*tableRows, time.Since(t0))
	within("the default browser_snapshot", snap)
	t0 = time.Now()
	found := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1"})
	t.Logf("browser_find \"Delete 1\": %v", time.Since(t0))
	within(`browser_find "Delete 1"`, found)
	if !strings.Contains(snap, `button "Delete 1" [ref=`) {
		t.Fatalf("the default snapshot does not start with the table's first rows:\n%s", tailString(snap, 2000))
	}
	m := regexp.MustCompile(`Left out: ([\d,]+) lines with ([\d,]+) refs, from (checkbox|button) "(?:Select|Delete) (\d+)"`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("the default snapshot does not say what it left out:\n%s", tailString(snap, 2000))
	}
	first, _ := strconv.Atoi(m[4])
	shown := strings.Count(snap, `- button "Delete `)
	if first != shown+1 {
		t.Errorf("the hint says the rest starts at row %d, but %d rows' buttons are shown", first, shown)
	}
	// Every left-out control (the rows' buttons and checkboxes), and the
	// footer with its link.
	leftOut := 2*(tableRows-shown) + 2
	if m[3] == "button" {
		leftOut-- // the last row shown lost only its button
	}
	if got := atoi(m[2]); got != leftOut {
		t.Errorf("the hint says %d refs were left out, want %d", got, leftOut)
	}
	tableRef := regexp.MustCompile(`table "Orders" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if tableRef == nil || !strings.Contains(snap, "find") || !strings.Contains(snap, "max_chars") || !strings.Contains(snap, "viewport") {
		t.Fatalf("the default snapshot does not say how to read the rest:\n%s", tailString(snap, 2000))
	}

	// Following the hint: the table's subtree without a limit has every row.
	rest := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"ref": tableRef[1], "max_chars": -1})
	t.Logf("the table's subtree with max_chars -1: %d characters", len(rest))
	if n := strings.Count(rest, `- button "Delete `); n != tableRows || !strings.Contains(rest, `checkbox "Select 5000"`) {
		t.Errorf("the table's subtree has %d Delete buttons, want %d", n, tableRows)
	}

	// find: ranked, capped, and saying how many matched.
	lines := strings.Split(strings.TrimSpace(found), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], `- button "Delete 1" [ref=`) {
		t.Errorf("find does not rank the exact match first:\n%s", tailString(found, 1000))
	}
	all := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1", "max_chars": -1})
	total := strings.Count(all, "\n- ")
	if !strings.Contains(found, fmt.Sprintf(": %d matching lines, best first; the first %d are shown.\n", total, strings.Count(found, "\n- "))) {
		t.Errorf("find does not say that %d lines match:\n%s", total, found[:min(len(found), 300)])
	}
	if total < 1111 {
		t.Errorf("find without a limit lists %d lines, want every Delete 1… button (1,111)", total)
	}
	narrow := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1234", "role": "button"})
	if !strings.Contains(narrow, ": 1 matching lines.\n") || !strings.Contains(narrow, `- button "Delete 1234" [ref=`) {
		t.Errorf("a narrow find:\n%s", narrow)
	}

	// An act's answer on the big page stays within the budget too.
	box := mcptest.Ref(t, snap, "checkbox", "Select 1")
	click := mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": box})
	within("browser_click on the table", click)
	t.Logf("browser_click answered:\n%s", tailString(click, 800))

	// Leaving the big page: what changed is most of it, cut to the act's
	// budget, with a hint.
	back := mcptest.MustCall(t, cs, "browser_navigate", map[string]any{"url": origin + "/small.html"})
	waitLoaded("small")
	within("browser_navigate away from the table", back)
	t.Logf("browser_navigate away answered (%d characters):\n%s", len(back), tailString(back, 800))
	if len(back) > agentdoor.ChangesBudget+agentdoor.AnswerRoom {
		t.Errorf("leaving the table answered %d characters, more than an act's budget", len(back))
	}
	if !strings.Contains(back, "could not be read") && !strings.Contains(back, "more changed lines were left out") {
		t.Errorf("leaving the table: the answer does not say what was left out:\n%s", tailString(back, 1500))
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}
