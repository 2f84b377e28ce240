package settings

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/executor"
)

const (
	MinApprovalTimeout = 5 * time.Second
	MaxApprovalTimeout = 5 * time.Minute
	MinRememberFor     = time.Minute
	MaxRememberFor     = time.Hour
	MaxDeniedName      = 128 // characters in an application name the person adds to the deny list
)

var ErrInvalid = errors.New("that value cannot be used")

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

func CheckAuditRemote(s string) error {
	if s == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%w: the audit receiver must be host:port, such as logs.example.org:514 (%v)", ErrInvalid, err)
	}
	if host == "" || strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '/' }) {
		return fmt.Errorf("%w: the audit receiver %q needs a host name or address before the colon", ErrInvalid, s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%w: the audit receiver's port must be a number from 1 to 65535, not %q", ErrInvalid, port)
	}
	return nil
}

type Change func(s *Settings) (detail string, err error)

func ApprovalTimeout(d time.Duration) Change {
	return func(s *Settings) (string, error) {
		if d < MinApprovalTimeout || d > MaxApprovalTimeout {
			return "", fmt.Errorf("%w: the time to answer must be between %s and %s, not %s",
				ErrInvalid, spoken(MinApprovalTimeout), spoken(MaxApprovalTimeout), spoken(d))
		}
		if s.ApprovalTimeout == d {
			return "", nil
		}
		detail := fmt.Sprintf("approval timeout %s → %s", short(s.ApprovalTimeout), short(d))
		s.ApprovalTimeout = d
		return detail, nil
	}
}

func RememberFor(d time.Duration) Change {
	return func(s *Settings) (string, error) {
		if d < MinRememberFor || d > MaxRememberFor {
			return "", fmt.Errorf("%w: “allow on this tab” must last between %s and %s, not %s",
				ErrInvalid, spoken(MinRememberFor), spoken(MaxRememberFor), spoken(d))
		}
		if s.RememberFor == d {
			return "", nil
		}
		detail := fmt.Sprintf("allow on this tab %s → %s", short(s.RememberFor), short(d))
		s.RememberFor = d
		return detail, nil
	}
}

func BridgePort(port int) Change {
	return func(s *Settings) (string, error) {
		if port != 0 && (port < 1024 || port > 65535) {
			return "", fmt.Errorf("%w: the port must be between 1024 and 65535, or 0 to pick a free one, not %d", ErrInvalid, port)
		}
		if s.BridgePort == port {
			return "", nil
		}
		detail := fmt.Sprintf("bridge port %s → %s (from the next start)", portWords(s.BridgePort), portWords(port))
		s.BridgePort = port
		return detail, nil
	}
}

func StartAtLogin(on bool) Change {
	return func(s *Settings) (string, error) {
		if s.StartAtLogin == on {
			return "", nil
		}
		detail := fmt.Sprintf("start at login %s → %s", onOff(s.StartAtLogin), onOff(on))
		s.StartAtLogin = on
		return detail, nil
	}
}

func CanonicalPauseChord(chord string) (string, error) {
	c, err := executor.CanonicalHotkey(chord)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return c, nil
}

func PauseChord(chord string) Change {
	return func(s *Settings) (string, error) {
		c, err := CanonicalPauseChord(chord)
		if err != nil {
			return "", err
		}
		if s.PauseChord == c {
			return "", nil
		}
		detail := fmt.Sprintf("pause chord %s → %s", s.PauseChord, c)
		s.PauseChord = c
		return detail, nil
	}
}

func AddDenied(name string) Change {
	return func(s *Settings) (string, error) {
		name, err := CheckDeniedName(name)
		if err != nil {
			return "", err
		}
		if label, ok := executor.DefaultDenyList().Match(executor.App{Name: name, Exe: name, ID: name}); ok {
			return "", fmt.Errorf("%w: “%s” is already never touched: it is built in, as %s", ErrInvalid, name, label)
		}
		if i := slices.IndexFunc(s.DenyAdded, sameApp(name)); i >= 0 {
			return "", fmt.Errorf("%w: “%s” is already on your list", ErrInvalid, s.DenyAdded[i])
		}
		s.DenyAdded = append(slices.Clip(s.DenyAdded), name)
		return fmt.Sprintf("deny list + %q", name), nil
	}
}

func RemoveDenied(name string) Change {
	return func(s *Settings) (string, error) {
		name := strings.TrimSpace(name)
		if i := slices.IndexFunc(s.DenyAdded, sameApp(name)); i >= 0 {
			have := s.DenyAdded[i]
			s.DenyAdded = slices.Delete(slices.Clone(s.DenyAdded), i, i+1)
			return fmt.Sprintf("deny list − %q", have), nil
		}
		if i := slices.IndexFunc(s.DenyList, sameApp(name)); i >= 0 {
			return "", fmt.Errorf("%w: %s is built in, and the built-in entries cannot be removed", ErrInvalid, s.DenyList[i])
		}
		return "", fmt.Errorf("%w: “%s” is not on your list", ErrInvalid, name)
	}
}

func CheckDeniedName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return "", fmt.Errorf("%w: type the application's name, such as Signal, its program (signal-desktop) or its bundle ID (org.signal.Signal)", ErrInvalid)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("%w: the application name is not valid text", ErrInvalid)
	case n > MaxDeniedName:
		return "", fmt.Errorf("%w: an application name can be at most %d characters, not %d", ErrInvalid, MaxDeniedName, n)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("%w: the application name has an invisible or control character (%U); type it as it shows on screen", ErrInvalid, r)
		}
	}
	return name, nil
}

func sameApp(name string) func(string) bool {
	return func(have string) bool { return strings.EqualFold(have, name) }
}

func DenyList(added []string) executor.DenyList {
	d := executor.DefaultDenyList()
	for _, name := range added {
		d = append(d, executor.NamedRule(name))
	}
	return d
}

func BuiltInDenied() []string {
	var out []string
	for _, r := range executor.DefaultDenyList() {
		out = append(out, r.Label)
	}
	return out
}

func Defaults() Settings {
	return Settings{DenyList: BuiltInDenied(), PauseChord: executor.PauseChord}
}

func OpenApps(ws []executor.Window, added []string) []string {
	deny := DenyList(added)
	var out []string
	for _, w := range ws {
		name, err := CheckDeniedName(w.App.Name)
		if err != nil || slices.ContainsFunc(out, sameApp(name)) {
			continue
		}
		if _, denied := deny.Match(w.App); !denied {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
}

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
