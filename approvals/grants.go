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

// Origin returns the origin of a URL as grants compare it ("https://a.example:8443"),
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

// Grant is one share, as the person set it.
type Grant struct {
	Level  vocab.Level `json:"level"`
	Origin string      `json:"origin"` // the origin on screen when it was shared; "" for the desktop
	Since  time.Time   `json:"since"`
	// Program is, for a tab shared on a loopback origin, the program that
	// listened there when it was shared, as core wrote it down (the grants
	// only compare it); "" when the share is not pinned to a program.
	Program string `json:"program,omitempty"`
	// Agent is the one agent the tab is shared with, by its key (see
	// persondoor.AgentKey); "" shares it with every agent the person
	// allowed. To any other agent the tab is not shared at all.
	Agent string `json:"agent,omitempty"`
}

// For reports whether the grant is given to agent (its key).
func (gr Grant) For(agent string) bool { return gr.Agent == "" || gr.Agent == agent }

// To is the grant as agent has it: the grant itself, or None when it is
// given to another agent alone.
func (gr Grant) To(agent string) Grant {
	if !gr.For(agent) {
		return Grant{}
	}
	return gr
}

// Grants holds the person's shares. They live in memory only: a restart of
// Reins forgets them, and so does a tab's departure from its origin.
type Grants struct {
	now func() time.Time

	mu   sync.Mutex
	m    map[string]Grant      // guarded by mu; key: tab id or DesktopKey
	held map[string]*holdState // guarded by mu; tabs handed to the person, see hold.go
}

// NewGrants makes an empty set. now may be nil (time.Now).
func NewGrants(now func() time.Time) *Grants {
	if now == nil {
		now = time.Now
	}
	return &Grants{now: now, m: map[string]Grant{}}
}

// Set shares key at level, bound to origin. Sharing a tab at Read or Control
// needs an origin: pages without one (about:blank, chrome://) cannot be shared.
func (g *Grants) Set(key, origin string, level vocab.Level) error {
	return g.SetPinned(key, origin, "", level)
}

// SetPinned is [Grants.Set] for a share that is also bound to the program
// serving origin (see [Grant.Program]); program "" pins to none.
func (g *Grants) SetPinned(key, origin, program string, level vocab.Level) error {
	return g.SetFor(key, origin, program, "", level)
}

// SetFor is [Grants.SetPinned] for a share with one agent alone (its key);
// agent "" shares with every allowed agent. The desktop is shared with
// every allowed agent or none.
func (g *Grants) SetFor(key, origin, program, agent string, level vocab.Level) error {
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
	g.m[key] = Grant{Level: level, Origin: origin, Since: g.now(), Program: program, Agent: agent}
	return nil
}

// ObserveProgram tells the grants which program serves a tab's origin now.
// It reports whether a grant pinned to another program was withdrawn, and
// the program it was pinned to. A grant pinned to none is left alone.
func (g *Grants) ObserveProgram(key, program string) (ended bool, was string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr, ok := g.m[key]
	if !ok || gr.Program == "" || gr.Program == program {
		return false, ""
	}
	delete(g.m, key)
	return true, gr.Program
}

// Get returns key's grant; the zero Grant (None) when there is none, and
// while the tab is held on another origin than its grant's (see
// [Grants.Hold]), so that nothing of that other site is shown as shared.
func (g *Grants) Get(key string) Grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.heldElsewhereLocked(key) {
		return Grant{}
	}
	return g.m[key]
}

// Observe tells the grants where a tab is now. It reports whether a grant was
// withdrawn because the tab left the origin it was shared on; a held tab
// keeps its grant (see [Grants.Hold]).
func (g *Grants) Observe(key, origin string) (revoked bool) {
	return g.observe(key, origin, true)
}

// observe is Observe; note says origin is where the tab is now (a
// navigation said so), which a held tab's hold records. A read's origin
// may be older than the tab's last navigation, and is not noted.
func (g *Grants) observe(key, origin string, note bool) (revoked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	held := g.held[key] != nil
	if note {
		held = g.noteHeldLocked(key, origin)
	}
	gr, ok := g.m[key]
	if !ok || key == vocab.DesktopKey || gr.Origin == origin || held {
		return false
	}
	delete(g.m, key)
	return true
}

// For reports whether key's grant, held or not, is given to agent (its
// key): false only for a grant given to another agent alone.
func (g *Grants) For(key, agent string) bool { return g.raw(key).For(agent) }

// raw is key's grant as it stands, held or not.
func (g *Grants) raw(key string) Grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.m[key]
}

// Forget drops a closed tab's grant, and its hold.
func (g *Grants) Forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.m, key)
	delete(g.held, key)
}

// Check reports nil when key is shared at need or more on origin with every
// allowed agent. A tab found on another origin loses its grant here and then
// (ErrOriginChanged), unless it is held, which refuses it there
// (ErrHeldElsewhere), and refuses acts on its own origin too (ErrHandedOff).
func (g *Grants) Check(key, origin string, need vocab.Level) error {
	return g.CheckFor(key, "", origin, need)
}

// CheckFor is [Grants.Check] for one agent (its key): a tab shared with
// another agent alone is, to it, not shared, and is refused as such, so that
// it learns nothing of the tab.
func (g *Grants) CheckFor(key, agent, origin string, need vocab.Level) error {
	// Whose the grant was decides first: to another agent a tab that left
	// its site is a tab not shared, as it always was.
	mine := g.raw(key).For(agent)
	revoked := g.observe(key, origin, false)
	switch {
	case !mine:
		return ErrNotShared
	case revoked:
		return ErrOriginChanged
	}
	if err := g.checkHeld(key, origin, need); err != nil {
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
