package approvals

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Origin returns the origin of a URL as shares compare it ("https://a.example:8443"),
// or "" when the URL has none (about:blank, data:, chrome://…): the same
// origin as the browser writes it, default ports dropped.
func Origin(raw string) string { return vocab.OriginOf(raw) }

// Loopback reports whether origin is served from this computer (localhost
// and its subdomains, 127.0.0.0/8, [::1]) and returns its host and port (the
// scheme's default when the origin names none).
func Loopback(origin string) (host string, port int, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", 0, false
	}
	host = strings.ToLower(u.Hostname())
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
	case ip != nil && ip.IsLoopback():
	default:
		return "", 0, false
	}
	port = 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return "", 0, false
		}
		port = n
	}
	return host, port, true
}

// ErrProgramChanged: the tab was shared on a loopback address and another
// program now listens there.
var ErrProgramChanged = errors.New("another program now listens on the address this tab was shared on, so its share was withdrawn; ask the person to share it again")

// Share is how the person shared one tab or the desktop: the level, the
// origin on screen, and the program and agent it may be bound to.
type Share struct {
	Level  vocab.Level `json:"level"`
	Origin string      `json:"origin"` // the origin on screen when it was shared; "" for the desktop
	Since  time.Time   `json:"since"`
	// Program is, for a tab shared on a loopback origin, the program that
	// listened there when it was shared, as core wrote it down (the shares
	// only compare it); "" when the share is not pinned to a program.
	Program string `json:"program,omitempty"`
	// Agent is the one agent the tab is shared with, by its key (see
	// persondoor.AgentKey); "" shares it with every agent the person
	// allowed. To any other agent the tab is not shared at all.
	Agent string `json:"agent,omitempty"`
}

// For reports whether the share is given to agent (its key).
func (gr Share) For(agent string) bool { return gr.Agent == "" || gr.Agent == agent }

// To is the share as agent has it: the share itself, or None when it is
// given to another agent alone.
func (gr Share) To(agent string) Share {
	if !gr.For(agent) {
		return Share{}
	}
	return gr
}

// Shares holds the person's shares. They live in memory only: a restart of
// Reins forgets them, and so does a tab's departure from its origin.
type Shares struct {
	now func() time.Time

	mu       sync.Mutex
	m        map[string]Share    // guarded by mu; key: tab id or DesktopKey
	handoffs map[string]*handoff // guarded by mu; tabs handed to the person, see handoff.go
}

// NewShares makes an empty set. now may be nil (time.Now).
func NewShares(now func() time.Time) *Shares {
	if now == nil {
		now = time.Now
	}
	return &Shares{now: now, m: map[string]Share{}}
}

// Set shares key at level, bound to origin. Sharing a tab at Read or Control
// needs an origin: pages without one (about:blank, chrome://) cannot be shared.
func (g *Shares) Set(key, origin string, level vocab.Level) error {
	return g.SetPinned(key, origin, "", level)
}

// SetPinned is [Shares.Set] for a share that is also bound to the program
// serving origin (see [Share.Program]); program "" pins to none.
func (g *Shares) SetPinned(key, origin, program string, level vocab.Level) error {
	return g.SetFor(key, origin, program, "", level)
}

// SetFor is [Shares.SetPinned] for a share with one agent alone (its key);
// agent "" shares with every allowed agent. The desktop is shared with
// every allowed agent or none.
func (g *Shares) SetFor(key, origin, program, agent string, level vocab.Level) error {
	if key == vocab.DesktopKey && agent != "" {
		return fmt.Errorf("the desktop is shared with every allowed agent or none")
	}
	if key != vocab.DesktopKey && level != vocab.None && origin == "" {
		return fmt.Errorf("this page has no web origin, so it cannot be shared")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if level == vocab.None {
		delete(g.m, key)
		return nil
	}
	g.m[key] = Share{Level: level, Origin: origin, Since: g.now(), Program: program, Agent: agent}
	return nil
}

// ObserveProgram tells the shares which program serves a tab's origin now.
// It reports whether a share pinned to another program was withdrawn, and
// the program it was pinned to. A share pinned to none is left alone.
func (g *Shares) ObserveProgram(key, program string) (ended bool, was string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr, ok := g.m[key]
	if !ok || gr.Program == "" || gr.Program == program {
		return false, ""
	}
	delete(g.m, key)
	return true, gr.Program
}

// Get returns key's share; the zero Share (None) when there is none, and
// while the tab is handed off on another origin than its share's (see
// [Shares.HandOff]), so that nothing of that other site is shown as shared.
func (g *Shares) Get(key string) Share {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handedOffElsewhereLocked(key) {
		return Share{}
	}
	return g.m[key]
}

// Observe tells the shares where a tab is now. It reports whether a share was
// withdrawn because the tab left the origin it was shared on; a handed-off tab
// keeps its share (see [Shares.HandOff]).
func (g *Shares) Observe(key, origin string) (revoked bool) {
	return g.observe(key, origin, true)
}

// observe is Observe; note says origin is where the tab is now (a
// navigation said so), which a handed-off tab's hand-off records. A read's origin
// may be older than the tab's last navigation, and is not noted.
func (g *Shares) observe(key, origin string, note bool) (revoked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	held := g.handoffs[key] != nil
	if note {
		held = g.noteHandoffLocked(key, origin)
	}
	gr, ok := g.m[key]
	if !ok || key == vocab.DesktopKey || gr.Origin == origin || held {
		return false
	}
	delete(g.m, key)
	return true
}

// For reports whether key's share, handed off or not, is given to agent (its
// key): false only for a share given to another agent alone.
func (g *Shares) For(key, agent string) bool { return g.raw(key).For(agent) }

// raw is key's share as it stands, handed off or not.
func (g *Shares) raw(key string) Share {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.m[key]
}

// Forget drops a closed tab's share, and its hand-off.
func (g *Shares) Forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.m, key)
	delete(g.handoffs, key)
}

// Check reports nil when key is shared at need or more on origin with every
// allowed agent. A tab found on another origin loses its share here and then
// (ErrOriginChanged), unless it is handed off, which refuses it there
// (ErrHandedOffElsewhere), and refuses acts on its own origin too (ErrHandedOff).
func (g *Shares) Check(key, origin string, need vocab.Level) error {
	return g.CheckFor(key, "", origin, need)
}

// CheckFor is [Shares.Check] for one agent (its key): a tab shared with
// another agent alone is, to it, not shared, and is refused as such, so that
// it learns nothing of the tab.
func (g *Shares) CheckFor(key, agent, origin string, need vocab.Level) error {
	// Whose the share was decides first: to another agent a tab that left
	// its site is a tab not shared, as it always was.
	mine := g.raw(key).For(agent)
	revoked := g.observe(key, origin, false)
	switch {
	case !mine:
		return ErrNotShared
	case revoked:
		return ErrOriginChanged
	}
	if err := g.checkHandoff(key, origin, need); err != nil {
		return err
	}
	have := g.Get(key).To(agent).Level
	switch {
	case have >= need:
		return nil
	case key == vocab.DesktopKey:
		return ErrDesktopNotShared
	case have == vocab.None:
		return ErrNotShared
	default:
		return ErrReadOnly
	}
}
