package mcp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
)

type handoffIn struct {
	tabIn
	Reason string `json:"reason" jsonschema:"what the person should do and why, at most 500 characters, shown as your words"`
}

// browserHandoff hands a tab to the person. Waiting on a hand-off is
// browser_wait_for's, with its handoff field.
func (h *handler) browserHandoff(ctx context.Context, req *sdk.CallToolRequest, in handoffIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	r, err := s.Handoff(ctx, agentdoor.HandoffRequest{Tab: tab, Reason: in.Reason})
	if err != nil {
		return refusal(err)
	}
	return textResult(fmt.Sprintf("Handed tab %s to the person as hand-off %s (audit row %d). "+
		"Only the person can finish it, with Done or Stop in Reins; until then acts on the tab are refused with handed_off.\n"+
		"Wait for them with browser_wait_for and handoff=%q; each call waits at most %d s, so call it again while it says the tab is still with the person.\n",
		r.Tab, r.ID, r.Audit, r.ID, int(agentdoor.MaxWait/time.Second)))
}

// progressEvery is how often a wait on a hand-off tells a client that
// asked for progress that the tab is still with the person.
var progressEvery = 5 * time.Second

// waitHandoff is browser_wait_for on a hand-off. A client that gave a
// progress token hears every progressEvery that the person has not ended
// it yet; the wait itself is one call through the door, and one audit row.
func (h *handler) waitHandoff(ctx context.Context, req *sdk.CallToolRequest, in waitIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	type ended struct {
		r   *agentdoor.WaitResult
		err error
	}
	done := make(chan ended, 1)
	go func() {
		r, err := s.WaitHandoff(ctx, agentdoor.WaitOptions{Handoff: in.Handoff, Timeout: time.Duration(in.Time * float64(time.Second))})
		done <- ended{r, err}
	}()
	var tick <-chan time.Time
	token := req.Params.GetProgressToken()
	if token != nil {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		tick = t.C
	}
	for n := 1; ; n++ {
		select {
		case e := <-done:
			if e.err != nil {
				return refusal(e.err)
			}
			return textResult(formatHandoffWait(in.Handoff, e.r))
		case <-tick:
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(n),
				Message: "hand-off " + in.Handoff + ": still with the person"})
		}
	}
}

func formatHandoffWait(id string, r *agentdoor.WaitResult) string {
	waited := r.Waited.Round(10 * time.Millisecond)
	switch r.HandoffState {
	case agentdoor.HandoffDone:
		if r.Origin != "" {
			return fmt.Sprintf("Hand-off %s: done. The person pressed Done with the tab on %s, another site than before, and confirmed it: you may act on the tab there now. Take a new snapshot first.\n", id, r.Origin)
		}
		return fmt.Sprintf("Hand-off %s: done. The person pressed Done; you may act on the tab again. Take a new snapshot first.\n", id)
	case agentdoor.HandoffStopped:
		return fmt.Sprintf("Hand-off %s: stopped. The person pressed Stop: they did not take the step, or want you to stop. Check browser_tabs before going on.\n", id)
	case agentdoor.HandoffClosed:
		return fmt.Sprintf("Hand-off %s: the tab was closed.\n", id)
	}
	return fmt.Sprintf("Hand-off %s: still with the person after %s. Call browser_wait_for with handoff=%q again.\n", id, waited, id)
}
