package approvals

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Level is how far a tab (or the desktop) is shared.
type Level int

const (
	None     Level = iota // nothing may be read or done
	ReadOnly              // snapshots and screenshots, no acts
	Control               // acts, each approved by the person
)

func (l Level) String() string {
	switch l {
	case ReadOnly:
		return "read"
	case Control:
		return "control"
	}
	return "none"
}

// ParseLevel reads "none", "read" or "control".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "none", "not shared", "off":
		return None, nil
	case "read", "readonly", "read-only":
		return ReadOnly, nil
	case "control":
		return Control, nil
	}
	return None, fmt.Errorf("unknown share level %q: use none, read or control", s)
}

// DesktopKey is the grant key of the desktop tools.
const DesktopKey = "desktop"

// Origin returns the origin of a URL as grants compare it ("https://a.example:8443"),
// or "" when the URL has none (about:blank, data:, chrome://…).
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Host)
	// The same origin as the browser writes it: default ports dropped.
	switch u.Scheme {
	case "http":
		host = strings.TrimSuffix(host, ":80")
	case "https":
		host = strings.TrimSuffix(host, ":443")
	default:
		return ""
	}
	return u.Scheme + "://" + host
}

// Grant is one share, as the person set it.
type Grant struct {
	Level  Level     `json:"level"`
	Origin string    `json:"origin"` // the origin on screen when it was shared; "" for the desktop
	Since  time.Time `json:"since"`
}

// Grants holds the person's shares. They live in memory only: a restart of
// Reins forgets them, and so does a tab's departure from its origin.
type Grants struct {
	now func() time.Time

	mu sync.Mutex
	m  map[string]Grant // guarded by mu; key: tab id or DesktopKey
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
func (g *Grants) Set(key, origin string, level Level) error {
	if key != DesktopKey && level != None && origin == "" {
		return fmt.Errorf("this page has no web origin, so it cannot be shared")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if level == None {
		delete(g.m, key)
		return nil
	}
	g.m[key] = Grant{Level: level, Origin: origin, Since: g.now()}
	return nil
}

// Get returns key's grant; the zero Grant (None) when there is none.
func (g *Grants) Get(key string) Grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.m[key]
}

// Observe tells the grants where a tab is now. It reports whether a grant was
// withdrawn because the tab left the origin it was shared on.
func (g *Grants) Observe(key, origin string) (revoked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr, ok := g.m[key]
	if !ok || key == DesktopKey || gr.Origin == origin {
		return false
	}
	delete(g.m, key)
	return true
}

// Forget drops a closed tab's grant.
func (g *Grants) Forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.m, key)
}

// Check reports nil when key is shared at need or more on origin. A tab found
// on another origin loses its grant here and then (ErrOriginChanged).
func (g *Grants) Check(key, origin string, need Level) error {
	if g.Observe(key, origin) {
		return ErrOriginChanged
	}
	have := g.Get(key).Level
	switch {
	case have >= need:
		return nil
	case key == DesktopKey:
		return ErrDesktopNotShared
	case have == None:
		return ErrNotShared
	default:
		return ErrReadOnly
	}
}
