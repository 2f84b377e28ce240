package ui

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// FakeEngine is an in-memory [Engine] for tests and screenshots: it records
// answers and share changes and publishes events as the real engine would.
type FakeEngine struct {
	mu           sync.Mutex
	tabs         []vocab.TabInfo // guarded by mu
	desktop      vocab.Level     // guarded by mu
	pending      []vocab.Request // guarded by mu
	agents       []persondoor.AgentInfo
	paused       bool
	connected    bool
	rows         []persondoor.AuditRow
	answers      []Answered
	subs         []chan persondoor.Event
	settings     settings.Settings // guarded by mu
	changes      []string          // guarded by mu: the settings changes made, as audited
	failSettings error             // guarded by mu
	chordLost    bool              // guarded by mu: the pause chord is not held
	openApps     []string          // guarded by mu
	hand         fakeHand          // the watches of presses; see fakehand.go
	pol          policy.State      // guarded by mu: the organisation's policy
}

// Answered is one decision the fake engine received.
type Answered struct {
	ID       string
	Decision vocab.Decision
	UpTo     int // for a plan answered with AnswerPlan: the last step allowed, 0 for none
}

var (
	_ persondoor.Door    = (*FakeEngine)(nil)
	_ persondoor.Managed = (*FakeEngine)(nil)
)

// Policy is the organisation's policy SetPolicy gave; none by default.
func (f *FakeEngine) Policy() policy.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pol
}

// SetPolicy puts st in force and says so, as the engine does when the
// policy changes.
func (f *FakeEngine) SetPolicy(st policy.State) {
	f.mu.Lock()
	f.pol = st
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventPolicy, Detail: st.Words()})
	f.publish(persondoor.Event{Kind: persondoor.EventSettings})
}

// NewFakeEngine makes an empty fake engine with the extension connected.
func NewFakeEngine() *FakeEngine {
	return &FakeEngine{connected: true, settings: settings.Settings{
		ApprovalTimeout: 30 * time.Second, RememberFor: 10 * time.Minute,
		DenyList:   settings.BuiltInDenied(),
		PauseChord: "Control+Alt+Meta+P",
	}}
}

func (f *FakeEngine) publish(ev persondoor.Event) {
	f.mu.Lock()
	subs := append([]chan persondoor.Event(nil), f.subs...)
	f.mu.Unlock()
	for _, ch := range subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

func (f *FakeEngine) Subscribe(buf int) (<-chan persondoor.Event, func()) {
	ch := make(chan persondoor.Event, buf)
	f.mu.Lock()
	f.subs = append(f.subs, ch)
	f.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			for i, c := range f.subs {
				if c == ch {
					f.subs = append(f.subs[:i:i], f.subs[i+1:]...)
				}
			}
			f.mu.Unlock()
			close(ch)
		})
	}
}

// SetTabs replaces the open tabs.
func (f *FakeEngine) SetTabs(tabs ...vocab.TabInfo) {
	f.mu.Lock()
	f.tabs = append([]vocab.TabInfo(nil), tabs...)
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventTabs})
}

func (f *FakeEngine) Tabs() []vocab.TabInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]vocab.TabInfo(nil), f.tabs...)
}

func (f *FakeEngine) SetShare(tab string, level vocab.Level) error {
	return f.ShareWith(tab, level, "")
}

func (f *FakeEngine) ShareWith(tab string, level vocab.Level, agent string) error {
	if level == vocab.None {
		agent = ""
	}
	f.mu.Lock()
	found := tab == vocab.DesktopKey
	if found {
		if agent != "" {
			f.mu.Unlock()
			return errors.New("the desktop is shared with every allowed agent or none")
		}
		f.desktop = level
	}
	for i := range f.tabs {
		if f.tabs[i].ID == tab {
			f.tabs[i].Level, f.tabs[i].Share, f.tabs[i].Agent, found = level, level.String(), agent, true
		}
	}
	f.mu.Unlock()
	if !found {
		return errors.New("there is no open tab " + tab)
	}
	f.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: tab, Level: level})
	return nil
}

func (f *FakeEngine) Share(tab string) vocab.Level {
	f.mu.Lock()
	defer f.mu.Unlock()
	if tab == vocab.DesktopKey {
		return f.desktop
	}
	for _, t := range f.tabs {
		if t.ID == tab {
			return t.Level
		}
	}
	return vocab.None
}

// Ask puts a request in the queue, as an agent's act would.
func (f *FakeEngine) Ask(r vocab.Request) {
	f.mu.Lock()
	f.pending = append(f.pending, r)
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventApproval, Tab: r.Target.Tab, Request: &r})
}

// End withdraws a pending request with a decision, as the broker does when
// the person answers or the time runs out.
func (f *FakeEngine) End(id string, d vocab.Decision) {
	f.mu.Lock()
	var req *vocab.Request
	for i := range f.pending {
		if f.pending[i].ID == id {
			r := f.pending[i]
			req = &r
			f.pending = append(f.pending[:i:i], f.pending[i+1:]...)
			break
		}
	}
	f.mu.Unlock()
	if req != nil {
		f.publish(persondoor.Event{Kind: persondoor.EventApprovalEnd, Tab: req.Target.Tab, Request: req, Decision: d})
	}
}

func (f *FakeEngine) Pending() []vocab.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]vocab.Request(nil), f.pending...)
}

func (f *FakeEngine) Answer(id string, d vocab.Decision) error {
	f.mu.Lock()
	ok := false
	for _, r := range f.pending {
		ok = ok || r.ID == id
	}
	if ok {
		f.answers = append(f.answers, Answered{ID: id, Decision: d})
	}
	f.mu.Unlock()
	if !ok {
		return persondoor.ErrNoSuchApproval
	}
	f.End(id, d)
	return nil
}

// AnswerPlan records a plan's answer: steps 1 to upTo allowed, 0 denied.
func (f *FakeEngine) AnswerPlan(id string, upTo int) error {
	f.mu.Lock()
	var req *vocab.Request
	for i := range f.pending {
		if f.pending[i].ID == id {
			req = &f.pending[i]
		}
	}
	ok := req != nil && req.Act.Kind == vocab.Plan && upTo >= 0 && upTo <= len(req.Plan)
	if ok {
		d := vocab.Deny
		if upTo > 0 {
			d = vocab.AllowOnce
		}
		f.answers = append(f.answers, Answered{ID: id, Decision: d, UpTo: upTo})
	}
	f.mu.Unlock()
	if !ok {
		return persondoor.ErrNoSuchApproval
	}
	if upTo > 0 {
		f.End(id, vocab.AllowOnce)
	} else {
		f.End(id, vocab.Deny)
	}
	return nil
}

// Answers lists the decisions received, in order.
func (f *FakeEngine) Answers() []Answered {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Answered(nil), f.answers...)
}

func (f *FakeEngine) Pause(on bool) {
	f.mu.Lock()
	changed := f.paused != on
	f.paused = on
	f.mu.Unlock()
	if changed {
		f.publish(persondoor.Event{Kind: persondoor.EventPause, Paused: on})
	}
}

func (f *FakeEngine) Paused() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paused
}

// SetConnected says whether the extension is connected.
func (f *FakeEngine) SetConnected(on bool) {
	f.mu.Lock()
	f.connected = on
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventConnection, Connected: on})
}

func (f *FakeEngine) Connected() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connected
}

// SetAgents replaces the agents list.
func (f *FakeEngine) SetAgents(a ...persondoor.AgentInfo) {
	f.mu.Lock()
	f.agents = append([]persondoor.AgentInfo(nil), a...)
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventAgents})
}

func (f *FakeEngine) Agents() []persondoor.AgentInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]persondoor.AgentInfo(nil), f.agents...)
}

func (f *FakeEngine) AllowAgent(key string) error  { return f.setAllowed(key, true) }
func (f *FakeEngine) ForgetAgent(key string) error { return f.setAllowed(key, false) }

func (f *FakeEngine) setAllowed(key string, on bool) error {
	f.mu.Lock()
	found := false
	for i := range f.agents {
		if f.agents[i].Key == key {
			f.agents[i].Allowed, found = on, true
		}
	}
	f.mu.Unlock()
	if !found {
		return errors.New("no agent " + key)
	}
	f.publish(persondoor.Event{Kind: persondoor.EventAgents})
	return nil
}

// AddRows appends audit rows, newest last.
func (f *FakeEngine) AddRows(rows ...persondoor.AuditRow) {
	f.mu.Lock()
	f.rows = append(f.rows, rows...)
	f.mu.Unlock()
}

// AuditRows selects rows as the audit log does, newest first.
func (f *FakeEngine) AuditRows(_ context.Context, flt persondoor.AuditFilter) ([]persondoor.AuditRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []persondoor.AuditRow
	for i := len(f.rows) - 1; i >= 0; i-- {
		if !flt.Match(f.rows[i]) {
			continue
		}
		out = append(out, f.rows[i])
		if flt.Limit > 0 && len(out) == flt.Limit {
			break
		}
	}
	return out, nil
}

// VerifyAudit pretends the chain is intact.
func (f *FakeEngine) VerifyAudit(context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rows), nil
}

// SetSettings replaces the settings without a change of the person's, as
// the engine has them at start.
func (f *FakeEngine) SetSettings(s settings.Settings) {
	f.mu.Lock()
	f.settings = s
	f.mu.Unlock()
}

func (f *FakeEngine) Settings() settings.Settings {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.settingsLocked()
}

func (f *FakeEngine) settingsLocked() settings.Settings {
	s := f.settings
	s.DenyList = slices.Clone(s.DenyList)
	s.DenyAdded = slices.Clone(s.DenyAdded)
	return s
}

// Changes lists the settings changes made, as the engine audits them.
func (f *FakeEngine) Changes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.changes...)
}

// FailSettings makes every setter fail with err, as the engine does when
// the audit log cannot record a change; nil restores them.
func (f *FakeEngine) FailSettings(err error) {
	f.mu.Lock()
	f.failSettings = err
	f.mu.Unlock()
}

// The setters make the changes the engine makes, with the same checks and
// the same audit words: the settings package's.

func (f *FakeEngine) SetApprovalTimeout(d time.Duration) error {
	return f.change(settings.ApprovalTimeout(d))
}

func (f *FakeEngine) SetRememberFor(d time.Duration) error { return f.change(settings.RememberFor(d)) }

func (f *FakeEngine) SetBridgePort(port int) error { return f.change(settings.BridgePort(port)) }

func (f *FakeEngine) SetStartAtLogin(on bool) error { return f.change(settings.StartAtLogin(on)) }

// PauseChordTaken reports what SetPauseChordTaken said; true at first.
func (f *FakeEngine) PauseChordTaken() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.chordLost
}

// SetPauseChordTaken says whether the pause chord is held for Reins.
func (f *FakeEngine) SetPauseChordTaken(taken bool) {
	f.mu.Lock()
	f.chordLost = !taken
	f.mu.Unlock()
}

func (f *FakeEngine) SetPauseChord(chord string) error { return f.change(settings.PauseChord(chord)) }

func (f *FakeEngine) AddDenied(name string) error { return f.change(settings.AddDenied(name)) }

func (f *FakeEngine) RemoveDenied(name string) error { return f.change(settings.RemoveDenied(name)) }

// SetOpenApps sets the applications OpenApps names.
func (f *FakeEngine) SetOpenApps(names ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.openApps = slices.Clone(names)
}

// OpenApps names the applications set by SetOpenApps that the deny list
// does not cover, as the engine does with the windows open.
func (f *FakeEngine) OpenApps(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, n := range f.openApps {
		if !settings.Covered(n, f.settings.DenyAdded) {
			out = append(out, n)
		}
	}
	return out, nil
}

// change applies c as the engine does after its audit row: nothing on a
// refusal or when nothing changes.
func (f *FakeEngine) change(c settings.Change) error {
	f.mu.Lock()
	if f.failSettings != nil {
		err := f.failSettings
		f.mu.Unlock()
		return err
	}
	next := f.settingsLocked()
	detail, err := c(&next)
	if err != nil || detail == "" {
		f.mu.Unlock()
		return err
	}
	f.settings = next
	f.changes = append(f.changes, detail)
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventSettings, Detail: detail})
	return nil
}

// Hand-offs. The fake keeps them beside the engine's other state, in
// fakeHandoffs, and answers Done and Stop with the engine's rules: Done on
// another site than the share's waits for that site's confirmation.

// FinishedHandoff is one hand-off the person ended through the fake.
type FinishedHandoff struct {
	ID      string
	Done    bool   // Done, else Stop
	Confirm string // the site confirmed, for Done on another site
}

type fakeHandoffState struct {
	list     []persondoor.Handoff
	finished []FinishedHandoff
}

var fakeHandoffs struct {
	mu sync.Mutex
	m  map[*FakeEngine]*fakeHandoffState // guarded by mu
}

func (f *FakeEngine) handoffState() *fakeHandoffState {
	if fakeHandoffs.m == nil {
		fakeHandoffs.m = map[*FakeEngine]*fakeHandoffState{}
	}
	s := fakeHandoffs.m[f]
	if s == nil {
		s = &fakeHandoffState{}
		fakeHandoffs.m[f] = s
	}
	return s
}

// StartHandoff puts a hand-off in progress, as an agent's browser_handoff
// would, and publishes EventHandoff.
func (f *FakeEngine) StartHandoff(h persondoor.Handoff) {
	fakeHandoffs.mu.Lock()
	s := f.handoffState()
	s.list = append(s.list, h)
	fakeHandoffs.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventHandoff, Tab: h.Tab, Detail: h.ID, Request: handoffRequest(h)})
}

// MoveHandoff says the hand-off's tab shows site now, as navigation would.
func (f *FakeEngine) MoveHandoff(id, now string) {
	fakeHandoffs.mu.Lock()
	s := f.handoffState()
	var tab string
	for i := range s.list {
		if s.list[i].ID == id {
			s.list[i].Now, tab = now, s.list[i].Tab
		}
	}
	fakeHandoffs.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventTabs, Tab: tab})
}

func (f *FakeEngine) Handoffs() []persondoor.Handoff {
	fakeHandoffs.mu.Lock()
	defer fakeHandoffs.mu.Unlock()
	return append([]persondoor.Handoff(nil), f.handoffState().list...)
}

// FinishHandoff ends a hand-off as the engine does.
func (f *FakeEngine) FinishHandoff(id string, done bool, confirm string) error {
	fakeHandoffs.mu.Lock()
	s := f.handoffState()
	i := slices.IndexFunc(s.list, func(h persondoor.Handoff) bool { return h.ID == id })
	if i < 0 {
		fakeHandoffs.mu.Unlock()
		return persondoor.ErrNoSuchHandoff
	}
	h := s.list[i]
	if done && h.Moved() {
		switch {
		case h.Now == "":
			fakeHandoffs.mu.Unlock()
			return errors.New("the tab shows no web page now, so it cannot be shared there; go back to " + h.Origin + " and press Done, or press Stop")
		case confirm != h.Now:
			fakeHandoffs.mu.Unlock()
			return &persondoor.ConfirmOriginError{Shared: h.Origin, Now: h.Now}
		}
	}
	if !done || !h.Moved() {
		confirm = ""
	}
	s.list = slices.Delete(s.list, i, i+1)
	s.finished = append(s.finished, FinishedHandoff{ID: id, Done: done, Confirm: confirm})
	fakeHandoffs.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventHandoffEnd, Tab: h.Tab, Detail: id, Request: handoffRequest(h)})
	return nil
}

// FinishedHandoffs lists the hand-offs ended through the fake, in order.
func (f *FakeEngine) FinishedHandoffs() []FinishedHandoff {
	fakeHandoffs.mu.Lock()
	defer fakeHandoffs.mu.Unlock()
	return append([]FinishedHandoff(nil), f.handoffState().finished...)
}

func handoffRequest(h persondoor.Handoff) *vocab.Request {
	r := &vocab.Request{ID: h.ID, Agent: h.Agent, Act: vocab.Act{Kind: vocab.Handoff, Text: h.Reason}, Asked: h.Since}
	r.Target.Tab, r.Target.TabTitle, r.Target.Origin = h.Tab, h.Title, h.Origin
	return r
}
