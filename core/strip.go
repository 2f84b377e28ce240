package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// StripLink is what the strip in Chrome needs of the bridge: pushing events
// to a browser profile's extension, serving the extension's requests, and
// the share table, which the bridge itself sends each connection first and
// again before any request that reads or acts on a tab (the extension
// refuses those for tabs its latest table does not share).
// *bridge.Server is one.
type StripLink interface {
	Notify(ctx context.Context, profile, method string, params any) error
	Handle(h bridge.Handler)
	ShareTable(f func(profile, session string) protocol.Shares)
	PushShares(ctx context.Context, profile string) error
}

var _ StripLink = (*bridge.Server)(nil)

// Caps, in characters, of the strings the strip sends; the extension shows
// them as they come.
const (
	stripAgentMax   = 160 // the process is first, so a cut takes the declared name
	stripActMax     = 200
	stripOutcomeMax = 200
	// stripBacklog is how many lines of each tab's activity an extension
	// that connects (or a service worker that restarted) receives.
	stripBacklog = 50
)

// ServeStrip keeps the Reins extension's strip current until ctx ends or
// the engine closes: the share table and each tab's state for the toolbar
// badge, and each tab's activity for the side panel. It also serves the
// panel's two buttons, which only take power away: stop sharing a tab (as
// the person would from the tray) and pause all agents. Nothing the
// extension sends can share, raise a level, resume or answer.
//
// It subscribes before it returns, so an extension that connects after the
// call is served from its first moment.
func (e *Engine) ServeStrip(ctx context.Context, link StripLink) {
	events, stop := e.Subscribe(1024)
	s := &strip{
		e: e, link: link, lines: map[string][]protocol.Activity{},
		waiting: map[string]map[string]bool{}, firing: map[string]bool{}, state: map[string]string{},
	}
	link.Handle(e.serveStrip)
	link.ShareTable(s.table)
	e.mu.Lock()
	var profiles []string
	for p := range e.connected {
		profiles = append(profiles, p)
	}
	e.mu.Unlock()
	go func() {
		defer stop()
		for _, p := range profiles {
			s.greet(ctx, p)
		}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok {
					return
				}
				s.handle(ctx, ev)
			}
		}
	}()
}

// serveStrip answers the extension's requests. The bridge lets only the
// methods protocol.ExtensionMayAsk names through; this checks again, since
// the trust in it must not rest on one layer.
func (e *Engine) serveStrip(ctx context.Context, profile, method string, params json.RawMessage) (any, error) {
	switch method {
	case protocol.MethodStopSharing:
		var p protocol.StopSharing
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &protocol.Error{Code: protocol.CodeBadRequest, Message: "stop_sharing needs the tab's id: " + err.Error()}
		}
		id := e.tabID(profile, p.Tab)
		if id == "" {
			return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: fmt.Sprintf("Reins knows no tab %d in this browser; it is not shared", p.Tab)}
		}
		// The person's own path, as the tray takes it: audited, and the
		// tab's remembered allows and plans end with it.
		if err := e.SetShare(id, vocab.None); err != nil {
			return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: err.Error()}
		}
		return struct{}{}, nil
	case protocol.MethodPauseAll:
		e.Pause(true)
		return struct{}{}, nil
	}
	return nil, &protocol.Error{Code: protocol.CodeUnknownMethod, Message: "the extension may only stop sharing a tab or pause all agents"}
}

// strip is the state behind what each extension was told. Only its own
// goroutine touches it.
type strip struct {
	e    *Engine
	link StripLink

	lines   map[string][]protocol.Activity // by Reins tab: recent activity, oldest first
	waiting map[string]map[string]bool     // by Reins tab: the approvals waiting
	firing  map[string]bool                // by Reins tab: an act fires
	state   map[string]string              // by Reins tab: the state last sent
}

func (s *strip) handle(ctx context.Context, ev persondoor.Event) {
	switch ev.Kind {
	case persondoor.EventConnection:
		if ev.Connected {
			s.greet(ctx, ev.Profile)
		}
	case persondoor.EventShare, persondoor.EventPause, persondoor.EventTabs:
		for _, p := range s.profiles() {
			s.sendShares(ctx, p)
		}
		if ev.Kind == persondoor.EventTabs {
			s.forgetClosed()
		}
	case persondoor.EventActivity:
		if ev.Activity == nil || ev.Tab == "" {
			return
		}
		if ev.Activity.Outcome == "firing" {
			s.firing[ev.Tab] = true
			s.sendState(ctx, ev.Tab)
			return
		}
		s.activity(ctx, ev.Tab, *ev.Activity)
	case persondoor.EventApproval, persondoor.EventApprovalEnd:
		if ev.Request == nil {
			return
		}
		// From the queue, which heals what a lost event would leave behind;
		// the ending request may still be in it for a moment.
		tab := ev.Request.Target.Tab
		w := map[string]bool{}
		for _, r := range s.e.Pending() {
			if r.Target.Tab == tab {
				w[r.ID] = true
			}
		}
		if ev.Kind == persondoor.EventApproval {
			w[ev.Request.ID] = true
		} else {
			delete(w, ev.Request.ID)
		}
		s.waiting[tab] = w
		s.sendState(ctx, tab)
	case persondoor.EventActDone:
		if ev.Tab != "" {
			delete(s.firing, ev.Tab)
			s.sendState(ctx, ev.Tab)
		}
	}
}

// greet gives an extension that just connected all it needs at once: the
// share table (the bridge sent it one already, which may be older), the
// tabs that are not idle, and the recent activity.
func (s *strip) greet(ctx context.Context, profile string) {
	s.sendShares(ctx, profile)
	var backlog []protocol.Activity
	for tab, lines := range s.lines {
		ct, ok := s.chrome(tab)
		if !ok || ct.profile != profile {
			continue
		}
		if st := s.stateOf(tab); st != protocol.StateIdle {
			s.state[tab] = st
			s.notify(ctx, profile, protocol.EventTabState, protocol.TabState{Tab: ct.id, State: st})
		}
		for _, l := range lines {
			l.Tab = ct.id
			backlog = append(backlog, l)
		}
	}
	sort.SliceStable(backlog, func(i, j int) bool { return backlog[i].Time < backlog[j].Time })
	for _, l := range backlog {
		s.notify(ctx, profile, protocol.EventActivity, l)
	}
}

// profiles lists the connected browser profiles.
func (s *strip) profiles() []string {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	out := make([]string, 0, len(s.e.connected))
	for p := range s.e.connected {
		out = append(out, p)
	}
	return out
}

// chrome is where a Reins tab lives, while it is open.
func (s *strip) chrome(tab string) (chromeTab, bool) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	t := s.e.tabs[tab]
	if t == nil {
		return chromeTab{}, false
	}
	return t.chrome, true
}

// forgetClosed drops what the strip holds about tabs that closed.
func (s *strip) forgetClosed() {
	closed := func(tab string) bool { _, ok := s.chrome(tab); return !ok }
	for tab := range s.lines {
		if closed(tab) {
			delete(s.lines, tab)
		}
	}
	for tab := range s.waiting {
		if closed(tab) {
			delete(s.waiting, tab)
		}
	}
	for tab := range s.firing {
		if closed(tab) {
			delete(s.firing, tab)
		}
	}
	for tab := range s.state {
		if closed(tab) {
			delete(s.state, tab)
		}
	}
}

// table is profile's share table, without its Seq, for a connection of
// the browser run named. The bridge calls it from its own goroutines,
// for a new connection before the engine has heard of it: until the engine
// has taken in that run, and dropped the tabs of a browser run that
// ended, the table shares nothing, since the tabs it knows may be another
// run's under the same numbers.
func (s *strip) table(profile, run string) protocol.Shares {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	t := protocol.Shares{Paused: e.Paused(), Tabs: []protocol.TabShare{}}
	if e.browserRuns[profile] != run {
		return t
	}
	for id, ts := range e.tabs {
		if ts.chrome.profile != profile {
			continue
		}
		g := e.shares.Get(id)
		line := protocol.TabShare{Tab: ts.chrome.id, Level: wireLevel(g.Level)}
		if g.Level > vocab.None {
			line.Origin = g.Origin
			if g.Agent != "" {
				line.Agent = e.agentLabel(g.Agent)
			}
		}
		t.Tabs = append(t.Tabs, line)
	}
	sort.Slice(t.Tabs, func(i, j int) bool { return t.Tabs[i].Tab < t.Tabs[j].Tab })
	return t
}

func wireLevel(l vocab.Level) string {
	switch l {
	case vocab.ReadOnly:
		return protocol.LevelRead
	case vocab.Control:
		return protocol.LevelControl
	}
	return protocol.LevelNone
}

// sendShares sends profile's table when it differs from the last one its
// connection got; the bridge keeps count, per connection.
func (s *strip) sendShares(ctx context.Context, profile string) {
	// A profile that just left is sent its table when it comes back.
	if err := s.link.PushShares(ctx, profile); err != nil && ctx.Err() == nil && !errors.Is(err, bridge.ErrNotConnected) {
		s.e.opts.Logf("strip: could not tell the extension (%s): %v", protocol.EventShares, err)
	}
}

func (s *strip) stateOf(tab string) string {
	switch {
	case len(s.waiting[tab]) > 0:
		return protocol.StateWaiting
	case s.firing[tab]:
		return protocol.StateFiring
	}
	return protocol.StateIdle
}

// sendState tells the tab's extension its state when it changed.
func (s *strip) sendState(ctx context.Context, tab string) {
	st := s.stateOf(tab)
	if s.state[tab] == st || (s.state[tab] == "" && st == protocol.StateIdle) {
		return
	}
	s.state[tab] = st
	if ct, ok := s.chrome(tab); ok {
		s.notify(ctx, ct.profile, protocol.EventTabState, protocol.TabState{Tab: ct.id, State: st})
	}
}

// activity keeps a tab's new line and sends it.
func (s *strip) activity(ctx context.Context, tab string, a persondoor.Activity) {
	ct, ok := s.chrome(tab)
	if !ok {
		return
	}
	words, refused := persondoor.OutcomeWords(a)
	line := protocol.Activity{
		Tab:     ct.id,
		Time:    a.Time.UnixMilli(),
		Agent:   plain.Text(a.Agent, stripAgentMax),
		Act:     plain.Text(a.Act, stripActMax),
		Outcome: plain.Text(words, stripOutcomeMax),
		Refused: refused,
	}
	lines := append(s.lines[tab], line)
	if len(lines) > stripBacklog {
		lines = append(lines[:0:0], lines[len(lines)-stripBacklog:]...)
	}
	s.lines[tab] = lines
	s.notify(ctx, ct.profile, protocol.EventActivity, line)
}

// notify sends one event and reports whether it went. A profile that left
// is told everything again when it comes back.
func (s *strip) notify(ctx context.Context, profile, method string, params any) bool {
	if err := s.link.Notify(ctx, profile, method, params); err != nil {
		if ctx.Err() == nil {
			s.e.opts.Logf("strip: could not tell the extension (%s): %v", method, err)
		}
		return false
	}
	return true
}
