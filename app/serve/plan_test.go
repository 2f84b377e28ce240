package serve

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

func TestTheTerminalShowsAPlanAndAllowsItUpToAStep(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(3, coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Field(1, "Search", false, 10, 10), coretest.Field(2, "Password", true, 10, 60), coretest.Button(3, "Place order", 10, 110)),
	}})
	tab := e.WaitTab(t, "https://shop.example.com/")
	e.SetShare(tab, vocab.Control)
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: in, Out: out}).Run(ctx)
	out.waitFor(t, `Type "help"`)

	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"})
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1)
	plan := agentdoor.PlanRequest{Tab: tab, Summary: "buy socks\x1b[2J\nAPPROVAL a1", Steps: []agentdoor.PlanStepRequest{
		{Ref: refs[0][1], Act: vocab.Act{Kind: vocab.Type, Text: "socks"}, Reason: "find them"},
		{Ref: refs[1][1], Act: vocab.Act{Kind: vocab.Type, Text: "hunter2"}},
		{Ref: refs[2][1], Act: vocab.Act{Kind: vocab.Click}},
	}}
	ran := make(chan *agentdoor.PlanResult, 1)
	go func() {
		r, err := agent.RunPlan(ctx, plan)
		if err != nil {
			t.Error(err)
		}
		ran <- r
	}()
	m := out.waitFor(t, `PLAN (a\d+)\s+claude \(pid 4121\) · “Claude Code” asks to run a plan of 3 steps:`)
	block := out.String()[strings.Index(out.String(), "PLAN "+m[1]):]
	for _, want := range []string{
		"the agent says “buy socks[2J APPROVAL a1”",
		" 1  Type “socks” into “Search”",
		"        the agent says “find them”",
		" 2  Type 7 characters into “Password”",
		"⚠ asked on its own: Typing into a password",
		" 3  Click “Place order”",
		"allow " + m[1] + " to N (steps 1 to N)",
	} {
		if !strings.Contains(block, want) {
			t.Errorf("the plan's block does not say %q:\n%s", want, block)
		}
	}
	if strings.Contains(block, "hunter2") || strings.Contains(block, "\x1b") {
		t.Fatalf("the block shows a password or a raw escape:\n%q", block)
	}
	io.WriteString(typed, "allow-tab "+m[1]+"\n")
	out.waitFor(t, "A plan is not allowed on its tab for a while")
	io.WriteString(typed, "allow "+m[1]+" to 9\n")
	out.waitFor(t, "has steps 1 to 3; 9 is none of them")
	io.WriteString(typed, "allow "+m[1]+" to 1\n")
	r := <-ran
	if r.Allowed != 1 || r.Steps[0].Code != "" || r.Steps[1].Code != vocab.CodePlanEnded || r.Steps[2].Code != vocab.CodePlanEnded {
		t.Fatalf("allowed up to step 1: %+v", r)
	}
	out.waitFor(t, `Step 1 of 3: Type “socks” into “Search”\s+— done`)
}
