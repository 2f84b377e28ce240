package core

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// waitPoll is how often a tab is read while waiting on it.
const waitPoll = 250 * time.Millisecond

// WaitFor waits as o says. A wait on text reads the tab repeatedly but leaves
// one audit row, with how it ended.
func (s *Session) WaitFor(ctx context.Context, o agentdoor.WaitOptions) (*agentdoor.WaitResult, error) {
	if o.Handoff != "" {
		return s.WaitHandoff(ctx, o)
	}
	start := s.e.opts.Now()
	if o.Ref != "" && !slices.Contains(agentdoor.RefStates, o.State) {
		return nil, s.refuse(ctx, audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: o.Tab, Name: "wait"}},
			errorf(vocab.CodeBadRequest, "a wait on a ref needs a state: one of %s", strings.Join(agentdoor.RefStates, ", ")))
	}
	if o.Text == "" && o.Gone == "" && o.Ref == "" && o.Role == "" && !o.Loaded {
		if err := s.admitted(ctx); err != nil {
			return nil, s.refuse(ctx, audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Name: "wait"}}, err)
		}
		d := min(max(o.Time, 0), agentdoor.MaxWait)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &agentdoor.WaitResult{Met: true, Waited: d}, nil
	}
	timeout := o.Timeout
	if timeout <= 0 || timeout > agentdoor.MaxWait {
		timeout = agentdoor.MaxWait
	}
	what := "wait for " + quoteIf(o.Text)
	if o.Gone != "" {
		what = "wait for " + quoteIf(o.Gone) + " to go"
	}
	if o.Ref != "" {
		what = "wait for " + o.Ref + " to be " + o.State
	}
	if o.Role != "" {
		what = "wait for a " + plain.Text(o.Role, plain.NameMax)
		if o.Name != "" {
			what += " named " + quoteIf(o.Name)
		}
	}
	if o.Loaded {
		what = "wait for the page to load"
	}
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: o.Tab, Name: what}}
	deadline := time.Now().Add(timeout)
	res := &agentdoor.WaitResult{}
	var install func() // the last snapshot read's
	for {
		// The tab's state before the read: "complete" then means the read
		// is of the loaded page.
		loaded := false
		if o.Loaded {
			_, info, lerr := s.e.lookup(o.Tab)
			loaded = lerr == nil && info.Status == "complete"
		}
		snap, _, last, err := s.snapshot(ctx, o.Tab, &en)
		if err != nil {
			return nil, s.refuse(ctx, en, err)
		}
		install = last
		res.ID = snap.ID
		if met, line := waitMet(snap, o, loaded); met {
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
	en.Outcome, en.Detail = vocab.OutcomeRead, "snapshot "+res.ID
	if !res.Met {
		en.Detail += "; gave up after " + res.Waited.Round(time.Millisecond).String()
	}
	if err := s.e.recordRead(ctx, en); err != nil {
		return nil, err
	}
	install()
	return res, nil
}

func waitMet(snap *grounding.Snapshot, o agentdoor.WaitOptions, loaded bool) (bool, string) {
	if o.Loaded {
		return loaded, ""
	}
	if o.Role != "" {
		// The first in the page's order, so that the line shown is the one
		// an agent would pick.
		var found []string
		for ref, el := range snap.Elements {
			if strings.EqualFold(el.Role, o.Role) && strings.Contains(strings.ToLower(el.Name), strings.ToLower(o.Name)) {
				found = append(found, ref)
			}
		}
		if len(found) == 0 {
			return false, ""
		}
		slices.SortFunc(found, func(a, b string) int {
			return strings.Index(snap.Text, "[ref="+a+"]") - strings.Index(snap.Text, "[ref="+b+"]")
		})
		line, _ := refLine(snap.Text, found[0])
		return true, line
	}
	if o.Ref != "" {
		line, ok := refLine(snap.Text, o.Ref)
		has := func(mark string) bool {
			return strings.Contains(line, " ["+mark+"]") || strings.Contains(line, " ["+mark+"=")
		}
		var met bool
		switch o.State {
		case "visible":
			met = ok
		case "hidden":
			met = !ok
		case "enabled":
			met = ok && !has("disabled")
		case "disabled":
			met = ok && has("disabled")
		case "checked":
			met = ok && has("checked")
		case "unchecked":
			met = ok && !has("checked")
		case "expanded":
			met = ok && has("expanded")
		case "collapsed":
			met = ok && !has("expanded")
		}
		return met, line
	}
	if o.Text != "" {
		lines := snap.Ranked(o.Text, "")
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

// refLine finds the element's own line: the one whose last marker is the
// ref, so that page text quoting "[ref=…]" never stands in for it. The marks
// before the ref are the element's states.
func refLine(text, ref string) (string, bool) {
	marker := " [ref=" + ref + "]"
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSuffix(strings.TrimSpace(l), ":")
		if i := strings.LastIndex(t, marker); i >= 0 && !strings.Contains(t[i+len(marker):], "\"") {
			return t, true
		}
	}
	return "", false
}
