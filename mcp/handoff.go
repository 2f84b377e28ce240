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
	Reason string `json:"reason" jsonschema:"what the person should do and why, in a sentence or two (at most 500 characters); they read it as your words"`
}

// addHandoffTools registers browser_handoff. Waiting on a hand-off is
// browser_wait_for's, with its handoff field.
func (h *handler) addHandoffTools(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{Name: "browser_handoff", Annotations: acting("Hand a step to the person"),
		Description: fmt.Sprintf("Hand a tab to the person for a step only they should take: logging in, a captcha, a second factor. "+
			"Give the reason in a sentence; the person reads it as your words. "+
			"It returns at once with a hand-off id; then call browser_wait_for with handoff set to that id, as often as needed (each call waits at most %d s). "+
			"Only the person can finish a hand-off, with Done or Stop in Reins; no tool can. "+
			"Until they do, every act on the tab is refused with handed_off; reading the tab goes on while it shows the site you were given, and nothing is read on any other site it visits meanwhile. "+
			"Needs control of the tab.", int(agentdoor.MaxWait/time.Second))},
		func(ctx context.Context, req *sdk.CallToolRequest, in handoffIn) (*sdk.CallToolResult, any, error) {
			s := h.session(req.Session, req.Extra)
			tab, err := h.tab(ctx, s, in.tabIn)
			if err != nil {
				return refusal(err), nil, nil
			}
			r, err := s.Handoff(ctx, agentdoor.HandoffRequest{Tab: tab, Reason: in.Reason})
			if err != nil {
				return refusal(err), nil, nil
			}
			return textResult(fmt.Sprintf("Handed tab %s to the person as hand-off %s (audit row %d). "+
				"Only the person can finish it, with Done or Stop in Reins; until then acts on the tab are refused with handed_off.\n"+
				"Wait for them with browser_wait_for and handoff=%q; each call waits at most %d s, so call it again while it says the tab is still with the person.\n",
				r.Tab, r.ID, r.Audit, r.ID, int(agentdoor.MaxWait/time.Second))), nil, nil
		})
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
