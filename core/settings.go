package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// prefs holds the engine's settings.
type prefs struct {
	// change is held through a whole change: audit row, effect, apply,
	// save. mu guards only s, for moments, so that reading the settings
	// never waits for a change's effect (taking a chord on macOS waits for
	// the main thread, which reads the settings).
	change sync.Mutex
	mu     sync.Mutex
	s      settings.Settings // guarded by mu; written only with change held; the durations mirror the broker's
	store  settings.Store    // set by initPrefs; nil keeps changes in memory only
	// login is where the engine adds and removes its entry in the desktop's
	// login items; nil records the choice without touching them, as an
	// engine whose settings last for this run only (tests among them) does.
	login settings.Login

	hotkeyMu sync.Mutex
	// takeHotkey, when set, takes a new pause chord across the desktop and
	// lets the old one go; see Runtime.WatchPauseHotkey.
	takeHotkey func(chord string) error // guarded by hotkeyMu
}

// initPrefs fills the settings from what the broker runs with, what was
// saved and what the desktop's login items hold, and hands the person's
// additions to the deny list to the executor; called by New.
func (e *Engine) initPrefs() {
	saved := e.opts.saved
	s := settings.Defaults()
	s.ApprovalTimeout, s.RememberFor = e.broker.Timeout(), e.broker.Remember()
	s.BridgePort, s.StartAtLogin = saved.BridgePort, saved.StartAtLogin
	s.DenyAdded = slices.Clone(saved.DenyAdded)
	s.AuditRemote, s.AuditRemoteRequired, s.AuditCopies = saved.AuditRemote, saved.AuditRemoteRequired, saved.AuditCopies
	if saved.PauseChord != "" {
		s.PauseChord = saved.PauseChord
	}
	e.prefs.store, e.prefs.login = e.opts.Settings, e.opts.Login
	if e.prefs.login != nil {
		s.StartAtLogin = settings.LoginState(e.prefs.login, saved.StartAtLogin, e.opts.Logf)
	}
	if len(e.opts.OwnProcesses) > 0 {
		s.DenyList = append(s.DenyList, executor.OwnLabel)
	}
	e.prefs.s = s
	e.opts.Executor.SetDenyList(e.denyList(saved.DenyAdded))
}

// denyList is what the executor checks: the built-in list, the person's
// additions, and Reins' own windows, found by process.
func (e *Engine) denyList(added []string) denylist.List {
	// The organisation's additions before the person's: each is a rule
	// like theirs, which the person's settings cannot take away.
	d := settings.DenyList(append(e.rules().DenyApplications(), added...))
	if own := e.ownProcesses(); len(own) > 0 {
		// First, so that a window of Reins' own is refused as that, whatever
		// rule its name also matches.
		d = append(denylist.List{executor.OwnRule(own)}, d...)
	}
	return d
}

// Settings returns the current settings.
func (e *Engine) Settings() settings.Settings {
	e.prefs.mu.Lock()
	s := e.prefs.s
	e.prefs.mu.Unlock()
	// The time to answer the broker runs with: the person's, within the
	// organisation's bounds.
	s.ApprovalTimeout = e.rules().ClampTimeout(s.ApprovalTimeout)
	s.DenyList = slices.Clone(s.DenyList)
	s.DenyAdded = slices.Clone(s.DenyAdded)
	return s
}

// SetApprovalTimeout changes how long the person has to answer, from the next
// request on; one already on screen keeps its time.
func (e *Engine) SetApprovalTimeout(d time.Duration) error {
	if err := e.timeoutPolicy(d); err != nil {
		return err
	}
	return e.changeSetting(settings.ApprovalTimeout(d), nil)
}

// SetRememberFor changes how long "allow on this tab" lasts. Shortening it
// also shortens what was allowed before.
func (e *Engine) SetRememberFor(d time.Duration) error {
	return e.changeSetting(settings.RememberFor(d), nil)
}

// SetBridgePort changes the extension's port for the next start of Reins;
// 0 picks a free one. The running bridge stays where it is.
func (e *Engine) SetBridgePort(port int) error {
	return e.changeSetting(settings.BridgePort(port), nil)
}

// SetStartAtLogin adds Reins, this very program, to the desktop's login
// items or takes it off them: an XDG autostart entry on Linux, a
// LaunchAgent on macOS. The audit row comes first; if the entry cannot be
// written or removed, the setting stays as it was, a second row says so,
// and the error says why.
func (e *Engine) SetStartAtLogin(on bool) error {
	return e.changeSetting(settings.StartAtLogin(on), func() error {
		if e.prefs.login == nil {
			return nil
		}
		return e.prefs.login.Set(on)
	})
}

// SetPauseChord changes the chord that pauses every agent. The new chord is
// taken for Reins across the desktop before the old one is let go; if it
// cannot be taken (another program holds it), the old chord stays and the
// error says why.
func (e *Engine) SetPauseChord(chord string) error {
	c, err := settings.CanonicalPauseChord(chord)
	if err != nil {
		return err
	}
	takeFn := func() func(string) error {
		e.prefs.hotkeyMu.Lock()
		defer e.prefs.hotkeyMu.Unlock()
		return e.prefs.takeHotkey
	}
	if e.Settings().PauseChord == c {
		// Not a change; but a chord another program held may be free now.
		if take := takeFn(); take != nil {
			return take(c)
		}
		return nil
	}
	var old string
	change := settings.PauseChord(c)
	return e.changeSetting(func(s *settings.Settings) (string, error) {
		old = s.PauseChord
		return change(s)
	}, func() error {
		take := takeFn()
		if take == nil {
			return nil // nothing watches the desktop's keys: the chord is used from the next start
		}
		if err := take(c); err != nil {
			return fmt.Errorf("the pause chord is still %s, because %s cannot be taken: %w", old, c, err)
		}
		return nil
	})
}

// AddDenied puts an application on the deny list, named as the person
// would type it (see [settings.AddDenied]). The executor refuses it from
// its next check on, an act already approved included.
func (e *Engine) AddDenied(name string) error { return e.changeSetting(settings.AddDenied(name), nil) }

// RemoveDenied takes an application the person added off the deny list.
// The built-in entries cannot be removed.
func (e *Engine) RemoveDenied(name string) error {
	for _, n := range e.rules().DenyApplications() {
		if strings.EqualFold(n, strings.TrimSpace(name)) && !slices.ContainsFunc(e.Settings().DenyAdded, func(h string) bool { return strings.EqualFold(h, n) }) {
			return fmt.Errorf("%w: %s", settings.ErrInvalid, e.Policy().Refusal(fmt.Sprintf("denyApplications lists “%s”, which you cannot take off", n)))
		}
	}
	return e.changeSetting(settings.RemoveDenied(name), nil)
}

// OpenApps names the applications with a window open now that the deny
// list does not already cover, sorted, for the person to choose from when
// adding to it. It reads the desktop for the person, not for an agent, and
// so is not audited.
func (e *Engine) OpenApps(ctx context.Context) ([]string, error) {
	ws, err := e.opts.Executor.Windows(ctx)
	if err != nil {
		return nil, err
	}
	own := e.ownProcesses()
	var apps []vocab.App
	for _, w := range ws {
		if !slices.Contains(own, w.App.PID) {
			apps = append(apps, w.App)
		}
	}
	return settings.OpenApps(apps, e.Settings().DenyAdded), nil
}

// changeSetting writes the audit row, then applies and saves the change.
// change edits a copy of the settings and says what changed, "" when
// nothing did, or why the change cannot be made. effect, if any, is the
// change's mark outside Reins, made after the row is written. If the row
// cannot be written, nothing changes; if effect fails, nothing changes
// either, and a second row says why.
func (e *Engine) changeSetting(change settings.Change, effect func() error) error {
	e.prefs.change.Lock()
	defer e.prefs.change.Unlock()
	old := e.Settings()
	next := e.Settings()
	detail, err := change(&next)
	if err != nil || detail == "" {
		return err
	}
	row := audit.Entry{
		Agent: vocab.Agent{Name: "person"}, Act: vocab.Act{Kind: vocab.Settings},
		Outcome: vocab.OutcomeDone, Detail: detail,
	}
	if _, err := e.opts.Audit.Record(context.Background(), row); err != nil {
		return fmt.Errorf("the setting was not changed, because the audit log could not record the change: %w", err)
	}
	if effect != nil {
		if err := effect(); err != nil {
			row.Outcome, row.Detail = vocab.OutcomeFailed, err.Error()
			if _, rerr := e.opts.Audit.Record(context.Background(), row); rerr != nil {
				e.opts.Logf("audit: %v", rerr)
			}
			return err
		}
	}
	e.prefs.mu.Lock()
	e.prefs.s = next
	e.prefs.mu.Unlock()
	if next.ApprovalTimeout != old.ApprovalTimeout {
		e.broker.SetTimeout(next.ApprovalTimeout)
	}
	if next.RememberFor != old.RememberFor {
		e.broker.SetRemember(next.RememberFor)
	}
	if !slices.Equal(next.DenyAdded, old.DenyAdded) {
		e.opts.Executor.SetDenyList(e.denyList(next.DenyAdded))
	}
	var saveErr error
	if e.prefs.store != nil {
		if err := e.prefs.store.Save(next); err != nil {
			saveErr = fmt.Errorf("the change applies now but could not be saved for the next start: %w", err)
		}
	}
	e.publish(persondoor.Event{Kind: persondoor.EventSettings, Detail: detail})
	return saveErr
}
