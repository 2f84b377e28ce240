package executor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/reins-app/reins/executor/hand"
)

// fakeDesk is the fake backend: a desktop of staged applications, windows
// and screens, and a keyboard with a key for every named key and ASCII
// character and two spare key codes for the rest. It sends nothing
// anywhere and writes down, a line each, every question the sequence asks
// of the screen and everything it posts, lends and waits for, and which
// window each key and button event reached. Its zero value is a desktop
// with nothing on it but one browser window, behind everything, that shows
// every tab (FakeTabWindow) and holds the keyboard focus; once windows are
// staged, that one is gone.
type fakeDesk struct {
	mu      sync.Mutex
	front   App               // guarded by mu
	behind  App               // guarded by mu: under every point no window covers
	windows []Window          // guarded by mu: front to back
	focus   uint64            // guarded by mu: the window with the keyboard focus, when set
	hits    []fakeHit         // guarded by mu: where each key and button event went
	screens []Screen          // guarded by mu: nil until SetScreens
	failure error             // guarded by mu: what post fails with
	input   time.Time         // guarded by mu: the desktop's latest input, the person's or its own
	ptr     point             // guarded by mu
	bound   map[uint16]uint32 // guarded by mu: spare key codes lent now, and what they type
	log     []string          // guarded by mu

	// testOnlyStep, if set, is called with each line before it is written,
	// outside the lock; an error makes that step fail, and is not written.
	testOnlyStep func(line string) error
}

var _ backend = (*Fake)(nil)

// desktop is what owns a point no window covers.
var desktop = App{Name: "desktop"}

// FakeTabWindow is the window of a [Fake] on which no windows are staged:
// a browser's, behind everything, showing every tab, with the keyboard
// focus unless SetFocus moves it.
const FakeTabWindow uint64 = 0xfab

// fakeBrowser is the application of FakeTabWindow.
var fakeBrowser = App{Name: "Chromium", Class: "chromium.Chromium", Exe: "/usr/lib/chromium/chromium"}

// fakeHit is one key or button event and the window it reached: keys the
// one with the focus, buttons and the wheel the one under the pointer.
type fakeHit struct {
	kind   eventKind
	window uint64
	at     point
}

// boundless is the fake's screen until SetScreens: with no display of its
// own, it has no edge to refuse points beyond.
var boundless = Screen{X: -1 << 24, Y: -1 << 24, W: 1 << 25, H: 1 << 25}

// Key codes of the fake keyboard: ASCII characters are their own code.
const (
	fakeNamedCode = 0x100 // + named
	fakeModCode   = 0x200 // + mods
	fakeSpareCode = 0x300 // + 0, 1
	fakeSpares    = 2
)

// step writes line, unless the test seam fails it.
func (d *fakeDesk) step(line string) error {
	if d.testOnlyStep != nil {
		if err := d.testOnlyStep(line); err != nil {
			return err
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.log = append(d.log, line)
	return nil
}

// steps returns what the desktop has written down so far, and forgets it.
func (d *fakeDesk) steps() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.log
	d.log = nil
	return out
}

func (d *fakeDesk) traits() traits {
	return traits{lendWait: 50 * time.Millisecond, keys: KeyPace{Hold: 10 * time.Millisecond}}
}

func (d *fakeDesk) ready() error { return nil }

func (d *fakeDesk) toDevice(pts []point, _ float64) ([]point, error) {
	screens := d.screensNow()
	for _, p := range pts {
		if !OnScreen(screens, p.X, p.Y) {
			return nil, fmt.Errorf("%w: (%g, %g) is on no screen", ErrOffScreen, p.X, p.Y)
		}
	}
	return pts, nil
}

func (d *fakeDesk) screensNow() []Screen {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.screens == nil {
		return []Screen{boundless}
	}
	return append([]Screen(nil), d.screens...)
}

func (d *fakeDesk) pointer() (point, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ptr, true, nil
}

func (d *fakeDesk) strokes(c checked) (*strokes, error) {
	d.mu.Lock()
	var spares []uint16
	for i := range fakeSpares {
		if code := uint16(fakeSpareCode + i); d.bound[code] == 0 {
			spares = append(spares, code)
		}
	}
	d.mu.Unlock()
	l := &lender{spares: spares}
	k, err := planStrokes(c, func(ch chord, _ bool) (stroke, error) {
		st := stroke{round: -1}
		switch {
		case ch.name != keyNone:
			st.key.code = fakeNamedCode + uint16(ch.name)
		case ch.char < 0x80:
			st.key.code = uint16(ch.char)
		default:
			code, round, ok := l.lend(uint32(ch.char))
			if !ok {
				return st, fmt.Errorf("%w: no key types %q and no spare key code is free", ErrUnknownKey, ch.char)
			}
			st.key.code, st.round = code, round
		}
		for _, m := range modOrder {
			if ch.mods&m != 0 {
				st.mods = append(st.mods, key{code: fakeModCode + uint16(m), mod: m})
			}
		}
		return st, nil
	})
	if err != nil {
		return nil, err
	}
	k.lendAll(l)
	return k, nil
}

func (d *fakeDesk) lend(l loan) error {
	if err := d.step(fmt.Sprintf("lend %s to %q", d.keyName(l.code), rune(l.sym))); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bound == nil {
		d.bound = map[uint16]uint32{}
	}
	d.bound[l.code] = l.sym
	return nil
}

func (d *fakeDesk) giveBack(code uint16) error {
	if err := d.step("give back " + d.keyName(code)); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.bound, code)
	return nil
}

// lentNow returns the spare key codes lent at the moment.
func (d *fakeDesk) lentNow() map[uint16]uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[uint16]uint32{}
	for code, sym := range d.bound {
		out[code] = sym
	}
	return out
}

func (d *fakeDesk) post(e event) error {
	d.mu.Lock()
	failure := d.failure
	d.mu.Unlock()
	if failure != nil {
		return failure
	}
	if err := d.step(d.describe(e)); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch e.kind {
	case moveTo, dragTo:
		d.ptr = e.at
	case keyDown, keyUp:
		d.hits = append(d.hits, fakeHit{kind: e.kind, window: d.focusedLocked()})
	default:
		id, _ := d.topLocked(d.ptr)
		d.hits = append(d.hits, fakeHit{kind: e.kind, window: id, at: d.ptr})
	}
	d.input = time.Now() // its events are input the desktop sees
	return nil
}

// hitsNow returns where the key and button events went so far, and
// forgets them.
func (d *fakeDesk) hitsNow() []fakeHit {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.hits
	d.hits = nil
	return out
}

// focusedLocked is the window with the keyboard focus: the one SetFocus
// named, else FakeTabWindow when no window is staged, else the first
// staged window marked Active, else none (0).
func (d *fakeDesk) focusedLocked() uint64 {
	if d.focus != 0 {
		return d.focus
	}
	if len(d.windows) == 0 {
		return FakeTabWindow
	}
	for _, w := range d.windows {
		if w.Active {
			return w.ID
		}
	}
	return 0
}

// topLocked is the window under p, front to back, and its application:
// FakeTabWindow's when no window is staged, none (0) and the desktop
// behind when no staged window covers p.
func (d *fakeDesk) topLocked(p point) (uint64, App) {
	if len(d.windows) == 0 {
		return FakeTabWindow, fakeBrowser
	}
	for _, w := range d.windows {
		if p.X >= w.X && p.X < w.X+w.W && p.Y >= w.Y && p.Y < w.Y+w.H {
			return w.ID, w.App
		}
	}
	if d.behind == (App{}) {
		return 0, desktop
	}
	return 0, d.behind
}

// appOfLocked is the application of window id.
func (d *fakeDesk) appOfLocked(id uint64) App {
	if id == FakeTabWindow && len(d.windows) == 0 {
		return fakeBrowser
	}
	for _, w := range d.windows {
		if id != 0 && w.ID == id {
			return w.App
		}
	}
	return desktop
}

func (d *fakeDesk) focusIn(ctx context.Context, w uint64) (bool, App, error) {
	if err := d.step(fmt.Sprintf("keys into window %d?", w)); err != nil {
		return false, App{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.focusedLocked()
	return f == w, d.appOfLocked(f), nil
}

func (d *fakeDesk) topIs(ctx context.Context, p point, w uint64) (bool, App, error) {
	if err := d.step(fmt.Sprintf("window %d at %g,%g?", w, p.X, p.Y)); err != nil {
		return false, App{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	id, app := d.topLocked(p)
	return id == w, app, nil
}

// describe is the line an event is written down as.
func (d *fakeDesk) describe(e event) string {
	buttons := [...]string{leftButton: "left", rightButton: "right", wheelUp: "wheel up", wheelDown: "wheel down", wheelLeft: "wheel left", wheelRight: "wheel right"}
	switch e.kind {
	case moveTo:
		return fmt.Sprintf("move %g,%g", e.at.X, e.at.Y)
	case dragTo:
		return fmt.Sprintf("drag %g,%g", e.at.X, e.at.Y)
	case buttonDown:
		return fmt.Sprintf("down %s %d", buttons[e.button], e.clicks)
	case buttonUp:
		return fmt.Sprintf("up %s %d", buttons[e.button], e.clicks)
	case keyDown:
		return "key down " + d.keyName(e.key.code)
	case keyUp:
		return "key up " + d.keyName(e.key.code)
	case wheel:
		return fmt.Sprintf("wheel %d,%d", e.dx, e.dy)
	}
	return fmt.Sprintf("event %d", e.kind)
}

// keyName is how a key code of the fake keyboard is written down: a
// spare key code by what it is lent to.
func (d *fakeDesk) keyName(code uint16) string {
	switch {
	case code < 0x80:
		return string(rune(code))
	case code >= fakeSpareCode:
		return fmt.Sprintf("spare%d", code-fakeSpareCode)
	case code >= fakeModCode:
		return mods(code - fakeModCode).String()
	}
	if name, ok := fakeKeyNames[named(code-fakeNamedCode)]; ok {
		return name
	}
	return fmt.Sprintf("key%#x", code)
}

var fakeKeyNames = map[named]string{
	keyEnter: "Enter", keyTab: "Tab", keyEscape: "Escape", keyBackspace: "Backspace", keyDelete: "Delete",
}

func (d *fakeDesk) wait(ctx context.Context, dur time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.step(fmt.Sprintf("wait %s", dur))
}

func (d *fakeDesk) frontmost(ctx context.Context) (App, error) {
	if err := d.step("front?"); err != nil {
		return App{}, err
	}
	return d.frontNow(), nil
}

func (d *fakeDesk) frontNow() App {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.front == (App{}) {
		return desktop
	}
	return d.front
}

func (d *fakeDesk) appAt(ctx context.Context, p point) (App, error) {
	if err := d.step(fmt.Sprintf("app at %g,%g?", p.X, p.Y)); err != nil {
		return App{}, err
	}
	return d.appAtNow(p), nil
}

func (d *fakeDesk) appAtNow(p point) App {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range d.windows {
		if p.X >= w.X && p.X < w.X+w.W && p.Y >= w.Y && p.Y < w.Y+w.H {
			return w.App
		}
	}
	if d.behind == (App{}) {
		return desktop
	}
	return d.behind
}

func (d *fakeDesk) lastInput() (inputAt, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return inputAt{d.input, d.input}, nil
}

// fakeHands is the Fake's person's hand: the watch of the act firing,
// which ReachIn trips, and SetHandWatch's failure.
type fakeHands struct {
	mu    sync.Mutex
	reach func(hand.Input) // guarded by mu: plays the person's input on the watch of the act firing
	fail  error            // guarded by mu
}

func (f *Fake) watchHand(context.Context) (*hand.Watch, error) {
	f.hands.mu.Lock()
	defer f.hands.mu.Unlock()
	if f.hands.fail != nil {
		return nil, f.hands.fail
	}
	w, reach := hand.Staged()
	f.hands.reach = reach
	return w, nil
}

// ReachIn plays the person reaching for the keyboard (hand.Key) or the
// mouse while an act fires (from WhileFiring, say): the act stops before
// its next event and lets go of what it holds. Outside an act it does
// nothing.
func (f *Fake) ReachIn(kind hand.Kind) {
	f.hands.mu.Lock()
	reach := f.hands.reach
	f.hands.mu.Unlock()
	if reach != nil {
		reach(hand.Input{Kind: kind, Device: 2, At: time.Now()})
	}
}

// SetHandWatch makes every later act fail to watch the person's hand with
// err (which should wrap hand.ErrNoWatch), as a desktop without XInput 2
// would; nil undoes it.
func (f *Fake) SetHandWatch(err error) {
	f.hands.mu.Lock()
	defer f.hands.mu.Unlock()
	f.hands.fail = err
}

func (f *Fake) handUnwatched() error {
	f.hands.mu.Lock()
	defer f.hands.mu.Unlock()
	return f.hands.fail
}
