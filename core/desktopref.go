package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// accessibleWait bounds one read of an application's elements: a hung
// application makes the read fail, naming it, rather than the call hang.
const accessibleWait = 3 * time.Second

// isBrowser reports whether a is a web browser.
func isBrowser(a executor.App) bool {
	_, ok := denylist.Browsers.Match(a)
	return ok
}

// desktopElements reads the elements of the application in front for the
// session, when it may: never a browser's (tabs are shared one by one), a
// deny-listed application's, or one of Reins' own. A browser in front
// gives instead the tab it shows, when that tab is open to the agent
// (browserInFront). It returns the snapshot (nil when none was read), the
// text of the view's elements, and a note saying why there are none.
func (s *Session) desktopElements(ctx context.Context, front executor.App, budget int, o agentdoor.DesktopOptions) (*gdesktop.Snapshot, string, string) {
	e := s.e
	switch {
	case front.PID <= 0:
		s.desk.Store(nil)
		return nil, "", "No application is in front, so no elements were read."
	case front.Exe == "":
		s.desk.Store(nil)
		return nil, "", "Reins cannot tell which program the window in front belongs to, so its elements are not read."
	case front.PID == os.Getpid() || slices.Contains(e.ownProcesses(), front.PID):
		s.desk.Store(nil)
		return nil, "", "The window in front is Reins' own; its elements are not read for agents."
	case isBrowser(front):
		s.desk.Store(nil)
		text, note := s.browserInFront(ctx, budget)
		return nil, text, note
	}
	if rule, denied := e.denyList(e.Settings().DenyAdded).Match(front); denied {
		s.desk.Store(nil)
		return nil, "", fmt.Sprintf("The application in front is on the deny list (%s); nothing of it is read or acted on.", plain.Text(rule, plain.NameMax))
	}
	cctx, cancel := context.WithTimeout(ctx, accessibleWait)
	defer cancel()
	tree, err := e.opts.Reader.Accessible(cctx, front.PID)
	if err != nil {
		s.desk.Store(nil)
		return nil, "", "The elements of the application in front could not be read: " + plain.Text(err.Error(), plain.DetailMax)
	}
	snap := gdesktop.Build(tree, e.deskRefs, gdesktop.BuildOptions{ID: e.newID("ds"), At: e.opts.Now(), App: front.Name, MaxChars: budget, Boxes: o.Boxes, Find: o.Find})
	s.desk.Store(snap)
	return snap, snap.Text, ""
}

// deskRef is a desktop ref's target in the session's latest desktop view.
func (s *Session) deskRef(ref string) (gdesktop.Target, error) {
	snap := s.desk.Load()
	if snap == nil {
		return gdesktop.Target{}, errorf(vocab.CodeStaleRef, "no desktop ref is known now: look at the desktop with desktop_observe and use a ref from it")
	}
	t, err := snap.Check(ref)
	if err != nil {
		return gdesktop.Target{}, &vocab.Error{Code: vocab.CodeStaleRef, Message: err.Error(), Err: err}
	}
	return t, nil
}

// deskTarget is the element of t as the application shows it now: found
// again by its id in a fresh read, still t's role and name (the ones the
// person is asked about), showing and enabled, and what the application
// itself says is at its centre, in a window of its own. It returns the
// target, the centre, in DIP, and the application the desktop says is
// there (t's own).
func (s *Session) deskTarget(ctx context.Context, t gdesktop.Target) (gdesktop.Target, float64, float64, executor.App, error) {
	e := s.e
	ref := t.Ref
	cctx, cancel := context.WithTimeout(ctx, accessibleWait)
	defer cancel()
	tree, err := e.opts.Reader.Accessible(cctx, t.PID)
	if err != nil {
		if errors.Is(err, deskread.ErrNoAccessibleApp) || errors.Is(err, deskread.ErrNoAccessibleWindow) {
			return t, 0, 0, executor.App{}, errorf(vocab.CodeStaleRef, "the application of %s is gone or shows no window now: look again with desktop_observe", ref)
		}
		return t, 0, 0, executor.App{}, errorf(vocab.CodeFailed, "the element cannot be found again: %s", plain.Text(err.Error(), plain.DetailMax))
	}
	el := gdesktop.FindID(tree, t.ID)
	switch {
	case el == nil:
		return t, 0, 0, executor.App{}, errorf(vocab.CodeStaleRef, "%s is no longer in its application's window: look again with desktop_observe", ref)
	case !t.Matches(el):
		return t, 0, 0, executor.App{}, errorf(vocab.CodeChanged, "%s changed since desktop_observe: it is now %s %s; look again and check it is still what you want", ref, plain.Text(gdesktop.Shown(el.Role), plain.NameMax), plain.Quote(el.Name, plain.NameMax))
	case !el.State.Showing || !el.State.Visible || el.Box.Empty():
		return t, 0, 0, executor.App{}, errorf(vocab.CodeNotVisible, "%s is not showing on the screen now", ref)
	case !el.State.Enabled:
		return t, 0, 0, executor.App{}, errorf(vocab.CodeDisabled, "%s is disabled", ref)
	}
	x, y := float64(el.Box.X)+float64(el.Box.W)/2, float64(el.Box.Y)+float64(el.Box.H)/2
	at, err := e.opts.Executor.AppAt(ctx, x, y)
	if err != nil {
		return t, 0, 0, executor.App{}, errorf(vocab.CodeFailed, "cannot tell which application is at the element's point (%.0f, %.0f): %v", x, y, err)
	}
	if at.PID != t.PID {
		return t, 0, 0, executor.App{}, errorf(vocab.CodeObscured, "a window of %s covers %s at (%.0f, %.0f); nothing was done", plain.App(at.Name, at.Exe, at.PID), ref, x, y)
	}
	// The application's own answer to what the pointer would reach there:
	// a menu or dialog of its own over the element, or extents that are not
	// where it draws, are refused rather than guessed at.
	hit, err := e.opts.Reader.AccessibleAt(cctx, t.PID, tree.Root.ID, x, y)
	if err != nil {
		return t, 0, 0, executor.App{}, errorf(vocab.CodeUnmapped, "the application cannot say what is at %s's point (%s); nothing was done", ref, plain.Text(err.Error(), plain.DetailMax))
	}
	if hit != el.ID && !holds(el, hit) {
		what := "nothing it names"
		if h := gdesktop.FindID(tree, hit); h != nil {
			what = plain.Text(gdesktop.Shown(h.Role), plain.NameMax) + " " + plain.Quote(h.Name, plain.NameMax)
		}
		return t, 0, 0, executor.App{}, errorf(vocab.CodeObscured, "the application says %s is at %s's point (%.0f, %.0f), not the element; nothing was done", what, ref, x, y)
	}
	t.Secret = t.Secret || el.Secret
	return t, x, y, at, nil
}

// deskRefTarget fills en's target from a desktop ref's element, as Reins
// reads it, for the person and the record.
func deskRefTarget(en *vocab.Target, t gdesktop.Target) {
	en.Ref, en.Role, en.Name = t.Ref, t.Role, t.Name
}

// desktopRefWords puts the elements read, or the note saying why there
// are none, in the view.
func desktopRefWords(v *agentdoor.DesktopView, snap *gdesktop.Snapshot, text, note string) {
	if snap != nil {
		v.Snapshot = snap.ID
	}
	v.Elements, v.Note = text, note
}

// focusedSecret reports whether the element with the keyboard focus in the
// application in front is a password field, as its accessibility elements
// say: then typing into it is a secret type, its text shown as a length and
// never kept. front is the application in front, as read, and deny the
// deny list. An application whose elements are not read says no.
func (s *Session) focusedSecret(ctx context.Context, front executor.App, deny denylist.List) bool {
	e := s.e
	if front.PID <= 0 || e.hidden(front, deny) {
		return false // not read; the executor refuses what it must
	}
	cctx, cancel := context.WithTimeout(ctx, accessibleWait)
	defer cancel()
	tree, err := e.opts.Reader.Accessible(cctx, front.PID)
	if err != nil {
		return false
	}
	secret := false
	tree.Walk(func(el *gdesktop.Element, _ int) bool {
		if el.State.Focused && (el.Secret || el.Role == "password text") {
			secret = true
			return false
		}
		return true
	})
	return secret
}

// browserInFront says, for the desktop view, what the browser in front
// shows: the tab in its focused window, read through the extension with its
// tab refs when the agent may read it; else only that a tab not open to the
// agent is there, with nothing of it.
func (s *Session) browserInFront(ctx context.Context, budget int) (text, note string) {
	e := s.e
	const unread = "The application in front is a web browser; its elements are not read from the desktop."
	e.mu.Lock()
	var front []string
	for id, t := range e.tabs {
		if e.connected[t.chrome.profile] && t.info.Active && t.info.Focused {
			front = append(front, id)
		}
	}
	e.mu.Unlock()
	if len(front) != 1 {
		return "", unread + " Reins cannot tell which tab it shows; read the tabs open to you with browser_snapshot."
	}
	tab := front[0]
	_, info, err := e.lookup(tab)
	if err != nil || e.checkShare(s.key(), tab, approvals.Origin(info.URL), vocab.ReadOnly) != nil {
		return "", unread + " The tab it shows is not open to you."
	}
	r, err := s.Read(ctx, agentdoor.ReadOptions{Tab: tab, Mode: "interactive", MaxChars: budget})
	if err != nil {
		return "", unread + " The tab it shows, tab " + tab + ", could not be read: " + plain.Text(err.Error(), plain.DetailMax)
	}
	return fmt.Sprintf("Web browser, tab %s (open to you), from the page: snapshot %s, its refs for browser_click and the other browser tools\n%s", tab, r.ID, r.Text), ""
}

// holds reports whether id is one of el's descendants.
func holds(el *gdesktop.Element, id string) bool {
	for i := range el.Children {
		if el.Children[i].ID == id || holds(&el.Children[i], id) {
			return true
		}
	}
	return false
}
