package core_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

const ordersURL = "https://shop.example.com/orders"

// orders is a table of rows rows, each a checkbox "Select N" and a button
// "Delete N", after a button "Done" when done is set.
func orders(rows int, done bool) []*protocol.Node {
	var body []*protocol.Node
	for i := 1; i <= rows; i++ {
		n := strconv.Itoa(i)
		body = append(body, &protocol.Node{Role: "row", Name: "Order " + n, ID: 3 * i, Box: &protocol.Rect{W: 10, H: 10}, Children: []*protocol.Node{
			coretest.Field(3*i+1, "Select "+n, false, 10, 10),
			coretest.Button(3*i+2, "Delete "+n, 10, 10),
		}})
	}
	nodes := []*protocol.Node{{Role: "table", Name: "Orders", ID: 1, Box: &protocol.Rect{W: 10, H: 10}, Children: body}}
	if done {
		nodes = append([]*protocol.Node{coretest.Button(2, "Done", 10, 10)}, nodes...)
	}
	return nodes
}

func ordersTab(t *testing.T, rows int) (*coretest.Engine, *core.Session, string) {
	e := coretest.New(t, coretest.Options{})
	e.Browser.Open(5, coretest.Page{URL: ordersURL, Frames: []protocol.FrameReport{coretest.Frame(orders(rows, false)...)}})
	tab := e.WaitTab(t, ordersURL)
	e.SetShare(tab, vocab.ReadOnly)
	return e, e.Connect(vocab.Agent{Name: "a"}), tab
}

func TestAReadKeepsToTheDefaultBudgetUnlessAskedForMore(t *testing.T) {
	_, agent, tab := ordersTab(t, 5000)
	ctx := context.Background()
	r, err := agent.Read(ctx, agentdoor.ReadOptions{Tab: tab})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Text) > agentdoor.DefaultBudget || !r.Truncated || !strings.Contains(r.Hint, "Left out: ") || !strings.Contains(r.Hint, `table "Orders" [ref=e1]`) {
		t.Errorf("a default read: %d characters, truncated %v, hint %q", len(r.Text), r.Truncated, r.Hint)
	}
	all, err := agent.Read(ctx, agentdoor.ReadOptions{Tab: tab, MaxChars: agentdoor.NoBudget})
	if err != nil {
		t.Fatal(err)
	}
	if all.Truncated || strings.Count(all.Text, `button "Delete `) != 5000 {
		t.Errorf("a read with no budget is cut: %d characters, truncated %v", len(all.Text), all.Truncated)
	}
	small, err := agent.Read(ctx, agentdoor.ReadOptions{Tab: tab, MaxChars: 1000, Root: "e1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Text) > 1000 || !small.Truncated {
		t.Errorf("a subtree read within 1000 characters: %d, truncated %v", len(small.Text), small.Truncated)
	}
}

func TestChangesKeepToTheirBudgetAndShowWhatAppearedFirst(t *testing.T) {
	e, agent, tab := ordersTab(t, 5000)
	ctx := context.Background()
	if _, err := agent.Read(ctx, agentdoor.ReadOptions{Tab: tab}); err != nil {
		t.Fatal(err)
	}
	// Most of the page goes and one button comes: the cut diff still
	// shows the button.
	e.Browser.Mutate(5, func(p *coretest.Page) { p.Frames[0].Root.Children = orders(10, true) })
	ch, err := agent.Changes(ctx, tab, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Text) > agentdoor.ChangesBudget || !ch.Truncated || !strings.HasPrefix(ch.Text, `+ - button "Done" [ref=`) {
		t.Fatalf("changes: %d characters, truncated %v:\n%s", len(ch.Text), ch.Truncated, ch.Text[:min(300, len(ch.Text))])
	}
	went := 2*4990 + 4990 - strings.Count(ch.Text, "\n- ")
	for _, w := range []string{strconv.Itoa(went) + " more changed lines were left out", "what appeared first", "max_chars (-1 for no limit)"} {
		if !strings.Contains(ch.Hint, w) {
			t.Errorf("the hint does not say %q: %s", w, ch.Hint)
		}
	}
	// The diff was of the session's latest snapshot: the hint does not
	// send the agent to a second diff, which would be empty.
	if strings.Contains(ch.Hint, "diff") {
		t.Errorf("the hint: %s", ch.Hint)
	}
}

func TestFindGivesTheBestMatchesFirst(t *testing.T) {
	_, agent, tab := ordersTab(t, 200)
	r, err := agent.Find(context.Background(), tab, "delete 1", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Lines) != 111 || !strings.HasPrefix(r.Lines[0], `- button "Delete 1" [ref=`) || !strings.HasPrefix(r.Lines[1], `- button "Delete 10" [ref=`) {
		t.Errorf("find: %d lines, first %q", len(r.Lines), r.Lines[:2])
	}
}
