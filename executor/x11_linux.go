package executor

import (
	"context"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/screensaver"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor/hand"
)

func init() {
	// xgb logs to stderr on its own (a missing ~/.Xauthority, a closed
	// connection); every failure that matters reaches our callers as an
	// error, and this package is the only user of xgb in Reins.
	xgb.Logger = log.New(io.Discard, "", 0)
}

// X11Options configures [NewX11].
type X11Options struct {
	Display  string         // optional: the X display, e.g. ":0"; default $DISPLAY
	DenyList denylist.List  // optional: when empty, denylist.Default()
	Scale    func() float64 // optional: device pixels per DIP for AppAt and Windows, which get no plan; default 1
}

// X11 fires input through the XTEST extension and reads window ownership
// from EWMH and ICCCM properties. Tickets' points are DIP; the plan's scale
// turns them into the device pixels X works in.
type X11 struct {
	opts    X11Options
	deny    denyHolder
	conn    *xgb.Conn
	root    xproto.Window
	minCode xproto.Keycode
	maxCode xproto.Keycode
	atoms   x11Atoms
	drained chan struct{} // closed when the connection's event stream ends

	seq    sequence
	hands  hand.Holder // the watch on the person's hand, on a connection of its own
	keyPer int         // guarded by seq.mu: keysyms per keycode, as the last act read the keyboard
	lent   lentRecord  // guarded by seq.mu: the key codes lent now, as the display records them

	topsMu sync.Mutex
	tops   map[xproto.Window]xproto.Window // guarded by topsMu: a client window's top-level window, as last found
}

var (
	_ Executor = (*X11)(nil)
	_ backend  = (*X11)(nil)
)

// How long clients get to fetch a changed keyboard mapping before the key
// that needs it is pressed, and before it is taken back: a client that looks
// a keycode up after the restore types the wrong character.
const x11RemapWait = 50 * time.Millisecond

// X button numbers.
const (
	buttonLeft       = 1
	buttonRight      = 3
	buttonWheelUp    = 4
	buttonWheelDown  = 5
	buttonWheelLeft  = 6
	buttonWheelRight = 7
)

var x11Buttons = [...]byte{
	leftButton:  buttonLeft,
	rightButton: buttonRight,
	wheelUp:     buttonWheelUp,
	wheelDown:   buttonWheelDown,
	wheelLeft:   buttonWheelLeft,
	wheelRight:  buttonWheelRight,
}

// NewX11 connects to the X display.
func NewX11(opts X11Options) (*X11, error) {
	display := opts.Display
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("%w: DISPLAY is not set; run Reins inside an X11 session", ErrNoDisplay)
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot connect to the X display %s: %v", ErrNoDisplay, display, err)
	}
	if err := xtest.Init(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("the X display %s cannot take input from programs (no XTEST extension): %w", display, err)
	}
	if err := initScreensaver(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("the X display %s cannot tell when the person last used the mouse or keyboard (no MIT-SCREEN-SAVER extension), and Reins will not fire input it cannot hold for them: %w", display, err)
	}
	setup := xproto.Setup(conn)
	x := &X11{
		opts:    opts,
		conn:    conn,
		root:    setup.DefaultScreen(conn).Root,
		minCode: setup.MinKeycode,
		maxCode: setup.MaxKeycode,
		drained: make(chan struct{}),
	}
	x.deny.set(opts.DenyList)
	// Events nobody selected still arrive (MappingNotify goes to every
	// client), and xgb stops reading replies once its event queue is full.
	go func() {
		defer close(x.drained)
		for {
			ev, xerr := conn.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
		}
	}()
	if err := x.atoms.intern(conn); err != nil {
		x.Close()
		return nil, fmt.Errorf("the X display %s: %w", display, err)
	}
	return x, nil
}

// Close closes the connection to the display. An act in flight stops at
// its next event and lets go of what it holds first: the X server keeps a
// key that a departed client pressed down.
func (x *X11) Close() error {
	return x.seq.close(x, func() error {
		x.conn.Close()
		<-x.drained
		return x.hands.Close()
	})
}

func (x *X11) handUnwatched() error { return x.hands.Unwatched(hand.Options{Display: x.opts.Display}) }

// watchHand watches the person's hand for one act through XInput 2's raw
// events, on a connection of its own.
func (x *X11) watchHand(ctx context.Context) (*hand.Watch, error) {
	return x.hands.Watch(ctx, hand.Options{Display: x.opts.Display})
}

// initScreensaver makes the MIT-SCREEN-SAVER extension's requests usable
// on conn. screensaver.Init would also register the extension's events in
// xgb's process-wide tables, which every connection's reader reads without a
// lock; Reins never selects those events, so only the opcode is recorded.
func initScreensaver(conn *xgb.Conn) error {
	const name = "MIT-SCREEN-SAVER"
	reply, err := xproto.QueryExtension(conn, uint16(len(name)), name).Reply()
	if err != nil {
		return err
	}
	if !reply.Present {
		return fmt.Errorf("the server has no %s extension", name)
	}
	conn.ExtLock.Lock()
	conn.Extensions[name] = reply.MajorOpcode
	conn.ExtLock.Unlock()
	return nil
}

// lastInput is when the X server last saw input from any device, XTEST's
// included.
func (x *X11) lastInput() (inputAt, error) {
	before := time.Now()
	info, err := screensaver.QueryInfo(x.conn, xproto.Drawable(x.root)).Reply()
	if err != nil {
		return inputAt{}, fmt.Errorf("cannot tell when the person last used the mouse or keyboard, so nothing was fired: %w", err)
	}
	idle := time.Duration(info.MsSinceUserInput) * time.Millisecond
	return inputAt{early: before.Add(-idle), late: time.Now().Add(-idle)}, nil
}

// LastInput is when the person last used the mouse or keyboard, or zero
// when the latest input was an act of Reins'.
func (x *X11) LastInput(ctx context.Context) (time.Time, error) {
	return x.seq.lastInput(x)
}

// SetDenyList replaces the deny list; empty means the default.
func (x *X11) SetDenyList(d denylist.List) { x.deny.set(d) }

func (x *X11) isClosed() bool { return x.seq.isClosed() }

// pixel is a place on the X screen in device pixels.
type pixel struct{ X, Y int16 }

// toPixel rounds a DIP point to the nearest device pixel.
func toPixel(p point, s float64) pixel {
	return pixel{int16(math.Round(p.X * s)), int16(math.Round(p.Y * s))}
}

// asPixel is a point in the backend's units, device pixels, as X takes it.
func asPixel(p point) pixel {
	return pixel{int16(math.Round(p.X)), int16(math.Round(p.Y))}
}

// Fire performs t's act through XTEST; see [sequence.fire]. Tickets'
// points are DIP, and the plan's scale turns them into device pixels.
func (x *X11) Fire(ctx context.Context, t audit.Ticket) error {
	return x.seq.fire(ctx, x, t)
}

func (x *X11) traits() traits {
	return traits{wheelButtons: true, lendWait: x11RemapWait, keys: x11KeyPace}
}

func (x *X11) ready() error { return nil }

func (x *X11) toDevice(pts []point, s float64) ([]point, error) {
	geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(x.root)).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read the screen size: %w", err)
	}
	var px []point
	for _, p := range pts {
		rx, ry := math.Round(p.X*s), math.Round(p.Y*s)
		if !(rx >= 0 && rx < float64(geo.Width) && ry >= 0 && ry < float64(geo.Height)) {
			return nil, fmt.Errorf("%w: (%g, %g) at scale %g is pixel (%g, %g), outside the %dx%d screen",
				ErrOffScreen, p.X, p.Y, s, rx, ry, geo.Width, geo.Height)
		}
		px = append(px, point{rx, ry})
	}
	return px, nil
}

func (x *X11) pointer() (point, bool, error) {
	ptr, err := xproto.QueryPointer(x.conn, x.root).Reply()
	if err != nil {
		return point{}, false, fmt.Errorf("cannot read the pointer: %w", err)
	}
	return point{float64(ptr.RootX), float64(ptr.RootY)}, ptr.SameScreen, nil
}

// post sends one event. Checked, so each event has reached the server
// before the next pause starts: the pauses between events are then real.
func (x *X11) post(e event) error {
	typ, detail, at, err := fakeInput(e)
	if err != nil {
		return err
	}
	return xtest.FakeInputChecked(x.conn, typ, detail, 0, x.root, at.X, at.Y, 0).Check()
}

// postAll sends es checked, one after the other, and waits for the server
// once: the first check's round trip answers for all of them.
func (x *X11) postAll(es []event) error {
	cookies := make([]xtest.FakeInputCookie, 0, len(es))
	for _, e := range es {
		typ, detail, at, err := fakeInput(e)
		if err != nil {
			return err
		}
		cookies = append(cookies, xtest.FakeInputChecked(x.conn, typ, detail, 0, x.root, at.X, at.Y, 0))
	}
	for _, c := range cookies {
		if err := c.Check(); err != nil {
			return err
		}
	}
	return nil
}

// fakeInput is e as XTEST's FakeInput takes it.
func fakeInput(e event) (typ, detail byte, at pixel, err error) {
	switch e.kind {
	case moveTo, dragTo:
		typ, at = xproto.MotionNotify, asPixel(e.at)
	case buttonDown:
		typ, detail = xproto.ButtonPress, x11Buttons[e.button]
	case buttonUp:
		typ, detail = xproto.ButtonRelease, x11Buttons[e.button]
	case keyDown:
		typ, detail = xproto.KeyPress, byte(e.key.code)
	case keyUp:
		typ, detail = xproto.KeyRelease, byte(e.key.code)
	default:
		return 0, 0, pixel{}, fmt.Errorf("X has no event of kind %d: %w", e.kind, errNoEvent)
	}
	return typ, detail, at, nil
}

func (x *X11) wait(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

func (x *X11) frontmost(ctx context.Context) (App, error) { return x.Frontmost(ctx) }

func (x *X11) appAt(ctx context.Context, p point) (App, error) { return x.appAtPixel(asPixel(p)) }

func (x *X11) denyList() denylist.List { return x.deny.get() }

// focusIn reads the input focus: keys go to the focus window or a window
// inside it, and with the focus on PointerRoot (as without a window
// manager) to the window under the pointer.
func (x *X11) focusIn(ctx context.Context, w uint64) (bool, App, error) {
	want := xproto.Window(w)
	focus, err := xproto.GetInputFocus(x.conn).Reply()
	if err != nil {
		return false, App{}, err
	}
	f := focus.Focus
	switch {
	case f == want:
		return true, App{}, nil
	case f == xproto.InputFocusNone:
		return false, desktop, nil
	case f == xproto.InputFocusPointerRoot || f == x.root:
		ptr, err := xproto.QueryPointer(x.conn, x.root).Reply()
		if err != nil {
			return false, App{}, err
		}
		if !ptr.SameScreen {
			return false, desktop, nil
		}
		return x.topIs(ctx, point{float64(ptr.RootX), float64(ptr.RootY)}, w)
	}
	for cur := f; ; {
		tree, err := xproto.QueryTree(x.conn, cur).Reply()
		if isGone(err) {
			break // it went meanwhile: the focus goes with it
		}
		if err != nil {
			return false, App{}, err
		}
		if tree.Parent == want {
			return true, App{}, nil
		}
		if tree.Parent == x.root || tree.Parent == 0 {
			break
		}
		cur = tree.Parent
	}
	_, app, err := x.around(f)
	if isGone(err) {
		return false, desktop, nil
	}
	return false, app, err
}

// topIs asks the server which of the root's children is under p: w's own
// top-level window (w, or a window manager's frame around it) or another.
func (x *X11) topIs(ctx context.Context, p point, w uint64) (bool, App, error) {
	want := xproto.Window(w)
	at := asPixel(p)
	r, err := xproto.TranslateCoordinates(x.conn, x.root, x.root, at.X, at.Y).Reply()
	if err != nil {
		return false, App{}, err
	}
	if r.Child != 0 && r.Child == want {
		return true, App{}, nil
	}
	if r.Child != 0 {
		top, err := x.topOf(want, false)
		if err == nil && top != r.Child {
			top, err = x.topOf(want, true) // a window manager may have framed it since
		}
		if err != nil && !isGone(err) {
			return false, App{}, err
		}
		if err == nil && top == r.Child {
			return true, App{}, nil
		}
		if err == nil {
			// The picture a browser drags along under the pointer is not
			// where the drop lands: the window beneath it is.
			under, err := x.beneathDragIcons(at, r.Child, want)
			if err != nil {
				return false, App{}, err
			}
			if under != 0 && (under == want || under == top) {
				return true, App{}, nil
			}
			if under != r.Child {
				// Named by the window beneath the icon, where the drop
				// would land.
				if under == 0 {
					return false, desktop, nil
				}
				_, app, ok, err := x.client(under)
				if err == nil && !ok {
					app = unknown
				}
				return false, app, err
			}
		}
	}
	_, app, err := x.windowAt(at)
	return false, app, err
}

// beneathDragIcons is the root's child under p once the drag icons of the
// process that made w are looked through, starting from child, the one on
// top; child itself when it is no such icon, 0 when nothing is beneath.
// A drag icon (_NET_WM_WINDOW_TYPE_DND) of another process is a window like
// any other: a drop lands on it.
func (x *X11) beneathDragIcons(p pixel, child, w xproto.Window) (xproto.Window, error) {
	owner, ok := x.serverPID(w)
	if !ok {
		return child, nil
	}
	icon := func(c xproto.Window) (bool, error) {
		r, err := x.prop(c, x.atoms.windowType)
		if err != nil || r == nil || r.Format != 32 {
			return false, err
		}
		dnd := false
		for i := 0; i+4 <= len(r.Value); i += 4 {
			dnd = dnd || xproto.Atom(xgb.Get32(r.Value[i:])) == x.atoms.typeDND
		}
		if !dnd {
			return false, nil
		}
		pid, ok := x.serverPID(c)
		return ok && pid == owner, nil
	}
	if is, err := icon(child); err != nil || !is {
		return child, err
	}
	tree, err := xproto.QueryTree(x.conn, x.root).Reply()
	if err != nil {
		return 0, err
	}
	for i := len(tree.Children) - 1; i >= 0; i-- { // top to bottom
		c := tree.Children[i]
		attrs, err := xproto.GetWindowAttributes(x.conn, c).Reply()
		if isGone(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if attrs.MapState != xproto.MapStateViewable {
			continue
		}
		geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(c)).Reply()
		if isGone(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		b := int(geo.BorderWidth)
		if int(p.X) < int(geo.X) || int(p.Y) < int(geo.Y) || int(p.X) >= int(geo.X)+int(geo.Width)+2*b || int(p.Y) >= int(geo.Y)+int(geo.Height)+2*b {
			continue
		}
		if is, err := icon(c); err != nil {
			return 0, err
		} else if !is {
			return c, nil
		}
	}
	return 0, nil
}

// topOf is w's top-level window, the child of the root that holds it: as
// found before, unless fresh, else asked of the server.
func (x *X11) topOf(w xproto.Window, fresh bool) (xproto.Window, error) {
	x.topsMu.Lock()
	top, ok := x.tops[w]
	x.topsMu.Unlock()
	if ok && !fresh {
		return top, nil
	}
	for cur := w; ; {
		tree, err := xproto.QueryTree(x.conn, cur).Reply()
		if err != nil {
			return 0, err
		}
		if tree.Parent == x.root || tree.Parent == 0 {
			x.keepTop(w, cur)
			return cur, nil
		}
		cur = tree.Parent
	}
}

// keepTop remembers top as w's top-level window; a handful at most.
func (x *X11) keepTop(w, top xproto.Window) {
	x.topsMu.Lock()
	defer x.topsMu.Unlock()
	if x.tops == nil || len(x.tops) > 16 {
		x.tops = map[xproto.Window]xproto.Window{}
	}
	x.tops[w] = top
}
