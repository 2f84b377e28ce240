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
	"github.com/reins-app/reins/vocab"
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
	DenyList DenyList       // optional: when empty, DefaultDenyList()
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

	fireMu sync.Mutex // one act at a time
	own    time.Time  // guarded by fireMu: when the last act's last event was sent

	mu     sync.Mutex
	closed bool // guarded by mu
}

var _ Executor = (*X11)(nil)

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
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil
	}
	x.closed = true
	x.mu.Unlock()
	x.fireMu.Lock()
	defer x.fireMu.Unlock()
	x.conn.Close()
	<-x.drained
	return nil
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
	x.fireMu.Lock()
	defer x.fireMu.Unlock()
	if x.isClosed() {
		return time.Time{}, errClosed
	}
	in, err := x.lastInput()
	if err != nil {
		return time.Time{}, err
	}
	return in.person(x.own), nil
}

// SetDenyList replaces the deny list; empty means the default.
func (x *X11) SetDenyList(d DenyList) { x.deny.set(d) }

func (x *X11) isClosed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closed
}

// pixel is a place on the X screen in device pixels.
type pixel struct{ X, Y int16 }

// toPixel rounds a DIP point to the nearest device pixel.
func toPixel(p point, s float64) pixel {
	return pixel{int16(math.Round(p.X * s)), int16(math.Round(p.Y * s))}
}

// Fire performs t's act. The sequence, for every act: check the ticket and
// resolve every key to a keycode (nothing fires on an unknown key); bind
// spare keycodes to characters the keyboard lacks; check the deny list;
// fire; release anything still held if the act stops half-way; put the
// pointer back where the person had it (all but Hover). While typing, the
// frontmost application is checked again before every key, so typing stops
// if a deny-listed application comes to the front.
func (x *X11) Fire(ctx context.Context, t audit.Ticket) error {
	c, err := check(t)
	if err != nil {
		return err
	}
	x.fireMu.Lock()
	defer x.fireMu.Unlock()
	if x.isClosed() {
		return errClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	s := scale(c.plan.Scale)
	geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(x.root)).Reply()
	if err != nil {
		return fmt.Errorf("cannot read the screen size: %w", err)
	}
	var px []pixel
	for _, p := range c.points {
		rx, ry := math.Round(p.X*s), math.Round(p.Y*s)
		if !(rx >= 0 && rx < float64(geo.Width) && ry >= 0 && ry < float64(geo.Height)) {
			return fmt.Errorf("%w: (%g, %g) at scale %g is pixel (%g, %g), outside the %dx%d screen",
				ErrOffScreen, p.X, p.Y, s, rx, ry, geo.Width, geo.Height)
		}
		px = append(px, pixel{int16(rx), int16(ry)})
	}

	ptr, err := xproto.QueryPointer(x.conn, x.root).Reply()
	if err != nil {
		return fmt.Errorf("cannot read the pointer: %w", err)
	}

	var keys *x11Keys
	if c.act.Kind == vocab.Key || c.act.Kind == vocab.Type {
		if keys, err = x.planKeys(c, ptr.Mask&xproto.ModMaskLock != 0); err != nil {
			return err
		}
	}

	in := &x11Input{x: x, ctx: ctx, keys: keys, round: -1}
	defer func() { // after finish: the last event sent
		if in.sent {
			x.own = time.Now()
		}
	}()
	defer in.finish()
	if keys != nil && len(keys.rounds) > 0 {
		// Before the deny check, because binding waits for clients to
		// catch up, and the check belongs right before the first event.
		if err := in.remap(0); err != nil {
			return err
		}
	}

	at := func(ctx context.Context, p point) (App, error) {
		return x.appAtPixel(toPixel(p, s))
	}
	if err := denyCheck(ctx, x.deny.get(), c.points, x.Frontmost, at); err != nil {
		return err
	}
	seen, err := x.lastInput()
	if err != nil {
		return err
	}
	if err := personCheck(seen, x.own, quietFrom(t)); err != nil {
		return err
	}
	if err := x.perform(in, c, px, keys); err != nil {
		return err
	}
	if returnsPointer(c.act.Kind) && len(px) > 0 && ptr.SameScreen {
		if err := in.move(pixel{ptr.RootX, ptr.RootY}); err != nil {
			return fmt.Errorf("the act was done, but the pointer could not be put back: %w", err)
		}
	}
	return nil
}

func (x *X11) perform(in *x11Input, c checked, px []pixel, keys *x11Keys) error {
	switch c.act.Kind {
	case vocab.Hover:
		return in.move(px[0])
	case vocab.Click:
		return in.click(px[0], buttonLeft, 1)
	case vocab.DoubleClick:
		return in.click(px[0], buttonLeft, 2)
	case vocab.RightClick:
		return in.click(px[0], buttonRight, 1)
	case vocab.Scroll:
		return in.scroll(px[0], c.act.DX, c.act.DY)
	case vocab.Drag:
		return in.drag(px[0], px[1])
	case vocab.Key:
		return in.chord(keys.chord)
	case vocab.Type:
		if len(px) > 0 {
			if err := in.click(px[0], buttonLeft, 1); err != nil {
				return err
			}
			if err := in.sleep(focusWait); err != nil {
				return err
			}
		}
		for _, st := range keys.clear {
			if err := in.chord(st); err != nil {
				return err
			}
		}
		// The click or the clearing may have brought something else to
		// the front, and so may anything while the text is typed.
		for i, st := range keys.text {
			if err := x.frontStillAllowed(in.ctx, i, len(keys.text)); err != nil {
				return err
			}
			if err := in.chord(st); err != nil {
				return err
			}
		}
		if keys.submit != nil {
			if err := x.frontStillAllowed(in.ctx, len(keys.text), len(keys.text)); err != nil {
				return err
			}
			return in.chord(*keys.submit)
		}
		return nil
	}
	return fmt.Errorf("%w: %q", ErrUnsupported, c.act.Kind)
}

// frontStillAllowed stops typing when a deny-listed application has come to
// the front since the act began (a password manager's prompt, say).
func (x *X11) frontStillAllowed(ctx context.Context, done, total int) error {
	app, err := x.Frontmost(ctx)
	if err != nil {
		return fmt.Errorf("typing stopped after %d of %d keys: cannot tell which application is in front: %w", done, total, err)
	}
	if rule, ok := x.deny.get().Match(app); ok {
		return fmt.Errorf("%w: %s came to the front (deny list: %s); typing stopped after %d of %d keys", ErrDenyListed, app.Name, rule, done, total)
	}
	return nil
}

// x11Input sends fake events and remembers what is held, so that an act
// that stops half-way (an error, a cancelled context) leaves no key or
// button down.
type x11Input struct {
	x     *X11
	ctx   context.Context
	keys  *x11Keys // the act's keys, if it has any
	round int      // the binding round in place, or -1

	held    []xproto.Keycode // in press order
	buttons []byte           // held, in press order
	sent    bool             // an event was sent
}

func (in *x11Input) send(typ, detail byte, at pixel) error {
	// Checked, so each event has reached the server before the next sleep
	// starts: the delays between events are then real.
	in.sent = true
	return xtest.FakeInputChecked(in.x.conn, typ, detail, 0, in.x.root, at.X, at.Y, 0).Check()
}

func (in *x11Input) sleep(d time.Duration) error { return sleep(in.ctx, d) }

// alive says whether the act may send its next event.
func (in *x11Input) alive() error {
	if in.x.isClosed() {
		return errClosed
	}
	return in.ctx.Err()
}

func (in *x11Input) move(to pixel) error {
	if err := in.alive(); err != nil {
		return err
	}
	return in.send(xproto.MotionNotify, 0, to)
}

func (in *x11Input) buttonDown(b byte) error {
	if err := in.alive(); err != nil {
		return err
	}
	if err := in.send(xproto.ButtonPress, b, pixel{}); err != nil {
		return err
	}
	in.buttons = append(in.buttons, b)
	return nil
}

func (in *x11Input) buttonUp(b byte) error {
	in.buttons = remove(in.buttons, b)
	return in.send(xproto.ButtonRelease, b, pixel{})
}

func (in *x11Input) keyDown(k xproto.Keycode) error {
	if err := in.alive(); err != nil {
		return err
	}
	if err := in.send(xproto.KeyPress, byte(k), pixel{}); err != nil {
		return err
	}
	in.held = append(in.held, k)
	return nil
}

func (in *x11Input) keyUp(k xproto.Keycode) error {
	in.held = remove(in.held, k)
	return in.send(xproto.KeyRelease, byte(k), pixel{})
}

// finish lets go of whatever is still held, last pressed first, then
// gives back any keycodes lent to characters. It runs even when the act's
// context has ended.
func (in *x11Input) finish() {
	for i := len(in.buttons) - 1; i >= 0; i-- {
		_ = in.send(xproto.ButtonRelease, in.buttons[i], pixel{})
	}
	for i := len(in.held) - 1; i >= 0; i-- {
		_ = in.send(xproto.KeyRelease, byte(in.held[i]), pixel{})
	}
	in.buttons, in.held = nil, nil
	if in.round >= 0 {
		in.keys.restore(in.x)
	}
}

func (in *x11Input) press(b byte) error {
	if err := in.buttonDown(b); err != nil {
		return err
	}
	if err := in.sleep(buttonHold); err != nil {
		return err
	}
	return in.buttonUp(b)
}

func (in *x11Input) click(at pixel, b byte, times int) error {
	if err := in.move(at); err != nil {
		return err
	}
	if err := in.sleep(settleWait); err != nil {
		return err
	}
	for i := range times {
		if i > 0 {
			if err := in.sleep(doubleGap); err != nil {
				return err
			}
		}
		if err := in.press(b); err != nil {
			return err
		}
	}
	return nil
}

// scroll turns the wheel dy notches down (up when negative), then dx
// notches right (left when negative).
func (in *x11Input) scroll(at pixel, dx, dy int) error {
	if err := in.move(at); err != nil {
		return err
	}
	if err := in.sleep(settleWait); err != nil {
		return err
	}
	notches := func(n int, neg, pos byte) error {
		b := pos
		if n < 0 {
			b, n = neg, -n
		}
		for range n {
			if err := in.press(b); err != nil {
				return err
			}
			if err := in.sleep(stepGap); err != nil {
				return err
			}
		}
		return nil
	}
	if err := notches(dy, buttonWheelUp, buttonWheelDown); err != nil {
		return err
	}
	return notches(dx, buttonWheelLeft, buttonWheelRight)
}

// drag presses at from, moves in steps so that pages see a drag start
// rather than a jump, and releases at to.
func (in *x11Input) drag(from, to pixel) error {
	if err := in.move(from); err != nil {
		return err
	}
	if err := in.sleep(settleWait); err != nil {
		return err
	}
	if err := in.buttonDown(buttonLeft); err != nil {
		return err
	}
	for i := 1; i <= dragSteps; i++ {
		if err := in.sleep(stepGap); err != nil {
			return err
		}
		p := pixel{
			int16(math.Round(lerp(float64(from.X), float64(to.X), i, dragSteps))),
			int16(math.Round(lerp(float64(from.Y), float64(to.Y), i, dragSteps))),
		}
		if err := in.move(p); err != nil {
			return err
		}
	}
	if err := in.sleep(settleWait); err != nil {
		return err
	}
	return in.buttonUp(buttonLeft)
}

// chord holds the stroke's modifiers, presses its key and lets go in
// reverse order.
func (in *x11Input) chord(st x11Stroke) error {
	if st.round >= 0 && st.round != in.round {
		if err := in.remap(st.round); err != nil {
			return err
		}
	}
	for _, m := range st.mods {
		if err := in.keyDown(m); err != nil {
			return err
		}
	}
	if err := in.keyDown(st.code); err != nil {
		return err
	}
	if err := in.sleep(keyHold); err != nil {
		return err
	}
	if err := in.keyUp(st.code); err != nil {
		return err
	}
	for i := len(st.mods) - 1; i >= 0; i-- {
		if err := in.keyUp(st.mods[i]); err != nil {
			return err
		}
	}
	return nil
}
