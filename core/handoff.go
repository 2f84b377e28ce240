package core

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// A hand-off is a tab an agent hands to the person for a step of their own:
// log in, solve a captcha. It needs the tab shared at Control: it stops
// acts on the tab and holds the share across sites, which matter only for a
// tab an agent may act on. While it lasts:
//
//   - every agent's act on the tab is refused handed_off, here before
//     anything else and again by the shares at fire time, so an approval
//     answered late fires nothing;
//   - reads go on while the tab shows the site it was shared on, so an
//     agent can watch for the person's step to show;
//   - the share is held, not withdrawn, when the tab leaves that site
//     (single sign-on), but nothing is read or done on any other site, and
//     the tab is listed as not shared there;
//   - only the person ends it, with Done or Stop in Reins' own windows or
//     terminal (FinishHandoff); no agent's call and nothing in the
//     extension does. Done on the site the tab was shared on resumes the
//     share; on another it asks the person to confirm that site first, and
//     then binds the share to it. Stop on another site withdraws the share,
//     as leaving the site would have.
//
// Pausing all agents leaves a hand-off as it is: the person is at the tab
// anyway. The agent's connection closing leaves it too, since the person
// may be halfway through a login; the agent, connecting again, may still
// wait on it. A closed tab ends it. The end of a hand-off forgets the
// tab's remembered answers ("allow on this tab"): the person's own steps
// change what an act there would do. Each start, end and wait is audited.

// handoff is one hand-off in progress or recently ended.
type handoff struct {
	id     string
	agent  vocab.Agent
	tab    string
	reason string
	since  time.Time
	audit  int64
	ended  chan struct{} // closed when it ends; the fields below are set before
	state  string        // agentdoor.HandoffDone, HandoffStopped or HandoffClosed
	bound  string        // Done on another site: the site the person confirmed
}

// handoffBook holds an engine's hand-offs.
type handoffBook struct {
	mu    sync.Mutex
	byTab map[string]*handoff // guarded by mu: in progress, by tab
	byID  map[string]*handoff // guarded by mu: in progress and the last handoffsKept ended
	order []string            // guarded by mu: ids of the ended ones, oldest first
}

// handoffsKept is how many ended hand-offs an agent may still wait on.
const handoffsKept = 256

// handoffs is the engine's book of hand-offs, made at first use.
func (e *Engine) handoffs() *handoffBook {
	b := &e.handoffBook
	b.mu.Lock()
	if b.byTab == nil {
		b.byTab, b.byID = map[string]*handoff{}, map[string]*handoff{}
	}
	b.mu.Unlock()
	return b
}

// handedOff refuses acts on a tab handed to the person.
func (e *Engine) handedOff(tab string) error {
	b := e.handoffs()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byTab[tab] != nil {
		return errorf(vocab.CodeHandedOff, "tab %s is with the person for a step of their own (a hand-off), so nothing is done on it until they press Done or Stop in Reins; wait with browser_wait_for on the hand-off", tab)
	}
	return nil
}

// Handoff hands a shared tab to the person, with the agent's reason. It
// returns at once; see WaitHandoff.
func (s *Session) Handoff(ctx context.Context, r agentdoor.HandoffRequest) (*agentdoor.HandoffResult, error) {
	reason := r.Reason
	if n := utf8.RuneCountInString(reason); n > agentdoor.MaxHandoffReason {
		reason = string([]rune(reason)[:agentdoor.MaxHandoffReason])
	}
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Handoff, Text: reason}, Target: vocab.Target{Tab: r.Tab}}
	res, err := s.handoff(ctx, r, &en)
	if err != nil {
		return nil, s.refuse(ctx, en, err)
	}
	return res, nil
}

func (s *Session) handoff(ctx context.Context, r agentdoor.HandoffRequest, en *audit.Entry) (*agentdoor.HandoffResult, error) {
	e := s.e
	switch n := utf8.RuneCountInString(r.Reason); {
	case n == 0:
		return nil, errorf(vocab.CodeBadRequest, "say what the person should do, in reason")
	case n > agentdoor.MaxHandoffReason:
		return nil, errorf(vocab.CodeBadRequest, "the reason has %d characters; keep it to %d, the person reads it in a small window", n, agentdoor.MaxHandoffReason)
	}
	if err := s.admitted(ctx); err != nil {
		return nil, err
	}
	if e.Paused() {
		return nil, errorf(vocab.CodePaused, "the person has paused all agents; wait and try again later")
	}
	_, info, err := e.lookup(r.Tab)
	if err != nil {
		return nil, err
	}
	origin := approvals.Origin(info.URL)
	en.Target.TabTitle, en.Target.Origin = info.Title, origin
	if !e.shares.For(r.Tab, s.key()) {
		// Another agent's tab: nothing of its hand-offs is this one's to
		// learn.
		en.Target.TabTitle = ""
		return nil, e.checkShare(s.key(), r.Tab, origin, vocab.Control)
	}
	b := e.handoffs()
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.byTab[r.Tab]; h != nil {
		if persondoor.AgentKey(h.agent) == persondoor.AgentKey(s.agent) {
			return nil, errorf(vocab.CodeHandedOff, "tab %s is already with the person as hand-off %s; wait on that one", r.Tab, h.id)
		}
		return nil, errorf(vocab.CodeHandedOff, "tab %s is already with the person for a step another agent asked for; wait until they end it", r.Tab)
	}
	if err := e.checkShare(s.key(), r.Tab, origin, vocab.Control); err != nil {
		en.Target.TabTitle = ""
		return nil, err
	}
	if err := e.shares.HandOff(r.Tab, origin); err != nil {
		return nil, err
	}
	// The tab is the person's from here: an act already firing on it stops
	// at its next event and lets go of what it holds, as on a pause.
	e.stopAllFiringOn(r.Tab, errStoppedByHandoff)
	h := &handoff{id: e.newAskID("h"), agent: s.agent, tab: r.Tab, reason: r.Reason, since: e.opts.Now(), ended: make(chan struct{})}
	en.Outcome = vocab.OutcomeDone
	en.Detail = "handed to the person as hand-off " + h.id + "; acts on the tab wait for their Done or Stop"
	seq, err := e.opts.Audit.Record(context.WithoutCancel(ctx), *en)
	if err != nil {
		e.shares.Drop(r.Tab, origin)
		e.opts.Logf("audit: %v", err)
		return nil, &alreadyLogged{err: e.failedRow(ctx, *en, "the tab was not handed to the person, because the audit log could not record it: "+err.Error(), err)}
	}
	h.audit = seq
	b.byTab[r.Tab] = h
	b.byID[h.id] = h
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: r.Tab, Activity: activityOf(*en, e.opts.Now())})
	e.publish(persondoor.Event{Kind: persondoor.EventHandoff, Tab: r.Tab, Detail: h.id, Request: h.request(*en)})
	return &agentdoor.HandoffResult{ID: h.id, Tab: r.Tab, Origin: origin, Audit: seq}, nil
}

// failedRow shows a failure whose row could not be written, and returns
// the agent's error.
func (e *Engine) failedRow(ctx context.Context, en audit.Entry, msg string, err error) *vocab.Error {
	ce := &vocab.Error{Code: vocab.CodeAuditFailed, Message: msg, Err: err}
	en.Outcome, en.Code, en.Detail = vocab.OutcomeFailed, ce.Code, ce.Message
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: en.Target.Tab, Activity: activityOf(en, e.opts.Now())})
	return ce
}

// request describes a hand-off for the person's windows, as an act of kind
// Handoff.
func (h *handoff) request(en audit.Entry) *vocab.Request {
	return &vocab.Request{ID: h.id, Agent: h.agent, Act: vocab.Act{Kind: vocab.Handoff, Text: h.reason}, Target: en.Target, Asked: h.since}
}

// WaitHandoff waits for the person to end a hand-off the session's agent
// started (on this connection or an earlier one), at most o.Timeout and
// agentdoor.MaxWait. The wait is one audit row.
func (s *Session) WaitHandoff(ctx context.Context, o agentdoor.WaitOptions) (*agentdoor.WaitResult, error) {
	e := s.e
	start := e.opts.Now()
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Name: "wait for hand-off " + quoteIf(o.Handoff)}}
	if err := s.admitted(ctx); err != nil {
		return nil, s.refuse(ctx, en, err)
	}
	b := e.handoffs()
	b.mu.Lock()
	h := b.byID[o.Handoff]
	b.mu.Unlock()
	if h == nil || persondoor.AgentKey(h.agent) != persondoor.AgentKey(s.agent) {
		return nil, s.refuse(ctx, en, errorf(vocab.CodeBadRequest, "there is no hand-off %s of yours; browser_handoff gives the id to wait on", quoteIf(o.Handoff)))
	}
	en.Target.Tab = h.tab
	timeout := o.Timeout
	if timeout <= 0 || timeout > agentdoor.MaxWait {
		timeout = agentdoor.MaxWait
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	res := &agentdoor.WaitResult{HandoffState: agentdoor.HandoffWithPerson}
	select {
	case <-h.ended:
		res.Met, res.HandoffState, res.Origin = true, h.state, h.bound
		if !e.shares.For(h.tab, s.key()) {
			// The person gave the tab to another agent meanwhile: where
			// it is now is not this one's to learn.
			res.Origin = ""
		}
	case <-timer.C:
	case <-ctx.Done():
		return nil, s.refuse(ctx, en, ctx.Err())
	}
	res.Waited = e.opts.Now().Sub(start)
	en.Outcome = vocab.OutcomeRead
	switch res.HandoffState {
	case agentdoor.HandoffWithPerson:
		en.Detail = "still with the person after " + res.Waited.Round(time.Millisecond).String()
	case agentdoor.HandoffDone:
		en.Detail = "the person pressed Done"
		if res.Origin != "" {
			en.Detail += "; the tab is shared on " + res.Origin + " now"
		}
	case agentdoor.HandoffStopped:
		en.Detail = "the person pressed Stop"
	case agentdoor.HandoffClosed:
		en.Detail = "the tab was closed"
	}
	if err := e.recordRead(ctx, en); err != nil {
		return nil, err
	}
	return res, nil
}

// Handoffs lists the hand-offs in progress, oldest first, for the person.
func (e *Engine) Handoffs() []persondoor.Handoff {
	b := e.handoffs()
	b.mu.Lock()
	list := make([]*handoff, 0, len(b.byTab))
	for _, h := range b.byTab {
		list = append(list, h)
	}
	b.mu.Unlock()
	out := make([]persondoor.Handoff, 0, len(list))
	for _, h := range list {
		gr, _, _ := e.shares.HandedOff(h.tab)
		e.mu.Lock()
		var title, now string
		if t := e.tabs[h.tab]; t != nil {
			title, now = t.info.Title, approvals.Origin(t.info.URL)
		}
		e.mu.Unlock()
		out = append(out, persondoor.Handoff{
			ID: h.id, Agent: h.agent, Tab: h.tab, Title: title, Origin: gr.Origin, Now: now,
			Level: gr.Level, Reason: h.reason, Since: h.since,
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Since.Equal(out[j].Since) {
			return out[i].Since.Before(out[j].Since)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// FinishHandoff is the person ending a hand-off: Done (done) or Stop. Done
// with the tab on another site than its share's returns a
// *persondoor.ConfirmOriginError until confirm names the site on screen,
// and then binds the share to that site, audited as a share change. Only
// the person's door calls it.
func (e *Engine) FinishHandoff(id string, done bool, confirm string) error {
	// A share held through the hand-off comes back no wider than the
	// organisation's policy allows now; after the book's lock is let go.
	defer e.narrowShares(e.Policy())
	b := e.handoffs()
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.byID[id]
	if h == nil || b.byTab[h.tab] != h {
		return persondoor.ErrNoSuchHandoff
	}
	e.mu.Lock()
	var title, now string
	if t := e.tabs[h.tab]; t != nil {
		title, now = t.info.Title, approvals.Origin(t.info.URL)
	}
	e.mu.Unlock()
	gr, _, handedOff := e.shares.HandedOff(h.tab)
	if !handedOff {
		e.endHandoffLocked(b, h, agentdoor.HandoffClosed, "")
		return persondoor.ErrNoSuchHandoff
	}
	target := vocab.Target{Tab: h.tab, TabTitle: title, Origin: now}
	person := vocab.Agent{Name: vocab.PersonName}
	state, bound := agentdoor.HandoffStopped, ""
	var detail string
	switch {
	case !done:
		detail = "pressed Stop on hand-off " + h.id
		if e.shares.Drop(h.tab, now) {
			detail += "; the tab had left " + gr.Origin + ", so its share was withdrawn"
			e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: h.tab, Level: vocab.None, Detail: "the tab left the site it was shared on"})
		}
	case gr.Level == vocab.None || now == gr.Origin:
		if err := e.shares.Resume(h.tab, now); err != nil && !errors.Is(err, approvals.ErrNotHandedOff) {
			return err
		}
		state, detail = agentdoor.HandoffDone, "pressed Done on hand-off "+h.id
		if gr.Level > vocab.None {
			detail += "; the share goes on on " + gr.Origin
		}
	case now == "":
		return errors.New("the tab shows no web page now, so it cannot be shared there; go back to " + gr.Origin + " and press Done, or press Stop")
	case confirm != now:
		return &persondoor.ConfirmOriginError{Shared: gr.Origin, Now: now}
	default:
		if err := e.sharePolicy(h.tab, now, gr.Level); err != nil {
			return err
		}
		pin, note, err := e.pinFor(now)
		if err != nil {
			return err
		}
		if _, err := e.shares.Rebind(h.tab, now, pin); err != nil {
			return err
		}
		share := "shared at " + gr.Level.String() + " on " + now + ", which the person confirmed at the end of hand-off " + h.id + " (it was shared on " + gr.Origin + ")"
		if note != "" {
			share += "; " + note
		}
		e.record(context.Background(), audit.Entry{Agent: person, Act: vocab.Act{Kind: vocab.Share}, Target: target, Outcome: vocab.OutcomeDone, Detail: share})
		e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: h.tab, Level: gr.Level, Detail: note})
		state, bound, detail = agentdoor.HandoffDone, now, "pressed Done on hand-off "+h.id+"; the share moved to "+now
	}
	e.record(context.Background(), audit.Entry{Agent: person, Act: vocab.Act{Kind: vocab.Handoff}, Target: target, Outcome: vocab.OutcomeDone, Detail: detail})
	e.endHandoffLocked(b, h, state, bound)
	return nil
}

// endHandoffLocked ends h; b.mu must be held.
func (e *Engine) endHandoffLocked(b *handoffBook, h *handoff, state, bound string) {
	delete(b.byTab, h.tab)
	h.state, h.bound = state, bound
	close(h.ended)
	b.order = append(b.order, h.id)
	for len(b.order) > handoffsKept {
		delete(b.byID, b.order[0])
		b.order = b.order[1:]
	}
	e.broker.ForgetTab(h.tab)
	req := h.request(audit.Entry{Target: vocab.Target{Tab: h.tab}})
	e.publish(persondoor.Event{Kind: persondoor.EventHandoffEnd, Tab: h.tab, Detail: h.id, Request: req})
}

// handoffTabsClosed ends the hand-offs of tabs that closed.
func (e *Engine) handoffTabsClosed(tabs []string) {
	b := e.handoffs()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, tab := range tabs {
		if h := b.byTab[tab]; h != nil {
			e.record(context.Background(), audit.Entry{
				Agent: h.agent, Act: vocab.Act{Kind: vocab.Handoff}, Target: vocab.Target{Tab: tab},
				Outcome: vocab.OutcomeDone, Detail: "hand-off " + h.id + " ended: the tab was closed",
			})
			e.endHandoffLocked(b, h, agentdoor.HandoffClosed, "")
		}
	}
}
