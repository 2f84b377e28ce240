package executor

import (
	"context"
	"errors"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/vocab"
)

// backend is what one desktop gives the fire sequence: questions for the OS
// and single events to post, and nothing about the order they come in,
// which is the sequence's alone. The sequence calls a backend one call at a
// time, with its lock held.
//
// Points are in the backend's own units, the ones its events take: the
// device pixels of X, the points of CoreGraphics. reach turns a plan's DIP
// into them; every other method takes and gives them.
type backend interface {
	// traits says how this desktop's input works.
	traits() traits
	// ready refuses an act before anything is asked of the screen, when
	// no input can be sent at all.
	ready() error
	// toDevice returns pts (DIP at the given scale) in the backend's units,
	// or an error wrapping ErrOffScreen when one is on no screen.
	toDevice(pts []point, scale float64) ([]point, error)
	// pointer is where the pointer is; back is false when it is where
	// events cannot put it back (another X screen).
	pointer() (at point, back bool, err error)
	// strokes resolves every key of a Key or Type act, lending spare
	// key codes to characters the keyboard lacks, before anything fires.
	strokes(c checked) (*strokes, error)
	// lend binds a spare key code to what it types for one act; giveBack
	// binds it to nothing again.
	lend(l loan) error
	giveBack(code uint16) error
	// post sends one event.
	post(e event) error
	// wait is the pause between two events.
	wait(ctx context.Context, d time.Duration) error
	// frontmost is the application in front; appAt owns the window at p.
	frontmost(ctx context.Context) (App, error)
	appAt(ctx context.Context, p point) (App, error)
	// lastInput is when the desktop last saw input, the executor's
	// included.
	lastInput() (inputAt, error)
	// denyList is the list in force now: the sequence reads it before the
	// first event and again before every typed key.
	denyList() denylist.List
	// watchHand starts a watch on the person's own input for one act
	// (handact.go), or says why this desktop cannot: an error wrapping
	// hand.ErrNoWatch, and the act does not fire.
	watchHand(ctx context.Context) (*hand.Watch, error)
	// focusIn reports whether the keyboard focus is in window w, w itself
	// or a window inside it; when it is not, there is the application
	// holding it (the desktop when no window does).
	focusIn(ctx context.Context, w uint64) (in bool, there App, err error)
	// topIs reports whether the top-level window under p is w; when it is
	// not, there is the application whose window is there.
	topIs(ctx context.Context, p point, w uint64) (is bool, there App, err error)
}

// batcher is a backend that can send several events and have the desktop
// answer once for all of them: they have all reached it when postAll
// returns, and the first that failed is its error.
type batcher interface {
	postAll(es []event) error
}

// traits are the ways desktops differ in how input works.
type traits struct {
	// wheelButtons: a wheel notch is a button pressed and released (X),
	// not a wheel event of its own.
	wheelButtons bool
	// postLag is how long after post returns the desktop may still stamp
	// the event as input.
	postLag time.Duration
	// lendWait is how long clients get to fetch a changed keyboard mapping
	// before the lent key is pressed, and before it is given back: a client
	// that looks a key code up after the restore types the wrong character.
	lendWait time.Duration
	// keys is how typing paces its keys here (a zero Pace types as fast as
	// events can be sent).
	keys KeyPace
}

// recorder is a backend that is told of each act: right before its first
// event (an error stops it there), and once it is done. The fake is one.
type recorder interface {
	firing(ctx context.Context, t audit.Ticket) error
	fired(t audit.Ticket)
}

// errNoEvent: the OS made no event to post, so none was sent.
var errNoEvent = errors.New("could not make an input event")

// eventKind is what one posted event does.
type eventKind uint8

const (
	moveTo     eventKind = iota // the pointer to at
	dragTo                      // the pointer to at, with the left button held
	buttonDown                  // button goes down where the pointer is
	buttonUp
	keyDown // key goes down, with mods held
	keyUp
	wheel // one notch: dx or dy is 1 (right, down) or -1
)

// event is one input event, as the sequence asks a backend to post it.
type event struct {
	kind   eventKind
	at     point  // moveTo, dragTo: where to; buttons: where the pointer is
	button button // buttonDown, buttonUp
	clicks int    // buttons: which click of a double click this is, from 1
	key    key    // keyDown, keyUp
	mods   mods   // keys: the modifiers held once this event is in
	dx, dy int    // wheel
}

// button is a mouse button, or a direction of the wheel on desktops where
// a notch is a button press.
type button uint8

const (
	leftButton button = iota
	rightButton
	wheelUp
	wheelDown
	wheelLeft
	wheelRight
)

// wheelButton is the button that turns the wheel one notch: down or right
// for a positive sign.
func wheelButton(vertical bool, sign int) button {
	switch {
	case vertical && sign < 0:
		return wheelUp
	case vertical:
		return wheelDown
	case sign < 0:
		return wheelLeft
	}
	return wheelRight
}

// key is one key as a backend knows it.
type key struct {
	code uint16 // the backend's key code
	mod  mods   // the modifier it holds, when it is a modifier key
	text rune   // macOS: the character it types, sent with its events
}

// stroke is one key press with modifier keys held around it.
type stroke struct {
	mods  []key // pressed in order, released in reverse
	key   key
	round int // the lending round its key needs, or -1 when it is on the keyboard
}

// strokes is an act's keys, resolved before anything fires.
type strokes struct {
	chord  stroke   // Key
	clear  []stroke // Type: select all, then delete
	text   []stroke // Type
	submit *stroke  // Type: Enter after the text
	loans  [][]loan // rounds of spare key codes lent to characters
	lent   []uint16 // every code any round lends
}

// planStrokes resolves an act's keys with resolve, which is told whether a
// chord is a character of typed text.
func planStrokes(c checked, resolve func(ch chord, typed bool) (stroke, error)) (*strokes, error) {
	k := &strokes{}
	var err error
	switch c.act.Kind {
	case vocab.Key:
		if k.chord, err = resolve(c.chord, false); err != nil {
			return nil, err
		}
	case vocab.Type:
		for _, ch := range c.clear {
			st, err := resolve(ch, false)
			if err != nil {
				return nil, err
			}
			k.clear = append(k.clear, st)
		}
		for _, ch := range c.keys {
			st, err := resolve(ch, true)
			if err != nil {
				return nil, err
			}
			k.text = append(k.text, st)
		}
		if c.submit != nil {
			st, err := resolve(*c.submit, false)
			if err != nil {
				return nil, err
			}
			k.submit = &st
		}
	}
	return k, nil
}

// loan is a spare key code bound, for one act, to a character the keyboard
// lacks.
type loan struct {
	code uint16
	sym  uint32 // what it types meanwhile: an X keysym
}

// lender hands spare key codes to characters. When an act types more such
// characters than there are spares, it lends in rounds: each round binds
// the same spares anew.
type lender struct {
	spares []uint16 // the least likely to be a physical key first
	rounds [][]loan
	used   []uint16 // every spare bound in any round: round 0 takes them all before a round 1 opens
}

// lend finds sym a spare key code in the latest round, opening a new round
// when that one is full; ok is false when there are no spares.
func (l *lender) lend(sym uint32) (code uint16, round int, ok bool) {
	if len(l.spares) == 0 {
		return 0, 0, false
	}
	if n := len(l.rounds); n > 0 {
		for _, b := range l.rounds[n-1] {
			if b.sym == sym {
				return b.code, n - 1, true
			}
		}
	}
	if n := len(l.rounds); n == 0 || len(l.rounds[n-1]) == len(l.spares) {
		l.rounds = append(l.rounds, nil)
	}
	r := len(l.rounds) - 1
	code = l.spares[len(l.rounds[r])]
	l.rounds[r] = append(l.rounds[r], loan{code, sym})
	if r == 0 {
		l.used = append(l.used, code)
	}
	return code, r, true
}

// lendAll puts what l lent on k.
func (k *strokes) lendAll(l *lender) {
	k.loans, k.lent = l.rounds, l.used
}
