package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/atomicfile"
	"github.com/reins-app/reins/internal/autostart"
	"github.com/reins-app/reins/vocab"
)

// EventSettings says the person changed a setting; Event.Detail says which,
// as the audit row does.
const EventSettings EventKind = "settings"

// ActSettings is the act kind of the audit row a settings change writes.
const ActSettings vocab.ActKind = vocab.Settings

// SettingsFile is where the person's settings are saved, in the data folder.
const SettingsFile = "settings.json"

// The bounds the setters accept.
const (
	MinApprovalTimeout = 5 * time.Second
	MaxApprovalTimeout = 5 * time.Minute
	MinRememberFor     = time.Minute
	MaxRememberFor     = time.Hour
	MaxDeniedName      = 128 // characters in an application name the person adds to the deny list
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
	// StartAtLogin reports whether Reins starts when the person logs in: its
	// entry is in the desktop's login items (an XDG autostart entry on
	// Linux, a LaunchAgent on macOS). On macOS it says only that the entry
	// is there; the person may have switched it off in Login Items.
	StartAtLogin bool
	// DenyList names the built-in applications no act may touch. It is the
	// floor of protection: the person can add to it, never take from it.
	DenyList []string
	// PauseChord is the chord that pauses every agent from anywhere on the
	// desktop, in executor.CanonicalHotkey's spelling.
	PauseChord string
	// DenyAdded are the applications the person added to the deny list, as
	// they typed them, each matched as [executor.NamedRule] says.
	DenyAdded []string
	// AuditRemote is host:port of a syslog receiver (RFC 5424 over TCP)
	// that gets each audit row's seq and hash, from the next start; "" for
	// none. Set in settings.json ("auditAnchor"); Preferences does not
	// show it yet.
	AuditRemote string
	// AuditRemoteRequired refuses every act while AuditRemote does not
	// answer (reads go on), code audit_anchor_unreachable.
	AuditRemoteRequired bool
}

// auditAnchorOnDisk is the saved form of the remote audit receiver.
type auditAnchorOnDisk struct {
	Remote   string `json:"remote,omitempty"`   // host:port
	Required bool   `json:"required,omitempty"` // refuse acts while it does not answer
}

// CheckAuditRemote checks that s can name a remote audit receiver:
// host:port with a port from 1 to 65535; "" for none.
func CheckAuditRemote(s string) error {
	if s == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%w: the audit receiver must be host:port, such as logs.example.org:514 (%v)", ErrInvalidSetting, err)
	}
	if host == "" || strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '/' }) {
		return fmt.Errorf("%w: the audit receiver %q needs a host name or address before the colon", ErrInvalidSetting, s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%w: the audit receiver's port must be a number from 1 to 65535, not %q", ErrInvalidSetting, port)
	}
	return nil
}

// settingsOnDisk is the saved form; zero fields mean the default.
type settingsOnDisk struct {
	ApprovalTimeoutSeconds int      `json:"approvalTimeoutSeconds,omitempty"`
	RememberForSeconds     int      `json:"rememberForSeconds,omitempty"`
	BridgePort             int      `json:"bridgePort,omitempty"`
	StartAtLogin           bool     `json:"startAtLogin,omitempty"`
	DenyAdded              []string `json:"denyAdded,omitempty"`
	PauseChord             string   `json:"pauseChord,omitempty"`
	// AuditAnchor is kept as written by the person; see Settings.AuditRemote.
	AuditAnchor *auditAnchorOnDisk `json:"auditAnchor,omitempty"`
}

// prefs holds the engine's settings.
type prefs struct {
	// change is held through a whole change: audit row, effect, apply,
	// save. mu guards only s, for moments, so that reading the settings
	// never waits for a change's effect (taking a chord on macOS waits for
	// the main thread, which reads the settings).
	change sync.Mutex
	mu     sync.Mutex
	s      Settings // guarded by mu; written only with change held; the durations mirror the broker's
	path   string   // set by initPrefs; "" keeps changes in memory only
	// login says the engine adds and removes its entry in the desktop's
	// login items. Only an engine with a settings file does: one whose
	// settings last for this run only (tests among them) records the choice
	// without touching the person's login items.
	login bool

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
	e.prefs.s = Settings{
		ApprovalTimeout: e.broker.Timeout(),
		RememberFor:     e.broker.Remember(),
		BridgePort:      saved.BridgePort,
		StartAtLogin:    saved.StartAtLogin,
		DenyList:        denyLabels(),
		DenyAdded:       slices.Clone(saved.DenyAdded),
		PauseChord:      saved.PauseChord,

		AuditRemote:         saved.AuditRemote,
		AuditRemoteRequired: saved.AuditRemoteRequired,
	}
	if e.prefs.s.PauseChord == "" {
		e.prefs.s.PauseChord = executor.PauseChord
	}
	e.prefs.path = e.opts.SettingsFile
	e.prefs.login = e.opts.SettingsFile != ""
	if e.prefs.login {
		e.prefs.s.StartAtLogin = e.loginState(saved.StartAtLogin)
	}
	// With nothing added the executor's own list stands: the default, or
	// one a test gave it.
	if len(saved.DenyAdded) > 0 {
		e.opts.Executor.SetDenyList(denyListWith(saved.DenyAdded))
	}
}

// loginState is whether Reins really starts at login, which is what the
// preferences show. The person may have removed the entry in the desktop's
// own settings; Reins does not put it back behind their back.
func (e *Engine) loginState(saved bool) bool {
	on, err := autostart.Enabled()
	if err != nil {
		e.opts.Logf("settings: cannot tell whether Reins starts at login (%v); showing the saved setting", err)
		return saved
	}
	where, _ := autostart.Path()
	switch {
	case saved && !on:
		e.opts.Logf("settings: start at login was on, but its entry %s is gone or switched off outside Reins; showing it off until it is turned on again in Preferences", where)
	case !saved && on:
		e.opts.Logf("settings: start at login was off, but %s starts Reins at login; showing it on", where)
	}
	return on
}

// denyListWith is the built-in deny list and after it the person's
// additions, as the executor checks it.
func denyListWith(added []string) executor.DenyList {
	d := executor.DefaultDenyList()
	for _, name := range added {
		d = append(d, executor.NamedRule(name))
	}
	return d
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
	s.DenyList = slices.Clone(s.DenyList)
	s.DenyAdded = slices.Clone(s.DenyAdded)
	return s
}

// SetApprovalTimeout changes how long the person has to answer, from the next
// request on; one already on screen keeps its time.
func (e *Engine) SetApprovalTimeout(d time.Duration) error {
	if d < MinApprovalTimeout || d > MaxApprovalTimeout {
		return fmt.Errorf("%w: the time to answer must be between %s and %s, not %s",
			ErrInvalidSetting, spoken(MinApprovalTimeout), spoken(MaxApprovalTimeout), spoken(d))
	}
	return e.changeSetting(func(s *Settings) (string, error) {
		if s.ApprovalTimeout == d {
			return "", nil
		}
		detail := fmt.Sprintf("approval timeout %s → %s", short(s.ApprovalTimeout), short(d))
		s.ApprovalTimeout = d
		return detail, nil
	}, nil)
}

// SetRememberFor changes how long "allow on this tab" lasts. Shortening it
// also shortens what was allowed before.
func (e *Engine) SetRememberFor(d time.Duration) error {
	if d < MinRememberFor || d > MaxRememberFor {
		return fmt.Errorf("%w: “allow on this tab” must last between %s and %s, not %s",
			ErrInvalidSetting, spoken(MinRememberFor), spoken(MaxRememberFor), spoken(d))
	}
	return e.changeSetting(func(s *Settings) (string, error) {
		if s.RememberFor == d {
			return "", nil
		}
		detail := fmt.Sprintf("allow on this tab %s → %s", short(s.RememberFor), short(d))
		s.RememberFor = d
		return detail, nil
	}, nil)
}

// SetBridgePort changes the extension's port for the next start of Reins;
// 0 picks a free one. The running bridge stays where it is.
func (e *Engine) SetBridgePort(port int) error {
	if port != 0 && (port < 1024 || port > 65535) {
		return fmt.Errorf("%w: the port must be between 1024 and 65535, or 0 to pick a free one, not %d", ErrInvalidSetting, port)
	}
	return e.changeSetting(func(s *Settings) (string, error) {
		if s.BridgePort == port {
			return "", nil
		}
		detail := fmt.Sprintf("bridge port %s → %s (from the next start)", portWords(s.BridgePort), portWords(port))
		s.BridgePort = port
		return detail, nil
	}, nil)
}

// SetStartAtLogin adds Reins, this very program, to the desktop's login
// items or takes it off them: an XDG autostart entry on Linux, a
// LaunchAgent on macOS. The audit row comes first; if the entry cannot be
// written or removed, the setting stays as it was, a second row says so,
// and the error says why.
func (e *Engine) SetStartAtLogin(on bool) error {
	return e.changeSetting(func(s *Settings) (string, error) {
		if s.StartAtLogin == on {
			return "", nil
		}
		detail := fmt.Sprintf("start at login %s → %s", onOff(s.StartAtLogin), onOff(on))
		s.StartAtLogin = on
		return detail, nil
	}, func() error {
		if !e.prefs.login {
			return nil
		}
		return registerAtLogin(on)
	})
}

func registerAtLogin(on bool) error {
	if !on {
		if err := autostart.Disable(); err != nil {
			return fmt.Errorf("start at login is still on, because Reins could not remove its login entry (%w); you can also remove Reins from your desktop's startup applications or login items", err)
		}
		return nil
	}
	exe := testOnlyExecutable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("start at login is still off, because Reins cannot tell where its own program is: %w", err)
		}
	}
	err := autostart.Enable(exe)
	switch {
	case errors.Is(err, autostart.ErrTransient):
		return fmt.Errorf("start at login is still off, because %w", err)
	case err != nil:
		return fmt.Errorf("start at login is still off, because Reins could not add itself to the login items (%w); check that the folder is yours and can be written to", err)
	}
	return nil
}

// testOnlyExecutable, when set, is the program SetStartAtLogin registers in
// place of this one: a test binary lives in a temporary build folder, which
// autostart rightly refuses.
var testOnlyExecutable string

// SetPauseChord changes the chord that pauses every agent. The new chord is
// taken for Reins across the desktop before the old one is let go; if it
// cannot be taken (another program holds it), the old chord stays and the
// error says why.
func (e *Engine) SetPauseChord(chord string) error {
	c, err := executor.CanonicalHotkey(chord)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidSetting, err)
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
	return e.changeSetting(func(s *Settings) (string, error) {
		if s.PauseChord == c {
			return "", nil
		}
		old = s.PauseChord
		detail := fmt.Sprintf("pause chord %s → %s", old, c)
		s.PauseChord = c
		return detail, nil
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

// pauseChordOnDisk is what settings.json keeps: nothing for the default.
func pauseChordOnDisk(c string) string {
	if c == executor.PauseChord {
		return ""
	}
	return c
}

// AddDenied puts an application on the deny list, named as the person
// would type it: "Signal", "signal-desktop" or "org.signal.Signal" (see
// [executor.NamedRule]). The executor refuses it from its next check on, an
// act already approved included.
func (e *Engine) AddDenied(name string) error {
	name, err := checkDeniedName(name)
	if err != nil {
		return err
	}
	if label, ok := executor.DefaultDenyList().Match(executor.App{Name: name, Exe: name, ID: name}); ok {
		return fmt.Errorf("%w: “%s” is already never touched: it is built in, as %s", ErrInvalidSetting, name, label)
	}
	return e.changeSetting(func(s *Settings) (string, error) {
		if i := slices.IndexFunc(s.DenyAdded, sameApp(name)); i >= 0 {
			return "", fmt.Errorf("%w: “%s” is already on your list", ErrInvalidSetting, s.DenyAdded[i])
		}
		s.DenyAdded = append(slices.Clip(s.DenyAdded), name)
		return fmt.Sprintf("deny list + %q", name), nil
	}, nil)
}

// RemoveDenied takes an application the person added off the deny list.
// The built-in entries cannot be removed.
func (e *Engine) RemoveDenied(name string) error {
	name = strings.TrimSpace(name)
	return e.changeSetting(func(s *Settings) (string, error) {
		if i := slices.IndexFunc(s.DenyAdded, sameApp(name)); i >= 0 {
			have := s.DenyAdded[i]
			s.DenyAdded = slices.Delete(slices.Clone(s.DenyAdded), i, i+1)
			return fmt.Sprintf("deny list − %q", have), nil
		}
		if i := slices.IndexFunc(s.DenyList, sameApp(name)); i >= 0 {
			return "", fmt.Errorf("%w: %s is built in, and the built-in entries cannot be removed", ErrInvalidSetting, s.DenyList[i])
		}
		return "", fmt.Errorf("%w: “%s” is not on your list", ErrInvalidSetting, name)
	}, nil)
}

// checkDeniedName is name trimmed, or why it cannot name an application:
// empty, too long, or with characters that would not show as typed.
func checkDeniedName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return "", fmt.Errorf("%w: type the application's name, such as Signal, its program (signal-desktop) or its bundle ID (org.signal.Signal)", ErrInvalidSetting)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("%w: the application name is not valid text", ErrInvalidSetting)
	case n > MaxDeniedName:
		return "", fmt.Errorf("%w: an application name can be at most %d characters, not %d", ErrInvalidSetting, MaxDeniedName, n)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("%w: the application name has an invisible or control character (%U); type it as it shows on screen", ErrInvalidSetting, r)
		}
	}
	return name, nil
}

// sameApp reports whether a name on the deny list is name, which rules
// match case-insensitively.
func sameApp(name string) func(string) bool {
	return func(have string) bool { return strings.EqualFold(have, name) }
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
	deny := denyListWith(e.Settings().DenyAdded)
	var out []string
	for _, w := range ws {
		name, err := checkDeniedName(w.App.Name)
		if err != nil || slices.ContainsFunc(out, sameApp(name)) {
			continue
		}
		if _, denied := deny.Match(w.App); !denied {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out, nil
}

// changeSetting writes the audit row, then applies and saves the change.
// change edits a copy of the settings and says what changed, "" when
// nothing did, or why the change cannot be made. effect, if any, is the
// change's mark outside Reins, made after the row is written. If the row
// cannot be written, nothing changes; if effect fails, nothing changes
// either, and a second row says why.
func (e *Engine) changeSetting(change func(s *Settings) (string, error), effect func() error) error {
	e.prefs.change.Lock()
	defer e.prefs.change.Unlock()
	old := e.Settings()
	next := e.Settings()
	detail, err := change(&next)
	if err != nil || detail == "" {
		return err
	}
	row := audit.Entry{
		Agent: vocab.Agent{Name: "person"}, Act: vocab.Act{Kind: ActSettings},
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
		e.opts.Executor.SetDenyList(denyListWith(next.DenyAdded))
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
// A file that cannot be read as settings at all is renamed to
// settings.json.bad, replacing an older one, so that saving a change does
// not destroy what the person had set.
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
		// The next change would replace the file, and the person's values
		// (their additions to the deny list among them) with it: set it
		// aside first, where they can still be read and put back.
		bad := path + ".bad"
		var anchorNote string
		if bytes.Contains(b, []byte(`"auditAnchor"`)) {
			// It may have named a required receiver: the defaults must not
			// lift that rule, so acts are refused until it is mended.
			s.AuditRemoteRequired = true
			anchorNote = "; it names an audit anchor, which is taken as required and unknown, so acts are refused until the file is mended"
		}
		if rerr := os.Rename(path, bad); rerr != nil {
			return s, []string{fmt.Sprintf("%s cannot be read as settings (%v), nor set aside as %s (%v); using the defaults, and the next change in Preferences will replace it%s", path, err, filepath.Base(bad), rerr, anchorNote)}
		}
		return s, []string{fmt.Sprintf("%s cannot be read as settings (%v); it is kept as %s for you to mend or delete, and Reins uses the defaults until then%s", path, err, bad, anchorNote)}
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
	if d.PauseChord != "" {
		if c, err := executor.CanonicalHotkey(d.PauseChord); err == nil {
			s.PauseChord = c
		} else {
			problems = append(problems, fmt.Sprintf("%s: pause chord %q cannot be used (%v); using %s", path, d.PauseChord, err, executor.PauseChord))
		}
	}
	if a := d.AuditAnchor; a != nil {
		switch err := CheckAuditRemote(a.Remote); {
		case err != nil && a.Required:
			// Dropping a required receiver would quietly lift the rule.
			problems = append(problems, fmt.Sprintf("%s: %s; acts are refused until it is mended, since the receiver was marked required", path, strings.TrimPrefix(err.Error(), ErrInvalidSetting.Error()+": ")))
			s.AuditRemote, s.AuditRemoteRequired = a.Remote, true
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %s; audit rows are not sent to a receiver", path, strings.TrimPrefix(err.Error(), ErrInvalidSetting.Error()+": ")))
		case a.Required && a.Remote == "":
			// Required means no act without it: with none named, none fires.
			problems = append(problems, fmt.Sprintf("%s: the audit anchor is marked required but names no receiver (\"remote\": \"host:port\"); acts are refused until it names one or is no longer required", path))
			s.AuditRemoteRequired = true
		default:
			s.AuditRemote, s.AuditRemoteRequired = a.Remote, a.Required
		}
	}
	for _, n := range d.DenyAdded {
		name, err := checkDeniedName(n)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: deny list entry %q dropped: %s", path, n, strings.TrimPrefix(err.Error(), ErrInvalidSetting.Error()+": ")))
		case slices.ContainsFunc(s.DenyAdded, sameApp(name)):
			problems = append(problems, fmt.Sprintf("%s: deny list entry %q is there twice; keeping one", path, n))
		default:
			s.DenyAdded = append(s.DenyAdded, name)
		}
	}
	return s, problems
}

// saveSettings writes s to path, owner-only, replacing the old file whole.
func saveSettings(path string, s Settings) error {
	b, err := json.MarshalIndent(settingsOnDisk{
		ApprovalTimeoutSeconds: int(s.ApprovalTimeout / time.Second),
		RememberForSeconds:     int(s.RememberFor / time.Second),
		BridgePort:             s.BridgePort,
		StartAtLogin:           s.StartAtLogin,
		DenyAdded:              s.DenyAdded,
		PauseChord:             pauseChordOnDisk(s.PauseChord),
		AuditAnchor:            auditAnchorToDisk(s),
	}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

func auditAnchorToDisk(s Settings) *auditAnchorOnDisk {
	if s.AuditRemote == "" && !s.AuditRemoteRequired {
		return nil
	}
	return &auditAnchorOnDisk{Remote: s.AuditRemote, Required: s.AuditRemoteRequired}
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
