package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

// Fake is an [Executor] that fires nothing and records every act it would
// have fired, in order. It makes the real executors' checks (invalid
// tickets, acts that are not input, unknown keys, points on no screen,
// deny-listed applications in front or under the point), so tests of the
// stages before it see the same errors. Its screens are what SetScreens set, or one so large that
// every point a test uses is on it. Its zero value is ready to use; set
// DenyList and BeforeFire before the first Fire.
type Fake struct {
	// DenyList is checked as the real executors check theirs; when empty,
	// DefaultDenyList().
	DenyList DenyList
	// BeforeFire, if set, is called where a real executor would send its
	// first event, after every check has passed. Tests use it to see that
	// the audit row is committed by then. An error stops the act: it is
	// returned and nothing is recorded.
	BeforeFire func(audit.Ticket) error
	// WhileFiring, if set, is called after BeforeFire with Fire's context,
	// where a real executor sends its events one by one: tests use it to see
	// an act stopped part-way. An error stops the act, as above.
	WhileFiring func(ctx context.Context) error

	fireMu sync.Mutex // one act at a time, as the real executors do

	mu      sync.Mutex
	fired   []Fired   // guarded by mu
	front   App       // guarded by mu
	appAt   App       // guarded by mu: under every point no window covers
	windows []Window  // guarded by mu: front to back
	screens []Screen  // guarded by mu: nil until SetScreens
	failure error     // guarded by mu
	input   time.Time // guarded by mu: the desktop's latest input, the person's or its own
	own     time.Time // guarded by mu: when its last act ended
	closed  bool      // guarded by mu
}

var _ Executor = (*Fake)(nil)

// Fired is one act a [Fake] performed.
type Fired struct {
	Seq  int64 // the ticket's audit row
	Act  vocab.Act
	Plan audit.Plan
}

var errClosed = errors.New("the executor is closed")

// desktop is what owns a point no window covers.
var desktop = App{Name: "desktop"}

// SetFrontmost makes a the application in front.
func (f *Fake) SetFrontmost(a App) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.front = a
}

// SetAppAt makes a the owner of every point no window set by SetWindows
// covers.
func (f *Fake) SetAppAt(a App) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appAt = a
}

// SetWindows sets the windows on screen, front to back. AppAt answers with
// the first one that covers the point.
func (f *Fake) SetWindows(ws []Window) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.windows = append([]Window(nil), ws...)
}

// boundless is the Fake's screen until SetScreens: with no display of its
// own, it has no edge to refuse points beyond.
var boundless = Screen{X: -1 << 24, Y: -1 << 24, W: 1 << 25, H: 1 << 25}

// SetScreens sets the displays Screens reports and Fire checks points
// against; nil goes back to the boundless default, an empty list is no
// screen at all.
func (f *Fake) SetScreens(ss []Screen) {
	f.mu.Lock()
	defer f.mu.Unlock()
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
	f.mu.Lock()
	defer f.mu.Unlock()
	f.input = t
}

// SetDenyList replaces DenyList.
func (f *Fake) SetDenyList(d DenyList) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.DenyList = append(DenyList(nil), d...)
}

// SetFailure makes every later Fire that passes its checks fail with err
// without recording, as when the OS drops the input; nil undoes it.
func (f *Fake) SetFailure(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failure = err
}

// Fired returns the acts performed so far, oldest first.
func (f *Fake) Fired() []Fired {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Fired(nil), f.fired...)
}

// Fire records t's act after the same checks the real executors make.
func (f *Fake) Fire(ctx context.Context, t audit.Ticket) error {
	f.fireMu.Lock()
	defer f.fireMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.isClosed() {
		return errClosed
	}
	c, err := check(t)
	if err != nil {
		return err
	}
	at := func(ctx context.Context, p point) (App, error) { return f.AppAt(ctx, p.X, p.Y) }
	screens, err := f.Screens(ctx)
	if err != nil {
		return err
	}
	for _, p := range c.points {
		if !OnScreen(screens, p.X, p.Y) {
			return fmt.Errorf("%w: (%g, %g) is on no screen", ErrOffScreen, p.X, p.Y)
		}
	}
	f.mu.Lock()
	deny, input, own := f.DenyList.orDefault(), f.input, f.own
	f.mu.Unlock()
	if err := denyCheck(ctx, deny, c.points, f.Frontmost, at); err != nil {
		return err
	}
	if err := personCheck(inputAt{input, input}, own, quietFrom(t)); err != nil {
		return err
	}
	if f.BeforeFire != nil {
		if err := f.BeforeFire(t); err != nil {
			return err
		}
	}
	if f.WhileFiring != nil {
		if err := f.WhileFiring(ctx); err != nil {
			return err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failure != nil {
		return f.failure
	}
	f.fired = append(f.fired, Fired{Seq: t.Seq(), Act: c.act, Plan: c.plan})
	f.own = time.Now()
	f.input = f.own // its events are input the desktop sees
	return nil
}

// LastInput returns what SetLastInput set, or the zero time when an act the
// Fake fired came after it.
func (f *Fake) LastInput(ctx context.Context) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return time.Time{}, errClosed
	}
	return inputAt{f.input, f.input}.person(f.own), nil
}

// Frontmost returns the application set by SetFrontmost, or the desktop.
func (f *Fake) Frontmost(ctx context.Context) (App, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return App{}, errClosed
	}
	if f.front == (App{}) {
		return desktop, nil
	}
	return f.front, nil
}

// AppAt returns the owner of the front window covering (x, y), else the
// application set by SetAppAt, else the desktop.
func (f *Fake) AppAt(ctx context.Context, x, y float64) (App, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return App{}, errClosed
	}
	for _, w := range f.windows {
		if x >= w.X && x < w.X+w.W && y >= w.Y && y < w.Y+w.H {
			return w.App, nil
		}
	}
	if f.appAt == (App{}) {
		return desktop, nil
	}
	return f.appAt, nil
}

// Windows returns the windows set by SetWindows.
func (f *Fake) Windows(ctx context.Context) ([]Window, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errClosed
	}
	return append([]Window(nil), f.windows...), nil
}

// Screens returns the screens set by SetScreens, or one boundless screen.
func (f *Fake) Screens(ctx context.Context) ([]Screen, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errClosed
	}
	if f.screens == nil {
		return []Screen{boundless}, nil
	}
	return append([]Screen(nil), f.screens...), nil
}

// Close makes every later call fail.
func (f *Fake) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *Fake) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}
