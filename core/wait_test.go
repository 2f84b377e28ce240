package core_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

func TestWaitForARefsState(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	box := &protocol.Node{Role: "checkbox", Name: "Remember me", ID: 1, Checked: "false", Box: &protocol.Rect{X: 10, Y: 10, W: 20, H: 20}}
	e.Browser.Open(5, coretest.Page{URL: "https://a.example/", Frames: []protocol.FrameReport{
		coretest.Frame(box, &protocol.Node{Role: "text", Text: "[ref=e1] [checked]"}),
	}})
	tab := e.WaitTab(t, "https://a.example/")
	e.SetShare(tab, vocab.ReadOnly)
	agent := e.Connect(vocab.Agent{Name: "a"})
	s, err := agent.Snapshot(context.Background(), tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`"Remember me" \[ref=(e\d+)\]`).FindStringSubmatch(s.Text)[1]
	ctx := context.Background()

	// Page text that quotes a ref and a state must not satisfy the wait.
	r, err := agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: tab, Ref: ref, State: "checked", Timeout: 300 * time.Millisecond})
	if err != nil || r.Met {
		t.Fatalf("an unchecked box was reported checked: %+v, %v", r, err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		e.Browser.Mutate(5, func(p *coretest.Page) { p.Frames[0].Root.Children[0].Checked = "true" })
	}()
	r, err = agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: tab, Ref: ref, State: "checked", Timeout: 5 * time.Second})
	if err != nil || !r.Met {
		t.Fatalf("the box was checked but the wait did not see it: %+v, %v", r, err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		e.Browser.Mutate(5, func(p *coretest.Page) { p.Frames[0].Root.Children = p.Frames[0].Root.Children[1:] })
	}()
	r, err = agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: tab, Ref: ref, State: "hidden", Timeout: 5 * time.Second})
	if err != nil || !r.Met {
		t.Fatalf("the box went but the wait did not see it: %+v, %v", r, err)
	}
	if _, err := agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: tab, Ref: ref, State: "shiny"}); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("an unknown state: got %v", err)
	}
}

// snapshotsAsked counts the snapshots the fake browser was asked for.
func snapshotsAsked(e *coretest.Engine) int {
	n := 0
	for _, c := range e.Browser.Calls() {
		if c == protocol.MethodSnapshot {
			n++
		}
	}
	return n
}

// A wait for an element of a role and name ends once one is on the page,
// with its line; a wait for the page to load, once the tab says it has.
func TestWaitForARoleAndNameAndForTheLoad(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	e.Browser.Open(5, coretest.Page{URL: "https://a.example/", Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Search", 10, 10))}})
	tab := e.WaitTab(t, "https://a.example/")
	e.SetShare(tab, vocab.ReadOnly)
	agent := e.Connect(vocab.Agent{Name: "a"})
	ctx := context.Background()

	type got struct {
		r   *agentdoor.WaitResult
		err error
	}
	wait := func(o agentdoor.WaitOptions, change func()) got {
		t.Helper()
		before := snapshotsAsked(e)
		done := make(chan got, 1)
		go func() {
			r, err := agent.WaitFor(ctx, o)
			done <- got{r, err}
		}()
		// The wait has looked at least once before the page changes.
		testenv.WaitFor(t, "the wait to read the tab", func() bool { return snapshotsAsked(e) > before })
		change()
		return <-done
	}
	g := wait(agentdoor.WaitOptions{Tab: tab, Role: "button", Name: "place ORDER", Timeout: 5 * time.Second}, func() {
		e.Browser.Mutate(5, func(p *coretest.Page) {
			p.Frames[0].Root.Children = append(p.Frames[0].Root.Children, coretest.Button(2, "Place order now", 10, 60))
		})
	})
	if g.err != nil || !g.r.Met || !strings.Contains(g.r.Matched, `button "Place order now"`) {
		t.Fatalf("the button appeared but the wait said %+v, %v", g.r, g.err)
	}
	r, err := agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: tab, Role: "link", Name: "Search", Timeout: 300 * time.Millisecond})
	if err != nil || r.Met {
		t.Fatalf("no link is on the page but the wait said %+v, %v", r, err)
	}

	e.Browser.SetStatus(5, "loading")
	testenv.WaitFor(t, "a wait for the load not to be met while the tab loads", func() bool {
		r, err := agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: tab, Loaded: true, Timeout: time.Millisecond})
		return err == nil && !r.Met
	})
	g = wait(agentdoor.WaitOptions{Tab: tab, Loaded: true, Timeout: 5 * time.Second}, func() { e.Browser.SetStatus(5, "complete") })
	if g.err != nil || !g.r.Met {
		t.Fatalf("the tab finished loading but the wait said %+v, %v", g.r, g.err)
	}
}
