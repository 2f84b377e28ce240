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
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/vocab"
)

func shopPage() coretest.Page {
	return coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Place order", 10, 10)),
	}}
}

// handoffRig is a terminal on an engine with one tab shared at Control and
// an agent allowed.
func handoffRig(t *testing.T) (e *coretest.Engine, tab string, agent agentdoor.Session, out *syncBuffer, typed *io.PipeWriter) {
	t.Helper()
	e = coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(3, shopPage())
	tab = e.WaitTab(t, "https://shop.example.com/")
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	in, typed := io.Pipe()
	out = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go (&Terminal{Engine: e, In: in, Out: out}).Run(ctx)
	out.waitFor(t, `Type "help"`)
	agent = coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"})
	return e, tab, agent, out, typed
}

func TestTheTerminalEndsAHandoffWithDone(t *testing.T) {
	e, tab, agent, out, typed := handoffRig(t)
	ctx := context.Background()
	h, err := agent.Handoff(ctx, agentdoor.HandoffRequest{Tab: tab, Reason: "Please log in"})
	if err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, `HAND-OFF `+h.ID+`  claude \(pid 4121\) · “Claude Code” hands you tab `+tab+` for a step of your own:\n`+
		`    the agent says “Please log in”\n    https://shop.example.com · “Cart — Shop”\n  Agents cannot act on the tab until you type: done `+h.ID+` \| stop `+h.ID+`\n`)
	io.WriteString(typed, "handoffs\n")
	out.waitFor(t, h.ID+`  tab `+tab+`  claude \(pid 4121\) · “Claude Code”: the agent says “Please log in”  \(https://shop.example.com · “Cart — Shop”`)
	// A bare done names no hand-off, and ends none.
	io.WriteString(typed, "done\n")
	out.waitFor(t, `usage: done ID`)
	if len(e.Handoffs()) != 1 {
		t.Fatal("a bare done ended the hand-off")
	}
	io.WriteString(typed, "done "+h.ID+"\n")
	r, err := agent.WaitHandoff(ctx, agentdoor.WaitOptions{Handoff: h.ID})
	if err != nil || r.HandoffState != agentdoor.HandoffDone {
		t.Fatalf("the agent's wait: %+v %v", r, err)
	}
	out.waitFor(t, `Hand-off `+h.ID+` is over\.`)
	io.WriteString(typed, "stop "+h.ID+"\n")
	out.waitFor(t, h.ID+`: that hand-off is no longer in progress`)
}

// Done with the tab on another site asks for that site, typed back.
func TestTheTerminalConfirmsTheSiteAHandoffEndsOn(t *testing.T) {
	e, tab, agent, out, typed := handoffRig(t)
	ctx := context.Background()
	h, err := agent.Handoff(ctx, agentdoor.HandoffRequest{Tab: tab, Reason: "Please log in"})
	if err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, `HAND-OFF `+h.ID)
	e.Browser.Load(3, coretest.Page{URL: "https://login.example.net/", Title: "Sign in", Frames: shopPage().Frames})
	e.WaitTab(t, "https://login.example.net/")
	io.WriteString(typed, "handoffs\n")
	out.waitFor(t, `shared on https://shop.example.com, now on https://login.example.net`)
	io.WriteString(typed, "done "+h.ID+"\n")
	out.waitFor(t, `The tab was shared on https://shop.example.com and now shows https://login.example.net\. To share it on https://login.example.net from now on, type: done `+h.ID+` https://login.example.net — or stop `+h.ID)
	io.WriteString(typed, "done "+h.ID+" https://elsewhere.example\n")
	out.waitFor(t, `The tab shows https://login.example.net, not https://elsewhere.example; nothing changed\.`)
	if len(e.Handoffs()) != 1 {
		t.Fatal("a Done on an unconfirmed site ended the hand-off")
	}
	io.WriteString(typed, "done "+h.ID+" https://login.example.net\n")
	r, err := agent.WaitHandoff(ctx, agentdoor.WaitOptions{Handoff: h.ID})
	if err != nil || r.HandoffState != agentdoor.HandoffDone || r.Origin != "https://login.example.net" {
		t.Fatalf("the agent's wait: %+v %v", r, err)
	}
	out.waitFor(t, `Tab `+tab+` is now shared: control`)
}

// The agent's reason is printed through the renderer: no escape, line
// break or bidi control of it reaches the terminal.
func TestAHandoffReasonOnTheTerminalIsRenderedLikeAllText(t *testing.T) {
	_, tab, agent, out, _ := handoffRig(t)
	reason := plaintest.All
	if len([]rune(reason)) > agentdoor.MaxHandoffReason {
		reason = string([]rune(reason)[:agentdoor.MaxHandoffReason])
	}
	h, err := agent.Handoff(context.Background(), agentdoor.HandoffRequest{Tab: tab, Reason: reason})
	if err != nil {
		t.Fatal(err)
	}
	block := out.waitFor(t, `(?s)HAND-OFF `+h.ID+`.*?stop `+h.ID+`\n`)[0]
	if strings.ContainsAny(block, "\x1b\r\u202e\u200b") || regexp.MustCompile(`\n {4}the agent says`).FindAllString(block, -1) == nil {
		t.Fatalf("the hand-off block carries the agent's raw text:\n%q", block)
	}
	if n := strings.Count(block, "\n"); n != 4 {
		t.Fatalf("the block has %d lines, want 4:\n%s", n, block)
	}
}
