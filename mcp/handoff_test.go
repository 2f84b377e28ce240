package mcp

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

var handoffID = regexp.MustCompile(`hand-off (h\d{7})`)

// An agent hands the tab to the person and gets an id at once; its acts
// are refused handed_off; only the person's Done, through the person's
// door, lets them through again, and the wait says so.
func TestHandoffReturnsAtOnceAndWaitsForThePerson(t *testing.T) {
	r := newRig(t)
	if err := r.e.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	events, stop := r.e.Subscribe(64)
	defer stop()
	cs := r.client("Claude Code", claude)
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	button := mcptest.Ref(t, snap, "button", "Place order")

	out := mcptest.MustCall(t, cs, "browser_handoff", map[string]any{"reason": "Please sign in; I must not see your password."})
	m := handoffID.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "Only the person can finish it") {
		t.Fatalf("browser_handoff: %s", out)
	}
	id := m[1]
	var seen bool
	for !seen {
		ev := <-events
		seen = ev.Kind == persondoor.EventHandoff && ev.Detail == id
	}
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": button}, vocab.CodeHandedOff)
	out = mcptest.MustCall(t, cs, "browser_wait_for", map[string]any{"handoff": id, "time": 0.05})
	if !strings.Contains(out, "still with the person") {
		t.Fatalf("a wait before Done: %s", out)
	}
	waited := mcptest.Go(context.Background(), cs, "browser_wait_for", map[string]any{"handoff": id})
	if err := r.e.FinishHandoff(id, true, ""); err != nil {
		t.Fatal(err)
	}
	if res := mcptest.Await(t, "the wait on the hand-off", waited, nil); res.IsErr || !strings.Contains(res.Text, "Hand-off "+id+": done") {
		t.Fatalf("the wait after Done: %+v", res)
	}
	out = mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": button})
	if !strings.Contains(out, "Done: Click “Place order”") {
		t.Fatalf("a click after Done: %s", out)
	}
}

func TestOnlyThePersonFinishesAHandoff(t *testing.T) {
	r := newRig(t)
	cs := r.client("Claude Code", claude)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "browser_handoff" {
			if !strings.Contains(tool.Description, "Only the person can finish a hand-off") {
				t.Fatalf("browser_handoff does not say who ends it: %s", tool.Description)
			}
			return
		}
	}
	t.Fatal("no browser_handoff tool")
}

func TestAWaitOnAnUnknownHandoffIsRefused(t *testing.T) {
	r := newRig(t)
	cs := r.client("Claude Code", claude)
	mcptest.Refused(t, cs, "browser_wait_for", map[string]any{"handoff": "h1234567"}, vocab.CodeBadRequest)
	if err := r.e.SetShare(r.tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	mcptest.Refused(t, cs, "browser_handoff", map[string]any{"reason": "log in"}, vocab.CodeControlRequired)
}

// A client that asks for progress hears that the tab is still with the
// person while it waits.
func TestAWaitOnAHandoffReportsProgress(t *testing.T) {
	r := newRig(t)
	if err := r.e.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	was := progressEvery
	progressEvery = 20 * time.Millisecond
	defer func() { progressEvery = was }()
	progress := make(chan string, 64)
	srv := NewServer(ServerOptions{Agents: r.e.AgentDoor(), Process: claude, Settle: 20 * time.Millisecond, Logf: t.Logf})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "Claude Code", Version: "1.2"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	out := mcptest.MustCall(t, cs, "browser_handoff", map[string]any{"reason": "solve the captcha"})
	id := handoffID.FindStringSubmatch(out)[1]
	waited := make(chan string, 1)
	go func() {
		p := &sdk.CallToolParams{Name: "browser_wait_for", Arguments: map[string]any{"handoff": id}}
		p.SetProgressToken("wait-1")
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			waited <- "error: " + err.Error()
			return
		}
		waited <- mcptest.Text(res)
	}()
	if m := <-progress; m != "hand-off "+id+": still with the person" {
		t.Fatalf("progress %q", m)
	}
	if err := r.e.FinishHandoff(id, false, ""); err != nil {
		t.Fatal(err)
	}
	if got := <-waited; !strings.Contains(got, "Hand-off "+id+": stopped") {
		t.Fatalf("the wait after Stop: %s", got)
	}
}
