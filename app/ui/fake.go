package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reins-app/reins/persondoor"
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
}

// Answered is one decision the fake engine received.
type Answered struct {
	ID       string
	Decision vocab.Decision
}

var _ persondoor.Door = (*FakeEngine)(nil)

// NewFakeEngine makes an empty fake engine with the extension connected.
func NewFakeEngine() *FakeEngine {
	return &FakeEngine{connected: true, settings: settings.Settings{
		ApprovalTimeout: 30 * time.Second, RememberFor: 10 * time.Minute,
		DenyList:   []string{"Reins", "1Password", "Bitwarden", "Keychain Access", "System Settings"},
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
	f.mu.Lock()
	found := tab == vocab.DesktopKey
	if found {
		f.desktop = level
	}
	for i := range f.tabs {
		if f.tabs[i].ID == tab {
			f.tabs[i].Level, f.tabs[i].Share, found = level, level.String(), true
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
		f.answers = append(f.answers, Answered{id, d})
	}
	f.mu.Unlock()
	if !ok {
		return persondoor.ErrNoSuchApproval
	}
	f.End(id, d)
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

// AuditRows filters like the audit log does, newest first.
func (f *FakeEngine) AuditRows(_ context.Context, flt persondoor.AuditFilter) ([]persondoor.AuditRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []persondoor.AuditRow
	for i := len(f.rows) - 1; i >= 0; i-- {
		r := f.rows[i]
		switch {
		case !flt.Since.IsZero() && r.Time.Before(flt.Since),
			!flt.Until.IsZero() && !r.Time.Before(flt.Until),
			flt.Tab != "" && r.Tab != flt.Tab,
			flt.Origin != "" && r.Origin != flt.Origin && r.FrameOrigin != flt.Origin,
			flt.Agent != "" && r.AgentName != flt.Agent && r.AgentSession != flt.Agent,
			flt.Act != "" && r.ActKind != flt.Act,
			flt.Outcome != "" && r.Outcome != flt.Outcome:
			continue
		}
		out = append(out, r)
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

func (f *FakeEngine) SetApprovalTimeout(d time.Duration) error {
	if d < settings.MinApprovalTimeout || d > settings.MaxApprovalTimeout {
		return fmt.Errorf("%w: the time to answer must be between 5 seconds and 5 minutes", settings.ErrInvalid)
	}
	return f.change(func(s *settings.Settings) string {
		old := s.ApprovalTimeout
		s.ApprovalTimeout = d
		return fmt.Sprintf("approval timeout %v → %v", old, d)
	})
}

func (f *FakeEngine) SetRememberFor(d time.Duration) error {
	if d < settings.MinRememberFor || d > settings.MaxRememberFor {
		return fmt.Errorf("%w: “allow on this tab” must last between 1 minute and 1 hour", settings.ErrInvalid)
	}
	return f.change(func(s *settings.Settings) string {
		old := s.RememberFor
		s.RememberFor = d
		return fmt.Sprintf("allow on this tab %v → %v", old, d)
	})
}

func (f *FakeEngine) SetBridgePort(port int) error {
	if port != 0 && (port < 1024 || port > 65535) {
		return fmt.Errorf("%w: the port must be between 1024 and 65535, or 0 to pick a free one, not %d", settings.ErrInvalid, port)
	}
	return f.change(func(s *settings.Settings) string {
		old := s.BridgePort
		s.BridgePort = port
		return fmt.Sprintf("bridge port %d → %d", old, port)
	})
}

func (f *FakeEngine) SetStartAtLogin(on bool) error {
	return f.change(func(s *settings.Settings) string {
		old := s.StartAtLogin
		s.StartAtLogin = on
		return fmt.Sprintf("start at login %v → %v", old, on)
	})
}

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

// SetPauseChord takes any chord the engine would: in its one spelling.
func (f *FakeEngine) SetPauseChord(chord string) error {
	c, err := settings.CanonicalPauseChord(chord)
	if err != nil {
		return fmt.Errorf("%w: %v", settings.ErrInvalid, err)
	}
	return f.change(func(s *settings.Settings) string {
		old := s.PauseChord
		s.PauseChord = c
		return fmt.Sprintf("pause chord %s → %s", old, c)
	})
}

// AddDenied adds name to the person's deny list, refusing what the engine
// refuses most often: an empty name and one already there.
func (f *FakeEngine) AddDenied(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("%w: type the application's name", settings.ErrInvalid)
	}
	f.mu.Lock()
	for _, have := range append(slices.Clone(f.settings.DenyList), f.settings.DenyAdded...) {
		if strings.EqualFold(have, name) {
			f.mu.Unlock()
			return fmt.Errorf("%w: “%s” is already on the list", settings.ErrInvalid, have)
		}
	}
	f.mu.Unlock()
	return f.change(func(s *settings.Settings) string {
		s.DenyAdded = append(slices.Clip(s.DenyAdded), name)
		return fmt.Sprintf("deny list + %q", name)
	})
}

// RemoveDenied takes name off the person's additions; the built-in entries
// stay.
func (f *FakeEngine) RemoveDenied(name string) error {
	is := func(s string) bool { return strings.EqualFold(s, name) }
	f.mu.Lock()
	found := slices.ContainsFunc(f.settings.DenyAdded, is)
	f.mu.Unlock()
	if !found {
		return fmt.Errorf("%w: “%s” is not on your list", settings.ErrInvalid, name)
	}
	return f.change(func(s *settings.Settings) string {
		s.DenyAdded = slices.DeleteFunc(slices.Clone(s.DenyAdded), is)
		return fmt.Sprintf("deny list − %q", name)
	})
}

// SetOpenApps sets the applications OpenApps names.
func (f *FakeEngine) SetOpenApps(names ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.openApps = slices.Clone(names)
}

// OpenApps names the applications set by SetOpenApps that are on neither
// list.
func (f *FakeEngine) OpenApps(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, n := range f.openApps {
		if !slices.ContainsFunc(append(slices.Clone(f.settings.DenyList), f.settings.DenyAdded...), func(s string) bool { return strings.EqualFold(s, n) }) {
			out = append(out, n)
		}
	}
	return out, nil
}

func (f *FakeEngine) change(apply func(s *settings.Settings) string) error {
	f.mu.Lock()
	if f.failSettings != nil {
		err := f.failSettings
		f.mu.Unlock()
		return err
	}
	detail := apply(&f.settings)
	f.changes = append(f.changes, detail)
	f.mu.Unlock()
	f.publish(persondoor.Event{Kind: persondoor.EventSettings, Detail: detail})
	return nil
}
