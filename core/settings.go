package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
)

// EventSettings says the person changed a setting; Event.Detail says which,
// as the audit row does.
const EventSettings EventKind = "settings"

// ActSettings is the act kind of the audit row a settings change writes.
const ActSettings ActKind = approvals.Settings

// SettingsFile is where the person's settings are saved, in the data folder.
const SettingsFile = "settings.json"

// The bounds the setters accept.
const (
	MinApprovalTimeout = 5 * time.Second
	MaxApprovalTimeout = 5 * time.Minute
	MinRememberFor     = time.Minute
	MaxRememberFor     = time.Hour
)

// ErrInvalidSetting is wrapped by every error a setter returns for a value
// it does not accept; the message says what would be accepted.
var ErrInvalidSetting = errors.New("that value cannot be used")

// Settings are the person's preferences. Only the person's door changes
// them, through the setters; each change is written to the audit log first.
type Settings struct {
	ApprovalTimeout time.Duration // how long the person has to answer; silence denies
	RememberFor     time.Duration // how long "allow on this tab" lasts
	// BridgePort is the extension's port on 127.0.0.1 from the next start of
	// Reins; 0 picks a free one. A change does not move the running bridge.
	BridgePort int
	// StartAtLogin is stored only: starting Reins at login is not wired to
	// the platforms yet.
	StartAtLogin bool
	// DenyList names the applications no act may touch. It is the built-in
	// list, shown read-only: it cannot be changed.
	DenyList []string
}

// settingsOnDisk is the saved form; zero fields mean the default.
type settingsOnDisk struct {
	ApprovalTimeoutSeconds int  `json:"approvalTimeoutSeconds,omitempty"`
	RememberForSeconds     int  `json:"rememberForSeconds,omitempty"`
	BridgePort             int  `json:"bridgePort,omitempty"`
	StartAtLogin           bool `json:"startAtLogin,omitempty"`
}

// prefs holds the engine's settings.
type prefs struct {
	mu   sync.Mutex // held through a whole change: audit row, apply, save
	s    Settings   // guarded by mu; the durations mirror the broker's
	path string     // guarded by mu; "" keeps changes in memory only
}

// initPrefs fills the settings from what the broker runs with and what was
// saved; called by New.
func (e *Engine) initPrefs() {
	saved := e.opts.saved
	e.prefs.s = Settings{
		ApprovalTimeout: e.broker.Timeout(),
		RememberFor:     e.broker.Remember(),
		BridgePort:      saved.BridgePort,
		StartAtLogin:    saved.StartAtLogin,
		DenyList:        denyLabels(),
	}
	e.prefs.path = e.opts.SettingsFile
}

func denyLabels() []string {
	var out []string
	for _, r := range executor.DefaultDenyList() {
		out = append(out, r.Label)
	}
	return out
}

// Settings returns the current settings.
func (e *Engine) Settings() Settings {
	e.prefs.mu.Lock()
	defer e.prefs.mu.Unlock()
	s := e.prefs.s
	s.DenyList = append([]string(nil), s.DenyList...)
	return s
}

// SetApprovalTimeout changes how long the person has to answer, from the next
// request on; one already on screen keeps its time.
func (e *Engine) SetApprovalTimeout(d time.Duration) error {
	if d < MinApprovalTimeout || d > MaxApprovalTimeout {
		return fmt.Errorf("%w: the time to answer must be between %s and %s, not %s",
			ErrInvalidSetting, spoken(MinApprovalTimeout), spoken(MaxApprovalTimeout), spoken(d))
	}
	return e.changeSetting(func(s *Settings) string {
		if s.ApprovalTimeout == d {
			return ""
		}
		detail := fmt.Sprintf("approval timeout %s → %s", short(s.ApprovalTimeout), short(d))
		s.ApprovalTimeout = d
		return detail
	})
}

// SetRememberFor changes how long "allow on this tab" lasts. Shortening it
// also shortens what was allowed before.
func (e *Engine) SetRememberFor(d time.Duration) error {
	if d < MinRememberFor || d > MaxRememberFor {
		return fmt.Errorf("%w: “allow on this tab” must last between %s and %s, not %s",
			ErrInvalidSetting, spoken(MinRememberFor), spoken(MaxRememberFor), spoken(d))
	}
	return e.changeSetting(func(s *Settings) string {
		if s.RememberFor == d {
			return ""
		}
		detail := fmt.Sprintf("allow on this tab %s → %s", short(s.RememberFor), short(d))
		s.RememberFor = d
		return detail
	})
}

// SetBridgePort changes the extension's port for the next start of Reins;
// 0 picks a free one. The running bridge stays where it is.
func (e *Engine) SetBridgePort(port int) error {
	if port != 0 && (port < 1024 || port > 65535) {
		return fmt.Errorf("%w: the port must be between 1024 and 65535, or 0 to pick a free one, not %d", ErrInvalidSetting, port)
	}
	return e.changeSetting(func(s *Settings) string {
		if s.BridgePort == port {
			return ""
		}
		detail := fmt.Sprintf("bridge port %s → %s (from the next start)", portWords(s.BridgePort), portWords(port))
		s.BridgePort = port
		return detail
	})
}

// SetStartAtLogin records whether Reins should start at login. It is stored
// only: the platforms' login items are not wired yet.
func (e *Engine) SetStartAtLogin(on bool) error {
	return e.changeSetting(func(s *Settings) string {
		if s.StartAtLogin == on {
			return ""
		}
		detail := fmt.Sprintf("start at login %s → %s", onOff(s.StartAtLogin), onOff(on))
		s.StartAtLogin = on
		return detail
	})
}

// changeSetting writes the audit row, then applies and saves the change.
// change edits a copy of the settings and says what changed, or "" when
// nothing did. If the row cannot be written, nothing changes.
func (e *Engine) changeSetting(change func(s *Settings) string) error {
	e.prefs.mu.Lock()
	defer e.prefs.mu.Unlock()
	old, next := e.prefs.s, e.prefs.s
	detail := change(&next)
	if detail == "" {
		return nil
	}
	if _, err := e.opts.Audit.Record(context.Background(), audit.Entry{
		Agent: approvals.Agent{Name: "person"}, Act: approvals.Act{Kind: ActSettings},
		Outcome: OutcomeDone, Detail: detail,
	}); err != nil {
		return fmt.Errorf("the setting was not changed, because the audit log could not record the change: %w", err)
	}
	e.prefs.s = next
	if next.ApprovalTimeout != old.ApprovalTimeout {
		e.broker.SetTimeout(next.ApprovalTimeout)
	}
	if next.RememberFor != old.RememberFor {
		e.broker.SetRemember(next.RememberFor)
	}
	var saveErr error
	if e.prefs.path != "" {
		if err := saveSettings(e.prefs.path, next); err != nil {
			saveErr = fmt.Errorf("the change applies now but could not be saved for the next start: %w", err)
		}
	}
	e.publish(Event{Kind: EventSettings, Detail: detail})
	return saveErr
}

// loadSettings reads the settings saved at path. A missing file gives the
// defaults (zero values); a value out of bounds is dropped with a note in
// the returned problems, so a damaged file never stops Reins from starting.
func loadSettings(path string) (Settings, []string) {
	var s Settings
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, []string{fmt.Sprintf("reading %s: %v; using the defaults", path, err)}
	}
	var d settingsOnDisk
	if err := json.Unmarshal(b, &d); err != nil {
		return s, []string{fmt.Sprintf("%s is not valid JSON (%v); using the defaults", path, err)}
	}
	var problems []string
	if t := time.Duration(d.ApprovalTimeoutSeconds) * time.Second; t != 0 {
		if t >= MinApprovalTimeout && t <= MaxApprovalTimeout {
			s.ApprovalTimeout = t
		} else {
			problems = append(problems, fmt.Sprintf("%s: approval timeout %s is out of bounds; using the default", path, short(t)))
		}
	}
	if r := time.Duration(d.RememberForSeconds) * time.Second; r != 0 {
		if r >= MinRememberFor && r <= MaxRememberFor {
			s.RememberFor = r
		} else {
			problems = append(problems, fmt.Sprintf("%s: “allow on this tab” %s is out of bounds; using the default", path, short(r)))
		}
	}
	if d.BridgePort != 0 {
		if d.BridgePort >= 1024 && d.BridgePort <= 65535 {
			s.BridgePort = d.BridgePort
		} else {
			problems = append(problems, fmt.Sprintf("%s: bridge port %d is out of bounds; picking a free one", path, d.BridgePort))
		}
	}
	s.StartAtLogin = d.StartAtLogin
	return s, problems
}

// saveSettings writes s to path, owner-only, replacing the old file whole.
func saveSettings(path string, s Settings) error {
	b, err := json.MarshalIndent(settingsOnDisk{
		ApprovalTimeoutSeconds: int(s.ApprovalTimeout / time.Second),
		RememberForSeconds:     int(s.RememberFor / time.Second),
		BridgePort:             s.BridgePort,
		StartAtLogin:           s.StartAtLogin,
	}, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// short writes a duration as the audit row does: "45s", "10m", "1m30s".
func short(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%ds", d/time.Minute, (d%time.Minute)/time.Second)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// spoken writes a duration for an error message: "5 seconds", "5 minutes".
func spoken(d time.Duration) string {
	d = d.Round(time.Second)
	unit := func(n time.Duration, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(d/time.Hour, "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(d/time.Minute, "minute")
	}
	return unit(d/time.Second, "second")
}

func portWords(p int) string {
	if p == 0 {
		return "any free port"
	}
	return fmt.Sprint(p)
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
