package approvals

import (
	"errors"

	"github.com/reins-app/reins/vocab"
)

// ErrHeldElsewhere: the tab is with the person for a step of their own and
// shows a site other than the one it was shared on. Its share is held, not
// withdrawn, until the person says the step is done; meanwhile nothing is
// read or done there. Check returns it inside a *vocab.Error with the code
// handed_off.
var ErrHeldElsewhere = errors.New("the tab is with the person for a step of their own and shows another site than the one it was shared on, so nothing is read or done there; wait for the person to press Done")

// ErrHandedOff: the tab is with the person for a step of their own, so no
// act is done on it until they end the hand-off; reads on the site it was
// shared on go on. Check returns it inside a *vocab.Error with the code
// handed_off.
var ErrHandedOff = errors.New("the tab is with the person for a step of their own, so nothing is done on it until they press Done or Stop in Reins; wait for the hand-off to end")

// ErrNotHeld is returned for a tab whose share is not held.
var ErrNotHeld = errors.New("the tab's share is not held")

// ErrMoved: the tab is on another origin than its grant's, so the grant can
// only be re-bound to where it is now, with the person's word.
var ErrMoved = errors.New("the tab shows another site than the one it was shared on")

// holdState is one held tab.
type holdState struct {
	now string // the origin last seen
}

// Hold keeps key's grant while its tab is with the person (a hand-off:
// they log in, solve a captcha). While held, the tab leaving the origin it
// was shared on does not withdraw the grant, as it would otherwise; but
// Check refuses every read and act on any other origin (ErrHeldElsewhere),
// and Get says None there, so nothing of the other site is shown as
// shared. Back on the grant's origin reads go on, and acts (a need of
// Control) are refused while the hold lasts (ErrHandedOff).
// The hold lasts until [Grants.Resume], [Grants.Rebind] or [Grants.Drop]
// ends it, or the tab is forgotten; origin is where the tab is now.
// Hold returns ErrNotShared for a key with no grant, and for the desktop.
func (g *Grants) Hold(key, origin string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.m[key]; !ok || key == vocab.DesktopKey {
		return ErrNotShared
	}
	if g.held == nil {
		g.held = map[string]*holdState{}
	}
	g.held[key] = &holdState{now: origin}
	return nil
}

// Held reports whether key's grant is held, and returns the grant as set
// (whatever origin the tab shows) and the origin last seen.
func (g *Grants) Held(key string) (gr Grant, now string, held bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.held[key]
	if h == nil {
		return g.m[key], "", false
	}
	return g.m[key], h.now, true
}

// Resume ends key's hold with the tab on origin, the grant's own: the grant
// goes on as it was. On another origin the hold stays and Resume returns
// ErrMoved: only [Grants.Rebind] or [Grants.Drop] end it there. A grant the
// person withdrew meanwhile stays withdrawn.
func (g *Grants) Resume(key, origin string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[key] == nil {
		return ErrNotHeld
	}
	g.held[key].now = origin
	if gr, ok := g.m[key]; ok && gr.Origin != origin {
		return ErrMoved
	}
	delete(g.held, key)
	return nil
}

// Rebind ends key's hold by binding its grant, at the same level, to
// origin, where the tab is now, and to program (see [Grant.Program]):
// the person confirmed that origin. It returns the grant as it was.
func (g *Grants) Rebind(key, origin, program string) (was Grant, err error) {
	if origin == "" {
		return Grant{}, errors.New("this page has no web origin, so it cannot be shared")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[key] == nil {
		return Grant{}, ErrNotHeld
	}
	was, ok := g.m[key]
	if !ok {
		delete(g.held, key)
		return Grant{}, ErrNotShared
	}
	g.m[key] = Grant{Level: was.Level, Origin: origin, Since: g.now(), Program: program, Agent: was.Agent}
	delete(g.held, key)
	return was, nil
}

// Drop ends key's hold with the tab on origin. On the grant's own origin
// the grant goes on; on another it is withdrawn, as it would have been
// without the hold, and Drop reports it.
func (g *Grants) Drop(key, origin string) (revoked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[key] == nil {
		return false
	}
	delete(g.held, key)
	if gr, ok := g.m[key]; ok && gr.Origin != origin {
		delete(g.m, key)
		return true
	}
	return false
}

// noteHeldLocked records where a held tab is and reports whether it is
// held; g.mu must be held.
func (g *Grants) noteHeldLocked(key, origin string) bool {
	h := g.held[key]
	if h == nil {
		return false
	}
	h.now = origin
	return true
}

// heldElsewhereLocked reports whether key is held on another origin than
// its grant's; g.mu must be held.
func (g *Grants) heldElsewhereLocked(key string) bool {
	h := g.held[key]
	gr, ok := g.m[key]
	return h != nil && ok && gr.Origin != h.now
}

// checkHeld refuses a held tab anything on another origin than its
// grant's, and any act (need Control) on its own.
func (g *Grants) checkHeld(key, origin string, need vocab.Level) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[key] == nil {
		return nil
	}
	gr, ok := g.m[key]
	switch {
	case ok && gr.Origin != origin:
		return &vocab.Error{Code: vocab.CodeHandedOff, Message: ErrHeldElsewhere.Error(), Err: ErrHeldElsewhere}
	case ok && need >= vocab.Control:
		return &vocab.Error{Code: vocab.CodeHandedOff, Message: ErrHandedOff.Error(), Err: ErrHandedOff}
	}
	return nil
}
