package settings

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/keychord"
	"github.com/reins-app/reins/vocab"
)

// The bounds the changes accept.
const (
	MinApprovalTimeout = 5 * time.Second
	MaxApprovalTimeout = 5 * time.Minute
	MinRememberFor     = time.Minute
	MaxRememberFor     = time.Hour
	MaxDeniedName      = 128 // characters in an application name the person adds to the deny list
)

// ErrInvalid is wrapped by every error a change returns for a value it does
// not accept; the message says what would be accepted.
var ErrInvalid = errors.New("that value cannot be used")

// Settings are the person's preferences. Only the person's door changes
// them, each change written to the audit log first.
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
	// desktop, in keychord.CanonicalHotkey's spelling.
	PauseChord string
	// DenyAdded are the applications the person added to the deny list, as
	// they typed them, each matched as [denylist.Named] says.
	DenyAdded []string
	// AuditRemote is host:port of a syslog receiver (RFC 5424 over TCP)
	// that gets each audit row's seq and hash, from the next start; "" for
	// none. Set in settings.json ("auditAnchor"); Preferences does not
	// show it yet.
	AuditRemote string
	// AuditRemoteRequired refuses every act while AuditRemote does not
	// answer (reads go on), code audit_anchor_unreachable.
	AuditRemoteRequired bool
	// AuditCopies are the rest of where audit rows go and how long the
	// log keeps them, set in settings.json ("auditAnchor",
	// "auditRetention"); Preferences shows them and does not change them.
	AuditCopies AuditCopies
}

// AuditCopies are the audit log's copies outside the database, beside the
// remote receiver, and its retention.
type AuditCopies struct {
	// RemoteTLS speaks TLS to AuditRemote (RFC 5425) and sends whole
	// rows; nil keeps plain TCP, which carries each row's seq and hash.
	RemoteTLS *AuditTLS
	// OTLP sends whole rows to an OpenTelemetry collector; nil for none.
	OTLP *AuditOTLP
	// RequireAnchor refuses every act while no copy of the log leaves
	// the database (no system log, no receiver answers).
	RequireAnchor bool
	// RetainDays and RetainMegabytes remove the oldest sealed parts of
	// the log past that age or past that total size; 0 keeps them.
	RetainDays, RetainMegabytes int
}

// AuditTLS says how to trust a receiver and how to show who sends: PEM
// files, each optional (CA "" trusts the system's roots; Cert and Key go
// together).
type AuditTLS struct {
	CA, Cert, Key string
	ServerName    string // the name its certificate must carry; default its host
}

// AuditOTLP is an OpenTelemetry collector's OTLP/HTTP logs endpoint.
type AuditOTLP struct {
	URL      string // https://host:4318/v1/logs; http:// only to this computer
	TLS      AuditTLS
	Headers  map[string]string // sent with each request (an API key)
	Required bool              // refuse acts while it does not answer
}

// CheckAuditTLS checks that t can be used: Cert and Key together, each
// file an absolute path.
func CheckAuditTLS(t AuditTLS) error {
	if (t.Cert == "") != (t.Key == "") {
		return fmt.Errorf("%w: a client certificate needs both \"cert\" and \"key\"", ErrInvalid)
	}
	for _, f := range []string{t.CA, t.Cert, t.Key} {
		if f != "" && !filepath.IsAbs(f) {
			return fmt.Errorf("%w: %q must be an absolute path", ErrInvalid, f)
		}
	}
	return nil
}

// CheckAuditOTLP checks that u can name a collector: an https URL, or http
// to this computer's own addresses.
func CheckAuditOTLP(u string) error {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "https" && p.Scheme != "http") {
		return fmt.Errorf("%w: the collector must be an https URL such as https://otel.example.org:4318/v1/logs, not %q", ErrInvalid, u)
	}
	if p.Scheme == "http" {
		h := p.Hostname()
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%w: %s would send audit rows unencrypted over the network; use https://", ErrInvalid, u)
		}
	}
	return nil
}

// CheckAuditRemote checks that s can name a remote audit receiver:
// host:port with a port from 1 to 65535; "" for none.
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

// A Change edits a copy of the settings and says what changed in the
// words of its audit row: "" when nothing did, or an error wrapping
// [ErrInvalid] when the change cannot be made.
type Change func(s *Settings) (detail string, err error)

// ApprovalTimeout changes how long the person has to answer.
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

// RememberFor changes how long "allow on this tab" lasts.
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

// BridgePort changes the extension's port for the next start of Reins; 0
// picks a free one.
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

// StartAtLogin records whether Reins starts at login; the login entry
// itself is a [Login]'s to make.
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

// CanonicalPauseChord checks that chord can be the pause chord and returns
// it in keychord.CanonicalHotkey's spelling.
func CanonicalPauseChord(chord string) (string, error) {
	c, err := keychord.CanonicalHotkey(chord)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return c, nil
}

// PauseChord changes the chord that pauses every agent.
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

// AddDenied puts an application on the deny list, named as the person
// would type it: "Signal", "signal-desktop" or "org.signal.Signal" (see
// [denylist.Named]).
func AddDenied(name string) Change {
	return func(s *Settings) (string, error) {
		name, err := CheckDeniedName(name)
		if err != nil {
			return "", err
		}
		if label, ok := denylist.Default().Match(vocab.App{Name: name, Exe: name, ID: name}); ok {
			return "", fmt.Errorf("%w: “%s” is already never touched: it is built in, as %s", ErrInvalid, name, label)
		}
		if i := slices.IndexFunc(s.DenyAdded, sameApp(name)); i >= 0 {
			return "", fmt.Errorf("%w: “%s” is already on your list", ErrInvalid, s.DenyAdded[i])
		}
		s.DenyAdded = append(slices.Clip(s.DenyAdded), name)
		return fmt.Sprintf("deny list + %q", name), nil
	}
}

// RemoveDenied takes an application the person added off the deny list.
// The built-in entries cannot be removed.
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

// CheckDeniedName is name trimmed, or why it cannot name an application:
// empty, too long, or with characters that would not show as typed.
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

// sameApp reports whether a name on the deny list is name, which rules
// match case-insensitively.
func sameApp(name string) func(string) bool {
	return func(have string) bool { return strings.EqualFold(have, name) }
}

// DenyList is the built-in deny list and after it the person's additions,
// as the executor checks it.
func DenyList(added []string) denylist.List {
	d := denylist.Default()
	for _, name := range added {
		d = append(d, denylist.Named(name))
	}
	return d
}

// BuiltInDenied names the built-in deny list's entries.
func BuiltInDenied() []string {
	var out []string
	for _, r := range denylist.Default() {
		out = append(out, r.Label)
	}
	return out
}

// Defaults are the settings before anything is saved or changed, beside the
// approval durations, which the broker knows.
func Defaults() Settings {
	return Settings{DenyList: BuiltInDenied(), PauseChord: keychord.PauseChord}
}

// Covered reports whether the deny list with added covers an application
// known only by name, as the person types it.
func Covered(name string, added []string) bool {
	_, ok := DenyList(added).Match(vocab.App{Name: name, Exe: name, ID: name})
	return ok
}

// OpenApps names, of apps (each owning a window open now), those the deny
// list with added does not already cover, sorted, for the person to choose
// from when adding to it.
func OpenApps(apps []vocab.App, added []string) []string {
	deny := DenyList(added)
	var out []string
	for _, a := range apps {
		name, err := CheckDeniedName(a.Name)
		if err != nil || slices.ContainsFunc(out, sameApp(name)) {
			continue
		}
		if _, denied := deny.Match(a); !denied {
			out = append(out, name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
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
