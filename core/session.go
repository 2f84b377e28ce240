package core

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

// Session is one agent's connection. Everything it does is labelled with the
// agent's declared name and its real process.
type Session struct {
	e       *Engine
	agent   vocab.Agent
	gated   bool        // opened by Admit: the person must have allowed the agent
	closed  atomic.Bool // Close ran
	refused atomic.Bool // the person denied the agent during this session
	// asked is the first-connection question this session last put, so
	// that a "no" given before the session's first call waited on it still
	// counts: the session is not asked again.
	asked atomic.Pointer[connectAsk]
	// desk is the session's latest desktop snapshot, whose refs desktop
	// acts name.
	desk atomic.Pointer[gdesktop.Snapshot]
	// program is the agent's program as the organisation's policy names
	// programs, found as it was admitted.
	program policy.Program
	// acted is the tab and ref of the session's last act that was done,
	// whose own changes its answer tells apart from the rest.
	acted atomic.Pointer[actedOn]
}

type actedOn struct {
	tab, ref string
	// typed is what the acts since the tab's changes were last read typed
	// into fields other than secret ones: a plan's steps, or the one act.
	typed []typedInto
}

// typedInto is text typed into the field with ref.
type typedInto struct{ ref, text string }

// session opens a session for an agent.
func (e *Engine) session(a vocab.Agent) *Session {
	a.Session = e.newID("s")
	return &Session{e: e, agent: a}
}

// Agent is who the session speaks for.
func (s *Session) Agent() vocab.Agent { return s.agent }

// controlled is what every act on a tab checks first: the agent allowed,
// agents not paused, the tab open, shared with this agent at Control on the
// origin it shows, and not handed to the person. It names the tab in en,
// without its title when the tab is not the agent's.
func (s *Session) controlled(ctx context.Context, tab string, en *audit.Entry) (*tabState, protocol.Tab, error) {
	e := s.e
	if err := s.admitted(ctx); err != nil {
		return nil, protocol.Tab{}, err
	}
	if e.Paused() {
		return nil, protocol.Tab{}, errorf(vocab.CodePaused, "the person has paused all agents; wait and try again later")
	}
	t, info, err := e.lookup(tab)
	if err != nil {
		return nil, protocol.Tab{}, err
	}
	origin := approvals.Origin(info.URL)
	en.Target.TabTitle, en.Target.Origin = info.Title, origin
	if err := e.checkShare(s.key(), tab, origin, vocab.Control); err != nil {
		en.Target.TabTitle = ""
		return nil, protocol.Tab{}, err
	}
	if err := e.handedOff(tab); err != nil {
		return nil, protocol.Tab{}, err
	}
	return t, info, nil
}

// key is the agent's key, by which the person shares a tab with it alone.
func (s *Session) key() string { return persondoor.AgentKey(s.agent) }

// tabs lists open tabs as an agent may see them: titles and addresses only
// for tabs the person shared with it. A tab shared with another agent alone
// is listed as not shared, and nothing says whom it is shared with.
func (s *Session) tabs(ctx context.Context) []vocab.TabInfo {
	all := s.e.Tabs()
	for i := range all {
		if all[i].Agent != "" && all[i].Agent != s.key() {
			all[i].Level, all[i].Share, all[i].SharedAt = vocab.None, vocab.None.String(), ""
		}
		if all[i].Level == vocab.None {
			all[i].Title, all[i].URL, all[i].Origin = "", "", ""
		}
		all[i].Agent = ""
	}
	return all
}

// lookup returns a tab's state under the lock's protection as a copy of what
// callers need.
func (e *Engine) lookup(tab string) (*tabState, protocol.Tab, error) {
	e.mu.Lock()
	t := e.tabs[tab]
	if t == nil {
		e.mu.Unlock()
		return nil, protocol.Tab{}, errorf(vocab.CodeNoTab, "there is no open tab %q; list tabs first", tab)
	}
	profile, info, connected, run := t.chrome.profile, t.info, e.connected[t.chrome.profile], e.browserRuns[t.chrome.profile]
	e.mu.Unlock()
	if !connected {
		return nil, protocol.Tab{}, errorf(vocab.CodeDisconnected, "the Chrome extension for tab %s is not connected; try again when it reconnects", tab)
	}
	// A browser run that connected before the engine took it in numbers its
	// tabs anew: a request for this tab would reach another run's tab.
	if sb, ok := e.opts.Browser.(sessioned); ok {
		if now, ok := sb.SessionOf(profile); ok && now != run {
			return nil, protocol.Tab{}, errorf(vocab.CodeDisconnected, "the browser of tab %s has just started again and Reins has not taken in its tabs yet; list tabs again in a moment", tab)
		}
	}
	return t, info, nil
}

// sessioned is a Browser that tells which browser run each profile's
// connection is of; bridge.Server is one.
type sessioned interface {
	SessionOf(profile string) (string, bool)
}

// Snapshot reads a shared tab.
func (s *Session) Snapshot(ctx context.Context, tab string) (*agentdoor.SnapshotResult, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: tab}}
	return audited(ctx, s, en, func(en *audit.Entry) (*agentdoor.SnapshotResult, func(), error) {
		snap, _, install, err := s.snapshot(ctx, tab, en)
		if err != nil {
			return nil, nil, err
		}
		return &agentdoor.SnapshotResult{ID: snap.ID, Tab: tab, URL: snap.URL, Title: snap.Title, Text: snap.Text}, install, nil
	}, func(res *agentdoor.SnapshotResult) string { return "snapshot " + res.ID })
}

// snapshot reads the tab; prev is the session's latest snapshot of it (nil
// for the first). install makes snap the latest in prev's place, once its
// read is written to the log: a read the agent never got names nothing.
func (s *Session) snapshot(ctx context.Context, tab string, en *audit.Entry) (snap, prev *grounding.Snapshot, install func(), err error) {
	if err := s.admitted(ctx); err != nil {
		return nil, nil, nil, err
	}
	t, info, err := s.e.lookup(tab)
	if err != nil {
		return nil, nil, nil, err
	}
	en.Target.TabTitle, en.Target.Origin = info.Title, approvals.Origin(info.URL)
	if err := s.e.checkShare(s.key(), tab, approvals.Origin(info.URL), vocab.ReadOnly); err != nil {
		en.Target.TabTitle = "" // an unshared tab's title is not the agent's to learn, nor the log's
		return nil, nil, nil, err
	}
	snap, res, err := s.e.readTree(ctx, t, tab, info.Title)
	if err != nil {
		return nil, nil, nil, err
	}
	// The snapshot's own origin is what the agent read: check it too, since
	// the tab may have moved on between the tab list and the read.
	if err := s.e.shares.CheckFor(tab, s.key(), snap.Origin, vocab.ReadOnly); err != nil {
		return nil, nil, nil, err
	}
	s.e.mu.Lock()
	t.zoom = res.Zoom
	t.churn = nil
	for _, f := range res.Frames {
		t.churn = append(t.churn, f.Churn...)
	}
	for id, st := range snap.Frames() {
		t.frames[id] = st
	}
	prev = t.session[s.agent.Session]
	s.e.mu.Unlock()
	install = func() {
		s.e.mu.Lock()
		defer s.e.mu.Unlock()
		t.session[s.agent.Session] = snap
		t.byID[snap.ID] = snap
		t.order = append(t.order, snap.ID)
		if len(t.order) > 16 {
			delete(t.byID, t.order[0])
			t.order = t.order[1:]
		}
	}
	return snap, prev, install, nil
}

// readTree reads a tab's accessibility tree and builds a snapshot of it,
// which is not yet any session's latest.
func (e *Engine) readTree(ctx context.Context, t *tabState, tab, title string) (*grounding.Snapshot, protocol.SnapshotResult, error) {
	var res protocol.SnapshotResult
	var snap *grounding.Snapshot
	var err error
	opts := grounding.BuildOptions{ID: e.newID("s" + tab + "."), Tab: tab, Title: title}
	// Frames whose tree the reader holds answer "same"; if the reader lost
	// one meanwhile (another session's read moved it on), ask once in full.
	for _, known := range []map[string]string{t.reader.Known(), nil} {
		res = protocol.SnapshotResult{}
		if err := e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodSnapshot, protocol.SnapshotParams{Tab: t.chrome.id, Known: known}, &res); err != nil {
			return nil, res, err
		}
		if snap, err = t.reader.Build(&res, t.refs, opts); !errors.Is(err, grounding.ErrMissingTree) {
			break
		}
	}
	if err != nil {
		return nil, res, errorf(vocab.CodeFailed, "%v", err)
	}
	for _, f := range res.Frames {
		if f.Frame == 0 {
			e.noteShown(t, f.Window, res.Zoom)
		}
	}
	return snap, res, nil
}

// Screenshot captures the visible area of a shared tab as PNG. It is a read:
// it needs the tab shared at Read or more, and it must be the visible tab of
// its window, since Reins never brings a tab forward to look at it.
func (s *Session) Screenshot(ctx context.Context, tab string) ([]byte, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Tab: tab, Name: "screenshot"}}
	return audited(ctx, s, en, func(en *audit.Entry) ([]byte, func(), error) {
		png, err := s.screenshot(ctx, tab, en)
		return png, nil, err
	}, nil)
}

func (s *Session) screenshot(ctx context.Context, tab string, en *audit.Entry) ([]byte, error) {
	if err := s.admitted(ctx); err != nil {
		return nil, err
	}
	t, info, err := s.e.lookup(tab)
	if err != nil {
		return nil, err
	}
	en.Target.TabTitle, en.Target.Origin = info.Title, approvals.Origin(info.URL)
	if err := s.e.checkShare(s.key(), tab, approvals.Origin(info.URL), vocab.ReadOnly); err != nil {
		en.Target.TabTitle = ""
		return nil, err
	}
	if !info.Active {
		return nil, errorf(vocab.CodeNotVisible, "tab %s is not the visible tab of its window; a screenshot shows only what is on screen", tab)
	}
	// The secret fields' places before and after the capture: the page may
	// move them meanwhile.
	before, err := s.e.secretBoxes(ctx, t, tab, info.Title)
	if err != nil {
		return nil, err
	}
	var c protocol.CaptureResult
	if err := s.e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodCapture, protocol.CaptureParams{Tab: t.chrome.id}, &c); err != nil {
		return nil, err
	}
	png, ok := decodeDataURL(c.DataURL)
	if !ok {
		return nil, errorf(vocab.CodeFailed, "the browser returned no picture")
	}
	after, err := s.e.secretBoxes(ctx, t, tab, info.Title)
	if err != nil {
		return nil, err
	}
	return redact(png, append(before, after...))
}

// refuse logs a refused, denied or failed attempt and returns the agent's
// error. A failure whose outcome row is already written is not logged again.
func (s *Session) refuse(ctx context.Context, en audit.Entry, err error) error {
	var done *alreadyLogged
	if errors.As(err, &done) {
		return done.err
	}
	err = s.blockedByDialog(ctx, en.Target.Tab, err)
	ce, outcome := classify(err)
	en.Outcome, en.Code, en.Detail = outcome, ce.Code, ce.Message
	s.e.record(ctx, en)
	return ce
}

// Act runs one act through the share check, grounding, approval, audit and executor.
func (s *Session) Act(ctx context.Context, r agentdoor.ActRequest) (*agentdoor.ActResult, error) {
	return s.actIn(ctx, r, nil)
}

// actIn runs an act, as a step of a plan when turn is not nil.
func (s *Session) actIn(ctx context.Context, r agentdoor.ActRequest, turn *planTurn) (*agentdoor.ActResult, error) {
	en := audit.Entry{Agent: s.agent, Act: r.Act, Target: vocab.Target{Tab: r.Tab, Ref: r.Ref, Claim: r.Element}}
	found := false
	res, err := s.act(ctx, r, &en, &found, turn)
	if err != nil {
		if en.Act.Kind == vocab.Type && !found && en.Act.Text != "" {
			// Refused before the field was found: it may be a password's.
			en.Act.Text, en.Act.Withheld = "", utf8.RuneCountInString(en.Act.Text)
		}
		return nil, s.refuse(ctx, en, err)
	}
	next := &actedOn{tab: r.Tab, ref: r.Ref}
	if prev := s.acted.Load(); prev != nil && prev.tab == r.Tab {
		next.typed = slices.Clone(prev.typed)
	}
	if en.Act.Kind == vocab.Type && !en.Act.Secret && en.Act.Text != "" {
		next.typed = append(next.typed, typedInto{ref: r.Ref, text: en.Act.Text})
	}
	s.acted.Store(next)
	return res, nil
}

// act runs the act; *found turns true once the target element is found on
// the page and known to be secret or not. For a step of a plan, turn says
// which: the plan's leave is tried before the person is asked.
func (s *Session) act(ctx context.Context, r agentdoor.ActRequest, en *audit.Entry, found *bool, turn *planTurn) (*agentdoor.ActResult, error) {
	e := s.e
	switch k := r.Act.Kind; {
	case k.OnElement():
		if r.Ref == "" {
			return nil, errorf(vocab.CodeBadRequest, "%s needs a ref from a snapshot", r.Act.Kind)
		}
		if r.Act.Kind == vocab.Drag {
			if err := dragEnds(r); err != nil {
				return nil, err
			}
		}
	case k == vocab.Key || k == vocab.Navigate || k == vocab.Back || k == vocab.Forward || k == vocab.Activate || k == vocab.CloseTab:
	case k == vocab.Dialog:
		return s.handleDialog(ctx, r, en)
	default:
		return nil, errorf(vocab.CodeBadRequest, "unknown act %q", r.Act.Kind)
	}
	// Whether an act scrolls to its element first is Reins' to find, never
	// the agent's to ask.
	r.Act.Reach, en.Act.Reach = false, false
	if err := possible(en); err != nil {
		return nil, err
	}
	t, info, err := s.controlled(ctx, r.Tab, en)
	if err != nil {
		return nil, err
	}
	origin := approvals.Origin(info.URL)
	if err := e.canInput(r.Act.Kind); err != nil {
		// Named in the record as the snapshot showed it, if it can be.
		if el, _, lerr := s.element(r); lerr == nil {
			en.Target.Role, en.Target.Name = el.Role, el.Name
		}
		return nil, err
	}
	if r.Act.Kind.IsInput() {
		// Input in a tab is input on the desktop too: focus can move to the
		// person's terminal while it types.
		if err := e.personTerminalShown(ctx); err != nil {
			return nil, err
		}
	}
	if r.Act.Kind.IsInput() && !info.Active {
		return nil, errorf(vocab.CodeNotVisible, "tab %s is not the visible tab of its window; bring it to the front first", r.Tab)
	}
	// Keys go wherever the keyboard focus is: only into the tab's own
	// window, as the operating system says, and the page too.
	if r.Act.Kind == vocab.Key {
		if err := e.keysGoToTab(ctx, t, r.Tab, info, time.Now()); err != nil {
			return nil, err
		}
	}
	if r.Act.Kind == vocab.Key && !info.Focused {
		return nil, errorf(vocab.CodeNotVisible, "tab %s's window does not have the keyboard focus, so the keys could land elsewhere; bring the tab to the front first", r.Tab)
	}
	if r.Act.Kind == vocab.Navigate {
		if approvals.Origin(r.Act.URL) == "" {
			return nil, errorf(vocab.CodeBadRequest, "only http and https addresses can be opened")
		}
	}
	// Keys go to the focused element, and Enter or Space does what it
	// does: it is asked about as that. The page is asked for every key act,
	// so that a page blocked by a JavaScript dialog says so (dialog_open):
	// a key pressed then answers the dialog, which only
	// browser_handle_dialog may do, asked as such.
	enter := r.Act.Kind == vocab.Key && activatesFocus(r.Act)
	if r.Act.Kind == vocab.Key {
		var seen vocab.Target
		if err := e.enterTarget(ctx, t, &seen); err != nil {
			return nil, err
		}
		if enter {
			en.Target.Leads, en.Target.Form = seen.Leads, seen.Form
		}
	}

	var el grounding.Element
	var snap *grounding.Snapshot
	var first *protocol.ResolveResult
	var reach *protocol.Reach // the element is out of view: how to scroll to it
	since := time.Now()
	if r.Ref != "" {
		el, snap, err = s.element(r)
		if err != nil {
			return nil, err
		}
		en.Target.Role, en.Target.Name = el.Role, el.Name
		if el.FrameOrigin != origin {
			en.Target.FrameOrigin = el.FrameOrigin
		}
		// Find it now, so the person is asked about what is really there.
		first, err = e.resolve(ctx, t, el)
		if err != nil {
			if reach = intoViewOf(err, el); reach == nil || !r.Act.Kind.IntoView() {
				return nil, err
			}
			// One act that scrolls to the element first, asked about as such.
			r.Act.Reach, en.Act.Reach = true, true
		}
		if (first != nil && first.Secret) || el.Secret {
			r.Act.Secret = true
			en.Act.Secret = true
		}
		withMotion(&en.Target, motionOf(first, err))
		*found = true
		if reach != nil {
			err = e.intoViewOnScreen(ctx, t, reach)
		} else {
			err = e.landsOnScreen(ctx, t, first)
		}
		if err != nil {
			return nil, err
		}
		// Input lands only in the tab's own window: one must be told to be
		// it before anyone is asked.
		if r.Act.Kind.IsInput() {
			if _, err := e.tabWindow(ctx, t, r.Tab, info, since); err != nil {
				return nil, err
			}
		}
	}
	// A drag's other end: found now too, and named in what the person is
	// asked.
	var drop grounding.Element
	if r.Act.Kind == vocab.Drag && r.To == "" {
		// By an offset: where it ends must be on the page as it shows.
		if _, err := e.dragEnd(first, e.calOf(t), r.Act.DX, r.Act.DY); err != nil {
			return nil, err
		}
	}
	if r.Act.Kind == vocab.Drag && r.To != "" {
		if drop, err = s.dropTarget(ctx, t, r, snap); err != nil {
			return nil, err
		}
		// An unnamed drop target is named by its role, so that the person
		// is never asked about a drag to nowhere.
		to := drop.Name
		if to == "" {
			to = "the unnamed " + drop.Role
		}
		r.Act.To, en.Act.To = to, to
	}

	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: r.Act, Target: en.Target}
	if info.Active && !e.broker.Covered(req) && turn == nil {
		req.Picture, req.Box, req.Sketch = e.picture(ctx, t, first, snap, el)
	}
	f := firing{tab: r.Tab, req: req, en: en, input: r.Act.Kind.IsInput(), turn: turn}
	var intoViewFrom sighting // where ready found a scroll-into-view act's element
	var reached intoView      // how far its wheel has turned
	var now protocol.Tab      // the tab as aimed found it
	aimed := func(ctx context.Context) (audit.Landing, error) {
		info, err := e.awaitInFront(ctx, r.Tab, r.Act.Kind)
		if err != nil {
			return audit.Landing{}, err
		}
		now = info
		if err := e.checkShare(s.key(), r.Tab, approvals.Origin(info.URL), vocab.Control); err != nil {
			return audit.Landing{}, err
		}
		if r.Ref == "" {
			if r.Act.Kind == vocab.Key {
				// The focus may have moved since the person was asked, and
				// the page may have raised a dialog the keys would answer.
				now := vocab.Target{}
				if err := e.enterTarget(ctx, t, &now); err != nil {
					return audit.Landing{}, err
				}
				if enter && !now.SameMotion(en.Target) {
					return audit.Landing{}, errorf(vocab.CodeChanged, "the keyboard focus moved to an element where Enter does something else than the person was asked about; nothing was done")
				}
			}
			return audit.Landing{Scale: 1}, nil
		}
		if r.Act.Reach {
			reached = intoView{}
			return e.readyIntoView(ctx, t, el, &intoViewFrom)
		}
		if r.Act.Kind == vocab.Drag && r.To == "" {
			return e.aimBy(ctx, t, el, r.Act.DX, r.Act.DY)
		}
		fresh, _, plan, err := e.aim(ctx, t, el)
		if err != nil {
			return audit.Landing{}, err
		}
		if err := sameMotion(en.Target, fresh.Motion); err != nil {
			return audit.Landing{}, err
		}
		if r.Act.Kind == vocab.Drag {
			end, err := e.aimAt(ctx, t, drop)
			if err != nil {
				return audit.Landing{}, dropErr(err)
			}
			plan.X2, plan.Y2 = end.X, end.Y
		}
		return plan, nil
	}
	f.ready = func(ctx context.Context) (audit.Landing, error) {
		since := time.Now()
		plan, err := aimed(ctx)
		if err != nil || !r.Act.Kind.IsInput() {
			return plan, err
		}
		return plan, e.pinWindow(ctx, t, r.Tab, now, since, &plan)
	}
	watched := r.Ref != "" && r.Act.Kind.IsInput()
	ef := &effect{}
	f.effect = ef
	var fired time.Duration // how long the input took, for the answer to typing
	f.perform = func(ctx context.Context, ticket audit.Ticket) error {
		if r.Act.Reach {
			return e.scrollIntoView(ctx, t, el, ticket, intoViewFrom, &reached, ef)
		}
		timed := func(ctx context.Context) error {
			defer func(start time.Time) { fired = time.Since(start) }(time.Now())
			return e.perform(ctx, t, ticket)
		}
		if watched {
			var err error
			*ef, err = e.fireWatched(ctx, t, el, ticket, timed)
			return err
		}
		return timed(ctx)
	}
	if r.Act.Reach {
		f.said = reached.words
	}
	f.again = func(ctx context.Context, req *vocab.Request) {
		req.Picture, req.Box, req.Sketch = nil, nil, nil
		if r.Ref == "" || !info.Active {
			return
		}
		if now, err := e.resolve(ctx, t, el); err == nil {
			req.Picture, req.Box, req.Sketch = e.picture(ctx, t, now, snap, el)
		}
	}
	if r.Element != "" {
		f.done = "the agent described the target as " + quoteIf(r.Element)
	}
	res, err := s.decideAndFire(ctx, f)
	if err == nil && r.Act.Kind == vocab.Type && fired > 0 {
		res.Done += "; " + typedIn(r.Act.Text, fired)
	}
	if err == nil && r.Act.Kind == vocab.Scroll && snap != nil {
		if where := e.scrolledTo(ctx, t, r.Tab, info.Title, el, snap); where != "" {
			res.Done += "; " + where
		}
	}
	return res, err
}

// typedIn says how many characters an act typed and how long its input
// took, the click that put the focus in the field included.
func typedIn(text string, took time.Duration) string {
	n := utf8.RuneCountInString(text)
	what := fmt.Sprintf("%d characters", n)
	if n == 1 {
		what = "one character"
	}
	return fmt.Sprintf("typed %s in %d ms", what, took.Round(time.Millisecond).Milliseconds())
}

// landsOnScreen refuses input at an element whose point, where the tab
// shows it now, is on no screen (its window moved off every display): the
// executor would refuse it at fire time, after the person was asked. A
// point the window's metrics cannot place is left to the fire-time check.
func (e *Engine) landsOnScreen(ctx context.Context, t *tabState, at *protocol.ResolveResult) error {
	pt, err := grounding.ToScreen(at.Point, at.Window, at.Viewport, at.Zoom, e.calOf(t))
	if err != nil {
		return nil
	}
	return e.onScreen(ctx, "the element's point", pt.X, pt.Y, "its window is off the screens; ask the person to bring it back, then take a new snapshot")
}

// tabWait is how long an approved act waits for its tab to be in front
// again: the window the person answered in hands the focus back to Chrome,
// and Chrome reports it, in their own time.
const tabWait = 500 * time.Millisecond

// activateWait is how long bringing a tab to the front waits for Reins'
// tab list to show it there.
const activateWait = 3 * time.Second

// awaitInFront returns the tab once input of kind can land in it: the
// visible tab of its window, and for keys in the window with the keyboard
// focus. Checked before the person was asked, it is checked again now,
// since the person may have gone elsewhere meanwhile; after tabWait it
// refuses.
func (e *Engine) awaitInFront(ctx context.Context, tab string, kind vocab.ActKind) (info protocol.Tab, err error) {
	pollUntil(ctx, tabWait, func() bool {
		if _, info, err = e.lookup(tab); err != nil {
			return true
		}
		switch {
		case kind.IsInput() && !info.Active:
			err = errorf(vocab.CodeNotVisible, "tab %s is no longer the visible tab of its window, so nothing was fired; bring it to the front and try again", tab)
		case kind == vocab.Key && !info.Focused:
			err = errorf(vocab.CodeNotVisible, "tab %s's window no longer has the keyboard focus, so the keys could land elsewhere; nothing was fired", tab)
		}
		return err == nil
	})
	if err != nil && ctx.Err() != nil {
		return info, ctx.Err()
	}
	return info, err
}

// perform fires a committed act: OS input through the executor, or a
// browser-level call through the extension.
func (e *Engine) perform(ctx context.Context, t *tabState, ticket audit.Ticket) error {
	act := ticket.Act()
	switch act.Kind {
	case vocab.Navigate:
		return e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodNavigate, protocol.NavigateParams{Tab: t.chrome.id, URL: act.URL}, nil)
	case vocab.Back, vocab.Forward:
		return e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodNavigate, protocol.NavigateParams{Tab: t.chrome.id, Direction: string(act.Kind)}, nil)
	case vocab.Activate:
		if err := e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodActivate, protocol.ActivateParams{Tab: t.chrome.id}, nil); err != nil {
			return err
		}
		// Done once Reins' own list shows the tab in front, as the next
		// act asks it: the list follows the browser's event a moment after
		// the browser answers.
		tab := ticket.Approved().Request().Target.Tab
		pollUntil(ctx, activateWait, func() bool {
			_, info, err := e.lookup(tab)
			return err != nil || info.Active
		})
		return nil
	case vocab.CloseTab:
		return e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodCloseTab, protocol.ActivateParams{Tab: t.chrome.id}, nil)
	}
	return e.opts.Executor.Fire(ctx, ticket)
}

// picture captures the tab's visible area for the approval, with the
// target's box in the picture's pixels. When Chrome gives no picture (it
// allows only a few captures a second, and none of some pages), it sketches
// the viewport from the boxes of snap, the snapshot the agent acted from,
// with the target's box in the sketch's CSS pixels; el is the target as
// snap has it. Without either the person still decides from the words; a
// failed capture is not a reason to refuse.
func (e *Engine) picture(ctx context.Context, t *tabState, target *protocol.ResolveResult, snap *grounding.Snapshot, el grounding.Element) ([]byte, *vocab.Box, *vocab.Sketch) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var c protocol.CaptureResult
	var png []byte
	if err := e.opts.Browser.Call(cctx, t.chrome.profile, protocol.MethodCapture, protocol.CaptureParams{Tab: t.chrome.id}, &c); err == nil {
		png, _ = decodeDataURL(c.DataURL)
	}
	if target == nil {
		return png, nil, nil
	}
	b := target.TopBox
	if png == nil {
		var moved protocol.Point
		if el.Placeable {
			moved = protocol.Point{X: b.X - el.Page.X, Y: b.Y - el.Page.Y}
		}
		sk := sketchOf(snap, target.Viewport, el, moved)
		if sk == nil {
			return nil, nil, nil
		}
		return nil, &vocab.Box{X: b.X, Y: b.Y, W: b.W, H: b.H}, sk
	}
	px := target.Window.DPR
	if px <= 0 {
		px = 1
	}
	return png, &vocab.Box{X: b.X * px, Y: b.Y * px, W: b.W * px, H: b.H * px}, nil
}

func decodeDataURL(u string) ([]byte, bool) {
	const prefix = "data:image/png;base64,"
	if !strings.HasPrefix(u, prefix) {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(u[len(prefix):])
	return b, err == nil
}

// element finds the ref in the snapshot it came from.
func (s *Session) element(r agentdoor.ActRequest) (grounding.Element, *grounding.Snapshot, error) {
	e := s.e
	e.mu.Lock()
	t := e.tabs[r.Tab]
	if t == nil {
		// Closed since the caller looked it up.
		e.mu.Unlock()
		return grounding.Element{}, nil, errorf(vocab.CodeNoTab, "there is no open tab %q; list tabs first", r.Tab)
	}
	var snap *grounding.Snapshot
	if r.Snapshot != "" {
		snap = t.byID[r.Snapshot]
	} else {
		snap = t.session[s.agent.Session]
	}
	current := make(map[int]grounding.FrameState, len(t.frames))
	for k, v := range t.frames {
		current[k] = v
	}
	e.mu.Unlock()
	if snap == nil {
		if r.Snapshot != "" {
			return grounding.Element{}, nil, fmt.Errorf("%w (snapshot %s is unknown or too old)", grounding.ErrStaleRef, r.Snapshot)
		}
		return grounding.Element{}, nil, fmt.Errorf("%w (no snapshot of tab %s yet)", grounding.ErrStaleRef, r.Tab)
	}
	if !strings.HasPrefix(snap.ID, "s"+r.Tab+".") {
		return grounding.Element{}, nil, fmt.Errorf("%w (snapshot %s is of another tab)", grounding.ErrStaleRef, snap.ID)
	}
	el, err := snap.Check(r.Ref, current)
	return el, snap, err
}

// aimAt resolves el afresh and returns the plan that fires at it: its
// screen point now, through the tab's calibration.
func (e *Engine) aimAt(ctx context.Context, t *tabState, el grounding.Element) (audit.Landing, error) {
	_, _, plan, err := e.aim(ctx, t, el)
	return plan, err
}

// aim finds el on the page now and its point on screen: what the page
// said, the tab's calibration it was mapped with, and the plan.
func (e *Engine) aim(ctx context.Context, t *tabState, el grounding.Element) (*protocol.ResolveResult, *grounding.Calibrated, audit.Landing, error) {
	fresh, err := e.resolve(ctx, t, el)
	if err != nil {
		return nil, nil, audit.Landing{}, err
	}
	cal := e.calOf(t)
	pt, err := grounding.ToScreen(fresh.Point, fresh.Window, fresh.Viewport, fresh.Zoom, cal)
	if err != nil {
		return nil, nil, audit.Landing{}, err
	}
	pt = e.misplaced(pt)
	return fresh, cal, audit.Landing{X: pt.X, Y: pt.Y, Scale: pt.Scale, Frame: el.FrameOrigin}, nil
}

// maxDragBy bounds a drag by an offset, in screen points each way.
const maxDragBy = 10000

// dragEnds refuses a drag that does not say where it ends in one way: the
// ref of another element (To), or an offset (Act.DX, Act.DY).
func dragEnds(r agentdoor.ActRequest) error {
	offset := r.Act.DX != 0 || r.Act.DY != 0
	switch {
	case r.To != "" && offset:
		return errorf(vocab.CodeBadRequest, "a drag ends on an element (to) or at an offset (dx, dy), not both")
	case r.To == r.Ref && r.To != "":
		return errorf(vocab.CodeBadRequest, "a drag needs the ref of another element to drop on, from the same snapshot")
	case r.To == "" && !offset:
		return errorf(vocab.CodeBadRequest, "a drag needs the ref of another element to drop on, from the same snapshot, or an offset (dx, dy) in screen points")
	case max(r.Act.DX, -r.Act.DX, r.Act.DY, -r.Act.DY) > maxDragBy:
		return errorf(vocab.CodeBadRequest, "a drag moves at most %d points each way", maxDragBy)
	}
	return nil
}

// aimBy is aimAt for a drag by an offset: the plan starts at el's point as
// the page shows it now and ends dx, dy screen points away (dragEnd).
func (e *Engine) aimBy(ctx context.Context, t *tabState, el grounding.Element, dx, dy int) (audit.Landing, error) {
	fresh, cal, plan, err := e.aim(ctx, t, el)
	if err != nil {
		return audit.Landing{}, err
	}
	end, err := e.dragEnd(fresh, cal, dx, dy)
	if err != nil {
		return audit.Landing{}, err
	}
	plan.X2, plan.Y2 = end.X, end.Y
	return plan, nil
}

// dragEnd is where a drag by dx, dy screen points from the element the
// page found (at) ends on screen, through cal; it must still be on the
// tab's visible page, else not_visible.
func (e *Engine) dragEnd(at *protocol.ResolveResult, cal *grounding.Calibrated, dx, dy int) (grounding.ScreenPoint, error) {
	zoom := at.Zoom
	if zoom <= 0 {
		zoom = 1
	}
	p := protocol.Point{X: at.Point.X + float64(dx)/zoom, Y: at.Point.Y + float64(dy)/zoom}
	end, err := grounding.ToScreen(p, at.Window, at.Viewport, at.Zoom, cal)
	if err != nil {
		return grounding.ScreenPoint{}, &vocab.Error{Code: vocab.CodeNotVisible, Message: fmt.Sprintf("the drag would end at %.0f, %.0f on the page, outside what the tab shows (%.0f×%.0f); drag a shorter way, or scroll first", p.X, p.Y, at.Viewport.Width, at.Viewport.Height), Err: err}
	}
	return e.misplaced(end), nil
}

// resolve asks the extension to find the element again, fresh.
func (e *Engine) resolve(ctx context.Context, t *tabState, el grounding.Element) (*protocol.ResolveResult, error) {
	var res protocol.ResolveResult
	err := e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodResolve, protocol.ResolveParams{
		Tab: t.chrome.id, Frame: el.Frame, Doc: el.Doc, Epoch: el.Epoch, ID: el.ID, Role: el.Role, Name: el.Name, Path: el.Path,
	}, &res)
	if err != nil {
		return nil, err
	}
	e.noteShown(t, res.Window, res.Zoom)
	return &res, nil
}

// dropTarget finds a drag's drop target, r.To, in the snapshot the dragged
// element came from, and on the page now: it must show and be on a screen.
func (s *Session) dropTarget(ctx context.Context, t *tabState, r agentdoor.ActRequest, snap *grounding.Snapshot) (grounding.Element, error) {
	to := r
	to.Ref, to.Snapshot = r.To, snap.ID
	drop, _, err := s.element(to)
	if err != nil {
		return grounding.Element{}, dropErr(err)
	}
	at, err := s.e.resolve(ctx, t, drop)
	if err != nil {
		return grounding.Element{}, dropErr(err)
	}
	if err := s.e.landsOnScreen(ctx, t, at); err != nil {
		return grounding.Element{}, err
	}
	return drop, nil
}

// dropErr says that err is about the element a drag drops on.
func dropErr(err error) error {
	ce, _ := classify(err)
	return &vocab.Error{Code: ce.Code, Message: "the element to drop on: " + ce.Message, Err: err}
}
