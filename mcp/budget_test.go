package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// tableBrowser is fakeBrowser's tab showing an orders table: a "Grow"
// button, then rows rows of a checkbox "Select N" and a button "Delete N",
// and a footer link. A click makes the table 5,000 rows long.
type tableBrowser struct {
	*fakeBrowser
	rows atomic.Int64
}

func (b *tableBrowser) Call(ctx context.Context, profile, method string, params, out any) error {
	if method != protocol.MethodSnapshot {
		return b.fakeBrowser.Call(ctx, profile, method, params, out)
	}
	rows := int(b.rows.Load())
	if b.placed.Load() {
		rows = 5000
	}
	raw, _ := json.Marshal(tableSnapshot(rows))
	return json.Unmarshal(raw, out)
}

func tableSnapshot(rows int) protocol.SnapshotResult {
	id := 0
	el := func(role, name string, kids ...*protocol.Node) *protocol.Node {
		id++
		return &protocol.Node{Role: role, Name: name, ID: id, Box: ptr(boxOf(min(id, 10))), Children: kids}
	}
	grow := el("button", "Grow")
	var body []*protocol.Node
	for i := 1; i <= rows; i++ {
		n := strconv.Itoa(i)
		body = append(body, el("row", "Order "+n,
			el("cell", "", el("checkbox", "Select "+n)),
			el("cell", "Delete "+n, el("button", "Delete "+n)),
		))
	}
	kids := []*protocol.Node{
		grow,
		el("main", "", el("heading", "Orders"), el("table", "Orders", el("rowgroup", "", body...))),
		el("contentinfo", "", el("link", "Help")),
	}
	return protocol.SnapshotResult{Tab: 7, Zoom: 1, Frames: []protocol.FrameReport{{
		Frame: 0, Parent: -1, Index: -1, URL: pageURL, Origin: "https://shop.example.com", Doc: "d1",
		Viewport: viewport, Window: window, Root: &protocol.Node{Role: "document", Children: kids},
	}}}
}

// newTableRig is newRig on a tableBrowser of rows rows.
func newTableRig(t *testing.T, rows int) *rig {
	t.Helper()
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	tb := &tableBrowser{fakeBrowser: newFakeBrowser()}
	tb.rows.Store(int64(rows))
	r := &rig{t: t, b: tb.fakeBrowser, exec: &executor.Fake{}, log: log, answer: vocab.AllowOnce}
	r.read = deskread.NewFake(r.exec)
	r.exec.BeforeFire = func(audit.Ticket) error {
		r.b.placed.Store(true)
		return nil
	}
	r.e = core.New(core.Options{Browser: tb, Audit: log, Executor: r.exec, Reader: r.read, ApprovalTimeout: 3 * time.Second, Logf: t.Logf})
	ctx, cancel := context.WithCancel(context.Background())
	go r.e.Run(ctx)
	events, stop := r.e.Subscribe(256)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				r.e.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	t.Cleanup(func() {
		stop()
		r.e.Close()
		cancel()
		log.Close()
	})
	r.b.push(bridge.EventConnected, nil)
	r.b.push(protocol.EventTabs, protocol.TabsResult{Tabs: []protocol.Tab{r.b.tab()}})
	testenv.WaitFor(t, "the fake tab to appear", func() bool {
		for _, tab := range r.e.Tabs() {
			if tab.Connected {
				r.tab = tab.ID
			}
		}
		return r.tab != ""
	})
	return r
}

func withinBudget(t *testing.T, what, answer string, budget int) {
	t.Helper()
	if len(answer) > budget {
		t.Errorf("%s is %d characters, over %d", what, len(answer), budget)
	}
}

var tableRefRe = regexp.MustCompile(`table "Orders" \[ref=(e\d+)\]`)

func TestDefaultSnapshotOfAHugeTableIsWithinTheBudgetAndSaysHowToReadTheRest(t *testing.T) {
	r := newTableRig(t, 5000)
	cs := r.client("Claude Code", claude)
	r.e.SetShare(r.tab, vocab.ReadOnly)
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	withinBudget(t, "the default snapshot", snap, agentdoor.DefaultBudget)
	t.Logf("the default snapshot, %d characters, ends:\n%s", len(snap), snap[len(snap)-900:])
	if len(snap) < agentdoor.DefaultBudget-agentdoor.AnswerRoom-200 {
		t.Errorf("the default snapshot is %d characters: the budget is not used", len(snap))
	}
	for _, w := range []string{"[the full snapshot is ", "Left out: ", "max_chars (-1 for no limit)", "find", `mode "viewport"`} {
		if !strings.Contains(snap, w) {
			t.Errorf("the snapshot does not say %q:\n%s", w, snap[len(snap)-1500:])
		}
	}
	m := tableRefRe.FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("the hint names no table:\n%s", snap[len(snap)-1500:])
	}
	shown := strings.Count(snap, `- button "Delete `)
	if shown == 0 || strings.Contains(snap, `"Delete 5000"`) {
		t.Fatalf("%d rows shown", shown)
	}
	// The hint's ref with no limit reads every row.
	all := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"ref": m[1], "max_chars": -1})
	if n := strings.Count(all, `button "Delete `); n != 5000 || strings.Contains(all, "Left out") {
		t.Errorf("the table's subtree with no limit shows %d rows", n)
	}
	// A larger budget reads more, and keeps to it.
	more := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"max_chars": 100_000})
	withinBudget(t, "a snapshot of max_chars 100000", more, 100_000)
	if n := strings.Count(more, `button "Delete `); n <= 2*shown {
		t.Errorf("max_chars 100000 shows %d rows, the default %d", n, shown)
	}
	// Every mode keeps to the budget.
	for _, mode := range []string{"full", "interactive", "viewport"} {
		withinBudget(t, "mode "+mode, mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"mode": mode}), agentdoor.DefaultBudget)
	}
	// A tiny budget still gives a well-formed, cut answer.
	tiny := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"max_chars": 300})
	if !strings.Contains(tiny, "cut at") {
		t.Errorf("max_chars 300:\n%s", tiny)
	}
}

var findHeadRe = regexp.MustCompile(`^Snapshot \S+ of tab \S+: (\d+) matching lines, best first; the first (\d+) are shown\.\n`)

func TestFindRanksAndCapsItsLinesAndSaysHowManyMatched(t *testing.T) {
	r := newTableRig(t, 5000)
	cs := r.client("Claude Code", claude)
	r.e.SetShare(r.tab, vocab.ReadOnly)
	found := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1"})
	withinBudget(t, `find "Delete 1"`, found, agentdoor.DefaultBudget)
	t.Logf("find, %d characters:\n%s\n…\n%s", len(found), found[:300], found[len(found)-400:])
	m := findHeadRe.FindStringSubmatch(found)
	if m == nil {
		t.Fatalf("find's first line: %s", found[:200])
	}
	lines := strings.Split(strings.TrimSuffix(found, "\n"), "\n")
	if !strings.HasPrefix(lines[1], `- button "Delete 1" [ref=`) || !strings.HasPrefix(lines[2], `- cell "Delete 1" [ref=`) {
		t.Errorf("the exact matches do not come first: %q", lines[1:3])
	}
	listed := strings.Count(found, "\n- ")
	if m[1] != "2222" || m[2] != strconv.Itoa(listed) {
		t.Errorf("find says %s matched and %s are shown; %d are listed", m[1], m[2], listed)
	}
	left := "[Left out: " + strconv.Itoa(2222-listed) + " of the 2222 matching lines (by role: 1111 button, 1111 cell). "
	if !strings.Contains(found, left) || !strings.Contains(found, "a role") || !strings.Contains(found, "max_chars (-1 for no limit)") {
		t.Errorf("find does not say what it left out (%s):\n%s", left, found[len(found)-500:])
	}
	all := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1", "max_chars": -1})
	if n := strings.Count(all, "\n- "); n != 2222 || strings.Contains(all, "Left out") {
		t.Errorf("find with no limit lists %d lines", n)
	}
	// The listed lines are the first of the ranked whole.
	if !strings.HasPrefix(all[strings.Index(all, "\n"):], found[strings.Index(found, "\n"):strings.Index(found, "[Left out")]) {
		t.Error("the capped lines are not the first of all the matches")
	}
	narrow := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1234", "role": "button"})
	if !strings.Contains(narrow, ": 1 matching lines.\n- button \"Delete 1234\" [ref=") || strings.Contains(narrow, "Left out") {
		t.Errorf("a narrow find:\n%s", narrow)
	}
}

func TestActAndDiffAnswersOnAPageThatGrewAreWithinTheBudget(t *testing.T) {
	r := newTableRig(t, 3)
	cs := r.client("Claude Code", claude)
	r.e.SetShare(r.tab, vocab.Control)
	small := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	if strings.Contains(small, "Left out") {
		t.Fatalf("a small page is cut:\n%s", small)
	}
	grow := mcptest.Ref(t, small, "button", "Grow")
	// The click makes the table 5,000 rows long: what changed is cut to
	// the act's budget, and says how to read the page.
	out := mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": grow})
	withinBudget(t, "the click's answer", out, agentdoor.ChangesBudget+agentdoor.AnswerRoom)
	t.Logf("the click's answer, %d characters:\n%s\n…\n%s", len(out), out[:200], out[len(out)-500:])
	if !strings.Contains(out, "what changed is ") || !strings.Contains(out, "more changed lines were left out") || !strings.Contains(out, "browser_snapshot") {
		t.Errorf("the click's answer does not say what was left out:\n%s", out)
	}
	// A diff asked for by the agent keeps to the default budget.
	r.b.placed.Store(false)
	mcptest.MustCall(t, cs, "browser_snapshot", nil)
	r.b.placed.Store(true)
	diff := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"diff": true})
	withinBudget(t, "a diff", diff, agentdoor.DefaultBudget)
	if !strings.Contains(diff, "more changed lines were left out") || strings.Contains(diff, "diff") {
		t.Errorf("the diff's hint:\n%s", diff[max(0, len(diff)-600):])
	}
}

// A session may set its own budget for snapshots and finds; a call's own
// max_chars still wins, 0 goes back to the default, and another session
// keeps the default.
func TestASessionSetsItsOwnBudget(t *testing.T) {
	r := newTableRig(t, 5000)
	cs := r.client("Claude Code", claude)
	other := r.client("Codex", claude)
	r.e.SetShare(r.tab, vocab.ReadOnly)
	if text, isErr := mcptest.Call(t, cs, "browser_set_max_chars", map[string]any{"max_chars": 100}); !isErr || !strings.Contains(text, "too small") {
		t.Errorf("a budget of 100: %q (error %v), want it refused as too small", text, isErr)
	}
	mcptest.MustCall(t, cs, "browser_set_max_chars", map[string]any{"max_chars": 12_000})
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	withinBudget(t, "a snapshot in a session of 12000", snap, 12_000)
	if len(snap) < 12_000-agentdoor.AnswerRoom-200 || !strings.Contains(snap, "Left out: ") {
		t.Errorf("a snapshot in a session of 12000 is %d characters", len(snap))
	}
	withinBudget(t, "a find in a session of 12000", mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "Delete 1"}), 12_000)
	if n := len(mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"max_chars": 30_000})); n <= 12_000 || n > 30_000 {
		t.Errorf("a call's own max_chars 30000 answered %d characters", n)
	}
	if n := len(mcptest.MustCall(t, other, "browser_snapshot", nil)); n <= 12_000 || n > agentdoor.DefaultBudget {
		t.Errorf("another session's snapshot is %d characters, want the default budget", n)
	}
	mcptest.MustCall(t, cs, "browser_set_max_chars", map[string]any{"max_chars": -1})
	if all := mcptest.MustCall(t, cs, "browser_snapshot", nil); strings.Count(all, `button "Delete `) != 5000 {
		t.Errorf("a session with no limit does not see every row")
	}
	mcptest.MustCall(t, cs, "browser_set_max_chars", map[string]any{"max_chars": 0})
	withinBudget(t, "a snapshot back at the default", mcptest.MustCall(t, cs, "browser_snapshot", nil), agentdoor.DefaultBudget)
}
