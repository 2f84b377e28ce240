package core_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
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
