package core

import (
	"context"
	"strings"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/grounding"
)

// WaitOptions says what an agent waits for. With Text or Gone, the tab is
// read until the condition holds or Timeout passes; with neither, the wait is
// just Time.
type WaitOptions struct {
	Tab     string        // required with Text or Gone
	Text    string        // optional: wait until this text is on the page
	Gone    string        // optional: wait until this text is no longer on the page
	Time    time.Duration // optional: wait this long (at most MaxWait)
	Timeout time.Duration // optional: give up on Text or Gone after this; default and limit MaxWait
}

// MaxWait bounds every wait, so an agent's call always comes back.
const MaxWait = 30 * time.Second

// waitPoll is how often a tab is read while waiting on it.
const waitPoll = 250 * time.Millisecond

// WaitResult says how the wait ended.
type WaitResult struct {
	Met     bool          `json:"met"`
	Waited  time.Duration `json:"waited"`
	ID      string        `json:"snapshot,omitempty"` // the last snapshot read; its refs are the session's latest
	Matched string        `json:"matched,omitempty"`  // a line with Text
}

// WaitFor waits as o says. A wait on text reads the tab repeatedly but leaves
// one audit row, with how it ended.
func (s *Session) WaitFor(ctx context.Context, o WaitOptions) (*WaitResult, error) {
	start := s.e.opts.Now()
	if o.Text == "" && o.Gone == "" {
		if err := s.admitted(ctx); err != nil {
			return nil, s.refuse(ctx, audit.Entry{Agent: s.agent, Act: approvals.Act{Kind: approvals.Read}, Target: approvals.Target{Name: "wait"}}, err)
		}
		d := min(max(o.Time, 0), MaxWait)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &WaitResult{Met: true, Waited: d}, nil
	}
	timeout := o.Timeout
	if timeout <= 0 || timeout > MaxWait {
		timeout = MaxWait
	}
	what := "wait for " + quoteIf(o.Text)
	if o.Gone != "" {
		what = "wait for " + quoteIf(o.Gone) + " to go"
	}
	en := audit.Entry{Agent: s.agent, Act: approvals.Act{Kind: approvals.Read}, Target: approvals.Target{Tab: o.Tab, Name: what}}
	deadline := time.Now().Add(timeout)
	res := &WaitResult{}
	for {
		snap, _, err := s.snapshot(ctx, o.Tab, &en)
		if err != nil {
			return nil, s.refuse(ctx, en, err)
		}
		res.ID = snap.ID
		if met, line := waitMet(snap, o); met {
			res.Met, res.Matched = true, line
			break
		}
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(waitPoll):
		case <-ctx.Done():
			return nil, s.refuse(ctx, en, ctx.Err())
		}
	}
	res.Waited = s.e.opts.Now().Sub(start)
	en.Outcome, en.Detail = OutcomeRead, "snapshot "+res.ID
	if !res.Met {
		en.Detail += "; gave up after " + res.Waited.Round(time.Millisecond).String()
	}
	s.e.record(ctx, en)
	return res, nil
}

func waitMet(snap *grounding.Snapshot, o WaitOptions) (bool, string) {
	if o.Text != "" {
		lines := snap.Find(o.Text, "")
		if len(lines) == 0 {
			return false, ""
		}
		if o.Gone == "" {
			return true, lines[0]
		}
	}
	if o.Gone != "" {
		return !strings.Contains(strings.ToLower(snap.Text), strings.ToLower(o.Gone)), ""
	}
	return false, ""
}
