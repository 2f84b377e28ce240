// Package hand watches the person's hand, for the executor (every act
// fires under a watch) and for core (a window that allows takes only the
// person's press): it tells their own keyboard, mouse, touchpad or
// touchscreen from synthetic input, and keeps no key code.
//
//   - hand.go: the watch and its listener, the same on every OS.
//   - hand_linux.go, handwire_linux.go: X, through XInput 2's raw events on
//     a connection of its own.
//   - hand_darwin.go, handmac.go: macOS, a listen-only event tap and what
//     each event it sees means; inputmonitor_other.go: the permission only
//     macOS asks for.
//   - holder.go: the listener an executor keeps for its acts.
package hand

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The person's hand: while an act fires, or while a Reins window that
// allows waits for a press, a [Watch] looks at the desktop's input as it
// comes from each device and tells the person's own keyboard, mouse,
// touchpad or touchscreen from the input Reins (or any program using XTEST)
// synthesises.
//
// The watch is a keylogger by nature, so it is kept small: it runs only
// while it is needed, and of each input it keeps only its kind, the device
// it came from and when, never a key code.

// Errors callers may test for with errors.Is.
var (
	// ErrPersonsHand: the person pressed a key or button, turned a wheel or
	// moved the pointer with their own hand while the watch was on. An act
	// under way stops, lets go of what it holds and is asked afresh.
	ErrPersonsHand = errors.New("the person took the mouse or keyboard")
	// ErrNoWatch: this desktop cannot tell the person's input from
	// Reins' own (no display, no XInput 2.1 or later, no marked XTEST
	// devices, or an OS without a watch yet). An act that cannot be
	// watched must not fire, and a press that cannot be told apart must
	// not answer for the person.
	ErrNoWatch = errors.New("this desktop cannot tell the person's own mouse and keyboard from synthetic input")
)

// Kind is what the person's hand did.
type Kind uint8

const (
	Key    Kind = iota + 1 // a key pressed (releases never count)
	Button                 // a mouse button pressed, or a touch begun
	Wheel                  // a wheel turned, or a touchpad scrolled
	Motion                 // the pointer moved beyond the watch's threshold
)

func (k Kind) String() string {
	switch k {
	case Key:
		return "key"
	case Button:
		return "button"
	case Wheel:
		return "wheel"
	case Motion:
		return "motion"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Input is one input from the person's hand, as the watch keeps it: no
// key code, no button number, no place.
type Input struct {
	Kind   Kind
	Device int       // the OS's id of the physical device (X: the XI2 source id)
	At     time.Time // when the watch read it: within a moment of the X server's seeing it
}

// Press is a press the watch saw, from any device: the person's or a
// synthetic one.
type Press struct {
	// Kind is Button (a mouse button, or a touch begun) or, for a
	// watch of presses that counts keys ([PressOptions].Keys), Key:
	// which key is never kept.
	Kind Kind
	// Person reports whether the press came from one of the person's own
	// devices rather than a synthetic one (XTEST on X).
	Person bool
	Device int       // the OS's id of the device it came from
	At     time.Time // when the watch read it
	// X, Y: where the pointer was, in the root window's device pixels,
	// right after the press. Set only when Placed; a synthetic press is
	// never placed.
	X, Y   int
	Placed bool
}

// Options configures [NewListener] and [Start].
type Options struct {
	// Display is the X display, e.g. ":0"; default $DISPLAY. (X11)
	Display string // optional
	// Motion is how far, in device pixels, one device must carry the
	// pointer from where it was when a watch began before the motion
	// counts as the person's hand: a mouse nudged by a desk is not a hand
	// taking it. Default 4.
	Motion float64 // optional
}

// defaultMotion is Options.Motion's default, in device pixels.
const defaultMotion = 4

// Listener holds what watching the person's hand needs from the
// desktop (on X: a connection of its own, and the input devices, kept up
// to date), so that a watch is cheap to start for every act. While no
// watch is on it reads no input at all. Open one with [NewListener]
// and keep it for as long as the executor; its methods are safe for
// concurrent use, and any number of watches may be on at once.
type Listener struct {
	impl handListener
}

// handListener is a Listener's OS side.
type handListener interface {
	// watch starts reading input for w and returns once every input the
	// desktop takes from then on reaches w.
	watch(ctx context.Context, w *Watch) (handSource, error)
	close() error
}

// Watch starts a watch: every input the desktop takes after Watch returns
// is looked at. Close the watch when the act is over. An error wraps
// ErrNoWatch when the listener can no longer watch (its display went
// away); open a new listener, and until then fire nothing.
func (l *Listener) Watch(ctx context.Context) (*Watch, error) {
	w := newWatch()
	src, err := l.impl.watch(ctx, w)
	if err != nil {
		return nil, err
	}
	w.src = src
	return w, nil
}

// Close stops the listener; every watch still on trips with an error
// wrapping ErrNoWatch.
func (l *Listener) Close() error { return l.impl.close() }

// PressOptions configures [Listener.WatchPresses].
type PressOptions struct {
	// Keys: key presses count as presses too, as Press{Kind: Key}, so
	// that a control the keyboard activated is told from one clicked.
	// Without it the listener reads no key for this watch: a watch that
	// runs while Reins does (for the tray's menu) reads buttons only.
	Keys bool // optional
}

// WatchPresses starts a watch of presses, for a window of Reins' that
// allows, from when it is shown: it keeps the last press from any device
// ([Watch.LastPress]), with its kind, device, time and, for the
// person's button, where the pointer was; never a key code. It never trips
// on the person's hand (Tripped closes only when the watch fails), and it
// reads no motion: while only such watches are on, the listener selects
// presses alone. Close it when the window hides.
func (l *Listener) WatchPresses(ctx context.Context, opts PressOptions) (*Watch, error) {
	w := newWatch()
	w.presses, w.keys = true, opts.Keys
	src, err := l.impl.watch(ctx, w)
	if err != nil {
		return nil, err
	}
	w.src = src
	return w, nil
}

// Start opens a listener for one watch: Close on the watch closes both.
// It costs what opening a listener does (about a millisecond on X), so an
// executor keeps a Listener and starts a watch from it for each act.
func Start(ctx context.Context, opts Options) (*Watch, error) {
	l, err := NewListener(ctx, opts)
	if err != nil {
		return nil, err
	}
	w, err := l.Watch(ctx)
	if err != nil {
		l.Close()
		return nil, err
	}
	w.src = &ownListener{handSource: w.src, l: l}
	return w, nil
}

// ownListener is the source of a watch that closes its listener with it.
type ownListener struct {
	handSource
	l *Listener
}

func (o *ownListener) close() error {
	return errors.Join(o.handSource.close(), o.l.Close())
}

// Watch watches the desktop's input for the person's hand. Start one
// from a [Listener] when an act begins to fire (or a window that
// allows is shown) and Close it when that ends. It sees only input the
// desktop takes after it started. Its methods are safe for concurrent use;
// the listener reads the display on goroutines of its own.
type Watch struct {
	src     handSource
	tripped chan struct{} // closed once err is set
	// presses: a watch of presses only ([Listener.WatchPresses]),
	// which keys says count key presses. Set before the watch starts.
	presses, keys bool

	mu      sync.Mutex
	err     error // guarded by mu: why the watch tripped
	first   Input // guarded by mu: the person's first input
	seen    bool  // guarded by mu: first is set
	last    Press // guarded by mu: the last button press
	pressed bool  // guarded by mu: last is set

	closeOnce sync.Once
	closeErr  error
}

// handSource is what a watch reads the desktop through.
type handSource interface {
	// sync returns once every input the desktop took before the call has
	// been passed to the watch.
	sync(ctx context.Context) error
	// close stops passing input to the watch.
	close() error
}

func newWatch() *Watch { return &Watch{tripped: make(chan struct{})} }

// Tripped is closed once the watch has seen the person's hand, or has
// stopped watching because the display failed; Err says which. Checking it
// is a select with a default, cheap enough before every event; but an
// input may still be on its way to the watch, so before an event that must
// not follow the person's input, call Check.
func (w *Watch) Tripped() <-chan struct{} { return w.tripped }

// Err is nil while the watch has seen nothing of the person's; after the
// person's first input it wraps ErrPersonsHand and says what they did; if
// the watch failed, it says why (then nothing more can be told, and an act
// must stop as though the person had reached for it).
func (w *Watch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// First is the person's first input since the watch began, if any.
func (w *Watch) First() (Input, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first, w.seen
}

// Context returns a context that ends when parent does or when the watch
// trips, then with Err as its cause (context.Cause): an act's waits (a key
// held, a key code lent) end at once when the person reaches in. Call
// cancel when the act is over.
func (w *Watch) Context(parent context.Context) (ctx context.Context, cancel context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(parent)
	stop := make(chan struct{})
	go func() {
		select {
		case <-w.tripped:
			cancelCause(w.Err())
		case <-ctx.Done():
		case <-stop:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() { close(stop) })
		cancelCause(context.Canceled)
	}
}

// Check waits until the watch has looked at every input the desktop took
// before the call (on X, one round trip to the server), then returns Err.
// Before each key and button event of an act it bounds what follows the
// person's hand to the event already on its way.
func (w *Watch) Check(ctx context.Context) error {
	if err := w.Err(); err != nil {
		return err
	}
	if err := w.src.sync(ctx); err != nil {
		if ctx.Err() != nil {
			return err
		}
		w.fail(err)
	}
	return w.Err()
}

// LastPress is the last button press (or touch) the watch has seen since
// it began, from whatever device, after waiting as Check does; ok is false
// when there was none. A watch of presses that counts keys
// ([PressOptions].Keys) counts key presses among them. A window that allows takes a press only when the
// last press was the person's (Press.Person), came after the window was
// shown, and was placed on its control: a synthetic press after the
// person's own makes the last press synthetic, and so refused.
func (w *Watch) LastPress(ctx context.Context) (p Press, ok bool, err error) {
	if err := w.src.sync(ctx); err != nil {
		if ctx.Err() == nil {
			w.fail(err)
		}
		return Press{}, false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last, w.pressed, nil
}

// Close stops the watch and closes its connection to the display. It is
// safe to call more than once.
func (w *Watch) Close() error {
	w.closeOnce.Do(func() {
		w.closeErr = w.src.close()
		w.fail(errWatchClosed)
	})
	return w.closeErr
}

var errWatchClosed = fmt.Errorf("%w: the watch was closed", ErrNoWatch)

// saw records an input of the person's; the first one trips the watch.
func (w *Watch) saw(h Input) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.first, w.seen = h, true
	w.err = &handError{in: h}
	close(w.tripped)
}

// press records a press from any device.
func (w *Watch) press(p Press) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last, w.pressed = p, true
}

// fail trips the watch with err unless it has tripped already.
func (w *Watch) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	w.err = err
	close(w.tripped)
}

// handError is the person's first input, as an error wrapping
// ErrPersonsHand.
type handError struct{ in Input }

func (e *handError) Error() string {
	switch e.in.Kind {
	case Key:
		return "the person pressed a key"
	case Button:
		return "the person pressed a mouse button"
	case Wheel:
		return "the person turned the mouse wheel"
	case Motion:
		return "the person moved the mouse"
	}
	return ErrPersonsHand.Error()
}

func (e *handError) Unwrap() error { return ErrPersonsHand }

// Staged starts a watch that reads no desktop, for the executor's fake:
// reach plays one input of the person's, which has reached the watch when
// reach returns.
func Staged() (w *Watch, reach func(Input)) {
	w = newWatch()
	w.src = stagedSource{}
	return w, w.saw
}

// stagedSource has nothing on its way.
type stagedSource struct{}

func (stagedSource) sync(context.Context) error { return nil }
func (stagedSource) close() error               { return nil }
