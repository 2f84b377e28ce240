package approvals

import (
	"errors"

	"github.com/reins-app/reins/vocab"
)

// ErrHandedOffElsewhere: the tab is with the person for a step of their own and
// shows a site other than the one it was shared on. Its share is held, not
// withdrawn, until the person says the step is done; meanwhile nothing is
// read or done there. Check returns it inside a *vocab.Error with the code
// handed_off.
var ErrHandedOffElsewhere = errors.New("the tab is with the person for a step of their own and shows another site than the one it was shared on, so nothing is read or done there; wait for the person to press Done")

// ErrHandedOff: the tab is with the person for a step of their own, so no
// act is done on it until they end the hand-off; reads on the site it was
// shared on go on. Check returns it inside a *vocab.Error with the code
// handed_off.
var ErrHandedOff = errors.New("the tab is with the person for a step of their own, so nothing is done on it until they press Done or Stop in Reins; wait for the hand-off to end")

// ErrNotHandedOff is returned for a tab that is not with the person.
var ErrNotHandedOff = errors.New("the tab's share is not held")

// ErrMoved: the tab is on another origin than its share's, so the share can
// only be re-bound to where it is now, with the person's word.
var ErrMoved = errors.New("the tab shows another site than the one it was shared on")

// handoff is one handed-off tab.
type handoff struct {
	now string // the origin last seen
}

// HandOff keeps key's share while its tab is with the person (a hand-off:
// they log in, solve a captcha). While handed off, the tab leaving the origin it
// was shared on does not withdraw the share, as it would otherwise; but
// Check refuses every read and act on any other origin (ErrHandedOffElsewhere),
// and Get says None there, so nothing of the other site is shown as
// shared. Back on the share's origin reads go on, and acts (a need of
// Control) are refused while the hand-off lasts (ErrHandedOff).
// The hand-off lasts until [Shares.Resume], [Shares.Rebind] or [Shares.Drop]
// ends it, or the tab is forgotten; origin is where the tab is now.
// HandOff returns ErrNotShared for a key with no share, and for the desktop.
func (g *Shares) HandOff(key, origin string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.m[key]; !ok || key == vocab.DesktopKey {
		return ErrNotShared
	}
	if g.handoffs == nil {
		g.handoffs = map[string]*handoff{}
	}
	g.handoffs[key] = &handoff{now: origin}
	return nil
}

// HandedOff reports whether key's tab is handed off, and returns the share as set
// (whatever origin the tab shows) and the origin last seen.
func (g *Shares) HandedOff(key string) (gr Share, now string, handedOff bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.handoffs[key]
	if h == nil {
		return g.m[key], "", false
	}
	return g.m[key], h.now, true
}

// Resume ends key's hand-off with the tab on origin, the share's own: the share
// goes on as it was. On another origin the hand-off stays and Resume returns
// ErrMoved: only [Shares.Rebind] or [Shares.Drop] end it there. A share the
// person withdrew meanwhile stays withdrawn.
func (g *Shares) Resume(key, origin string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handoffs[key] == nil {
		return ErrNotHandedOff
	}
	g.handoffs[key].now = origin
	if gr, ok := g.m[key]; ok && gr.Origin != origin {
		return ErrMoved
	}
	delete(g.handoffs, key)
	return nil
}

// Rebind ends key's hand-off by binding its share, at the same level, to
// origin, where the tab is now, and to program (see [Share.Program]):
// the person confirmed that origin. It returns the share as it was.
func (g *Shares) Rebind(key, origin, program string) (was Share, err error) {
	if origin == "" {
		return Share{}, errors.New("this page has no web origin, so it cannot be shared")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handoffs[key] == nil {
		return Share{}, ErrNotHandedOff
	}
	was, ok := g.m[key]
	if !ok {
		delete(g.handoffs, key)
		return Share{}, ErrNotShared
	}
	g.m[key] = Share{Level: was.Level, Origin: origin, Since: g.now(), Program: program, Agent: was.Agent}
	delete(g.handoffs, key)
	return was, nil
}

// Drop ends key's hand-off with the tab on origin. On the share's own origin
// the share goes on; on another it is withdrawn, as it would have been
// without the hand-off, and Drop reports it.
func (g *Shares) Drop(key, origin string) (revoked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handoffs[key] == nil {
		return false
	}
	delete(g.handoffs, key)
	if gr, ok := g.m[key]; ok && gr.Origin != origin {
		delete(g.m, key)
		return true
	}
	return false
}

// noteHandoffLocked records where a handed-off tab is and reports whether it is
// handed off; g.mu must be held.
func (g *Shares) noteHandoffLocked(key, origin string) bool {
	h := g.handoffs[key]
	if h == nil {
		return false
	}
	h.now = origin
	return true
}

// handedOffElsewhereLocked reports whether key is handed off on another origin than
// its share's; g.mu must be held.
func (g *Shares) handedOffElsewhereLocked(key string) bool {
	h := g.handoffs[key]
	gr, ok := g.m[key]
	return h != nil && ok && gr.Origin != h.now
}

// checkHandoff refuses a handed-off tab anything on another origin than its
// share's, and any act (need Control) on its own.
func (g *Shares) checkHandoff(key, origin string, need vocab.Level) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.handoffs[key] == nil {
		return nil
	}
	gr, ok := g.m[key]
	switch {
	case ok && gr.Origin != origin:
		return &vocab.Error{Code: vocab.CodeHandedOff, Message: ErrHandedOffElsewhere.Error(), Err: ErrHandedOffElsewhere}
	case ok && need >= vocab.Control:
		return &vocab.Error{Code: vocab.CodeHandedOff, Message: ErrHandedOff.Error(), Err: ErrHandedOff}
	}
	return nil
}
