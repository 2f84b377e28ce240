package executor

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/vocab"
)

// Fake is an [Executor] that runs the real fire sequence over a fake
// desktop, which sends nothing anywhere, and records every act it
// performed, in order. Tests of the stages before it therefore see the
// real executors' checks and errors: invalid tickets, acts that are not
// input, unknown keys, points on no screen, deny-listed applications in
// front or under the point (and coming to the front while it types), the
// person's own input, a tab's keys and buttons outside the tab's window
// (SetWindows, SetFocus). Its screens are what SetScreens set, or one so large
// that every point a test uses is on it. It waits for no pause between
// events. Its zero value is ready to use; set DenyList, BeforeFire and
// WhileFiring before the first call. What a reader of its desktop sees
// is package deskread's Fake.
type Fake struct {
	// DenyList is checked as the real executors check theirs; when empty,
	// denylist.Default().
	DenyList denylist.List
	// BeforeFire, if set, is called where a real executor would send its
	// first event, after every check has passed. Tests use it to see that
	// the audit row is committed by then. An error stops the act: it is
	// returned and nothing is recorded.
	BeforeFire func(audit.Ticket) error
	// WhileFiring, if set, is called after BeforeFire with Fire's context,
	// as the act's events are about to go out: tests use it to see an act
	// stopped part-way. An error stops the act, as above.
	WhileFiring func(ctx context.Context) error
	seq         sequence
	fakeDesk
	hands fakeHands

	mu    sync.Mutex // guards DenyList, as SetDenyList changes it
	acts  []Fired    // guarded by mu
	files fakeFiles  // guarded by mu: SetFileDialog's, and the dialog up now
}

var _ Executor = (*Fake)(nil)

// Fired is one act a [Fake] performed.
type Fired struct {
	Seq  int64 // the ticket's audit row
	Act  vocab.Act
	Plan audit.Landing
}

var errClosed = errors.New("the executor is closed")

// Fire performs t's act on the fake desktop and records it.
func (f *Fake) Fire(ctx context.Context, t audit.Ticket) error {
	return f.seq.fire(ctx, f, t)
}

// firing calls the hooks, right before the first event.
func (f *Fake) firing(ctx context.Context, t audit.Ticket) error {
	if f.BeforeFire != nil {
		if err := f.BeforeFire(t); err != nil {
			return err
		}
	}
	if f.WhileFiring != nil {
		return f.WhileFiring(ctx)
	}
	return nil
}

// fired records t's act, which is done.
func (f *Fake) fired(t audit.Ticket) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.acts = append(f.acts, Fired{Seq: t.Seq(), Act: t.Act(), Plan: t.Landing()})
}

// Fired returns the acts performed so far, oldest first.
func (f *Fake) Fired() []Fired {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Fired(nil), f.acts...)
}

func (f *Fake) denyList() denylist.List {
	f.mu.Lock()
	defer f.mu.Unlock()
	return orDefault(f.DenyList)
}

// SetDenyList replaces DenyList, from the next check on.
func (f *Fake) SetDenyList(d denylist.List) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.DenyList = append(denylist.List(nil), d...)
}

// SetFrontmost makes a the application in front.
func (f *Fake) SetFrontmost(a App) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.front = a
}

// SetAppAt makes a the owner of every point no window set by SetWindows
// covers.
func (f *Fake) SetAppAt(a App) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.behind = a
}

// SetWindows sets the windows on screen, front to back. AppAt answers with
// the first one that covers the point, and so does the check of a tab's
// act that its buttons land in its window (Window.ID). With none set,
// every tab shows in FakeTabWindow, behind everything.
func (f *Fake) SetWindows(ws []Window) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.windows = append([]Window(nil), ws...)
}

// SetFocus gives the keyboard focus to the window with ID id; 0 goes back
// to the default: FakeTabWindow when no window is staged, else the first
// one marked Active.
func (f *Fake) SetFocus(id uint64) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.focus = id
}

// TabWindow implements Executor over the staged windows: a browser's
// window (by [denylist.Browsers]) at q's bounds, the one with the focus or then the
// one whose title starts with q's among several; FakeTabWindow when no
// window is staged.
func (f *Fake) TabWindow(ctx context.Context, q TabWindowQuery) (TabWindow, error) {
	if f.seq.isClosed() {
		return TabWindow{}, errClosed
	}
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	focused := f.focusedLocked()
	var cands []tabCandidate
	if len(f.windows) == 0 {
		cands = []tabCandidate{{id: FakeTabWindow, app: fakeBrowser, front: focused == FakeTabWindow}}
	}
	for _, w := range f.windows {
		if w.ID != 0 && q.Bounds.Fits(w.X, w.Y, w.W, w.H) {
			cands = append(cands, tabCandidate{id: w.ID, app: w.App, title: w.Title, front: w.ID == focused})
		}
	}
	c, err := pickTabWindow(cands, q)
	if err != nil {
		return TabWindow{}, err
	}
	return TabWindow{ID: c.id, App: c.app, Focus: focused == c.id, FocusApp: f.appOfLocked(focused)}, nil
}

// SetScreens sets the displays Screens reports and Fire checks points
// against; nil goes back to the boundless default, an empty list is no
// screen at all.
func (f *Fake) SetScreens(ss []Screen) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.screens = nil
	if ss != nil {
		f.screens = append(make([]Screen, 0, len(ss)), ss...) // none at all stays none
	}
}

// SetLastInput says when the person last used the mouse or keyboard; Fire
// refuses with ErrPersonActive when that is after the plan's QuietFrom (else
// the approval's moment), and LastInput reports it. The zero time, the
// default, is long ago.
func (f *Fake) SetLastInput(t time.Time) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.input = t
}

// SetFailure makes every later Fire that passes its checks fail with err
// without recording, as when the OS drops the input; nil undoes it.
func (f *Fake) SetFailure(err error) {
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	f.failure = err
}

// LastInput returns what SetLastInput set, or the zero time when an act the
// Fake fired came after it.
func (f *Fake) LastInput(ctx context.Context) (time.Time, error) {
	return f.seq.lastInput(f)
}

// Frontmost returns the application set by SetFrontmost, or the desktop.
func (f *Fake) Frontmost(ctx context.Context) (App, error) {
	if f.seq.isClosed() {
		return App{}, errClosed
	}
	return f.frontNow(), nil
}

// AppAt returns the owner of the front window covering (x, y), else the
// application set by SetAppAt, else the desktop.
func (f *Fake) AppAt(ctx context.Context, x, y float64) (App, error) {
	if f.seq.isClosed() {
		return App{}, errClosed
	}
	return f.appAtNow(point{x, y}), nil
}

// Windows returns the windows set by SetWindows.
func (f *Fake) Windows(ctx context.Context) ([]Window, error) {
	if f.seq.isClosed() {
		return nil, errClosed
	}
	f.fakeDesk.mu.Lock()
	defer f.fakeDesk.mu.Unlock()
	return append([]Window(nil), f.windows...), nil
}

// Screens returns the screens set by SetScreens, or one boundless screen.
func (f *Fake) Screens(ctx context.Context) ([]Screen, error) {
	if f.seq.isClosed() {
		return nil, errClosed
	}
	return f.screensNow(), nil
}

// Close makes every later call fail. An act in flight stops at its next
// event and lets go of what it holds first.
func (f *Fake) Close() error { return f.seq.close(f, nil) }
