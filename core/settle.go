package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/vocab"
)

// How long a page must stay unchanged after an act to count as settled, and
// the longest an act's answer waits for that. A page that reacts at once is
// read settleQuiet after its last change; one that never stops changing (a
// clock, a stream) at the cap.
const (
	settleQuiet = 60 * time.Millisecond
	settleCap   = 1500 * time.Millisecond
	// navigationWait is how long a navigation's new document may take to
	// arrive; it then has settleCap to go quiet.
	navigationWait = 5 * time.Second
	// settleSlack is how much longer than its cap the extension gets to
	// answer a settle before the fixed wait stands in.
	settleSlack = 2 * time.Second
)

// ChangesAfter is [Session.Changes] for the act just done on tab: it waits
// until the page has settled (a navigation's until the new document has),
// reads what changed and says, in note, when the page did not settle within
// the cap. fallback is the fixed wait used when the extension cannot tell.
func (s *Session) ChangesAfter(ctx context.Context, tab string, act vocab.Act, fallback time.Duration) (res *agentdoor.ReadResult, note string, err error) {
	navigation := act.Kind == vocab.Navigate || act.Kind == vocab.Back || act.Kind == vocab.Forward
	settled, err := s.settle(ctx, tab, navigation, fallback)
	if err != nil {
		return nil, "", err
	}
	before := s.latestText(tab)
	res, err = s.Read(ctx, agentdoor.ReadOptions{Tab: tab, Diff: true, MaxChars: agentdoor.ChangesBudget})
	if err != nil {
		return nil, "", err
	}
	c := actChanges{before: before, after: s.latestText(tab)}
	if t, _, err := s.e.lookup(tab); err == nil {
		s.e.mu.Lock()
		c.churn = t.churn
		s.e.mu.Unlock()
	}
	var notes []string
	churned, far := 0, 0
	a := s.acted.Load()
	if a != nil && a.tab == tab {
		// What was typed is told once: the next act starts afresh.
		s.acted.CompareAndSwap(a, &actedOn{tab: a.tab, ref: a.ref})
	}
	if res.Diff && !res.First && !res.NewPage {
		var typed []typedInto
		if a != nil && a.tab == tab && !navigation {
			c.target, typed = a.ref, a.typed
		}
		c.diff, res.Filled = holdingTyped(res.Text, typed)
		res.Text, churned, far = effectOnly(c)
	}
	if len(c.churn) > 0 {
		notes = append(notes, churnWords(c.churn, churned))
	}
	if far > 0 {
		notes = append(notes, fmt.Sprintf("And %d %s elsewhere on the page, not listed; browser_snapshot shows the page as it stands.", far, plural(far, "change", "changes")))
	}
	switch settled {
	case protocol.SettledStayed:
		notes = append(notes, fmt.Sprintf("No new page had arrived %s after the act, so this is the tab as it was then; it may still be loading. Wait for what you expect with browser_wait_for.", navigationWait))
	case protocol.SettledCap:
		notes = append(notes, fmt.Sprintf("The page was still changing %s after it was reached (a clock, an animation or a feed, say), so this is how it stood then and more may change. Wait for what you expect with browser_wait_for.", settleCap))
	}
	return res, strings.Join(notes, " "), nil
}

// latestText is the text of the session's latest snapshot of tab, or "".
func (s *Session) latestText(tab string) string {
	t, _, err := s.e.lookup(tab)
	if err != nil {
		return ""
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if snap := t.session[s.agent.Session]; snap != nil {
		return snap.Text
	}
	return ""
}

// settle waits until tab's page has settled after an act, as the extension
// tells, and reports how the wait ended: protocol.SettledQuiet, SettledCap
// or SettledStayed, or "" when the extension could not tell and fallback was
// waited instead. A tab that is gone or not shared is not waited for: the
// read that follows says so.
func (s *Session) settle(ctx context.Context, tab string, navigation bool, fallback time.Duration) (string, error) {
	t, _, err := s.e.lookup(tab)
	if err != nil {
		return "", nil
	}
	p := protocol.SettleParams{Tab: t.chrome.id, Quiet: int(settleQuiet.Milliseconds()), Cap: int(settleCap.Milliseconds())}
	limit := settleCap + settleSlack
	if navigation {
		if p.After = s.e.settleAfter(t, s.agent.Session); p.After != nil {
			p.After.Within = int(navigationWait.Milliseconds())
			limit += navigationWait
		}
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var res protocol.SettleResult
	err = s.e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodSettle, p, &res)
	var pe *protocol.Error
	switch {
	case err == nil && (res.Settled == protocol.SettledQuiet || res.Settled == protocol.SettledCap || res.Settled == protocol.SettledStayed):
		return res.Settled, nil
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.As(err, &pe) && (pe.Code == protocol.CodeNoTab || pe.Code == protocol.CodeNotShared):
		return "", nil
	}
	// An extension from before settles, or one that did not answer in time.
	select {
	case <-time.After(fallback):
		return "", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// settleAfter is the top frame's document and epoch a navigation leaves:
// those of the session's latest snapshot of the tab, the one the agent
// acted on, or else the last the tab reported; nil when neither is known.
func (e *Engine) settleAfter(t *tabState, session string) *protocol.SettleAfter {
	e.mu.Lock()
	defer e.mu.Unlock()
	if snap := t.session[session]; snap != nil {
		if st, ok := snap.Frames()[0]; ok && st.Doc != "" {
			return &protocol.SettleAfter{Doc: st.Doc, Epoch: st.Epoch}
		}
	}
	if st, ok := t.frames[0]; ok && st.Doc != "" {
		return &protocol.SettleAfter{Doc: st.Doc, Epoch: st.Epoch}
	}
	return nil
}
