package hand

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/internal/testrig/handtest"
)

func TestHandWatchSeesThePersonsHand(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	must(t, p.MoveTo(300, 200))
	for _, tc := range []struct {
		name   string
		do     func() error
		kind   Kind
		device int
	}{
		{"a key", func() error { return p.Key("a") }, Key, p.Keyboard},
		{"a key with a modifier", func() error { return p.Key("Return") }, Key, p.Keyboard},
		{"a left click", func() error { return p.Press(1) }, Button, p.Mouse},
		{"a right click", func() error { return p.Press(3) }, Button, p.Mouse},
		{"a move", func() error { return p.MoveBy(30, 0) }, Motion, p.Mouse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
			handtest.WantNoHand(t, w)
			must(t, tc.do())
			handtest.WantHand(t, w, ErrPersonsHand, tc.kind, tc.device)
			// What the person holds, they let go of; the next subtest's
			// watch does not count a release.
			if tc.kind == Button {
				must(t, p.Release(3))
				must(t, p.Release(1))
			}
		})
	}
}

func TestHandWatchIgnoresTheReleaseOfWhatWasHeldBefore(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	must(t, p.MoveTo(300, 200))
	// The Enter and the click that approved the act are still down when
	// it begins to fire.
	must(t, p.KeyDown("Return"))
	must(t, p.Press(1))
	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	must(t, p.KeyUp("Return"))
	must(t, p.Release(1))
	handtest.WantNoHand(t, w)
	// A key pressed afresh is the person's hand.
	must(t, p.Key("Return"))
	handtest.WantHand(t, w, ErrPersonsHand, Key, p.Keyboard)
}

func TestHandWatchSeesPressesDuringAnotherClientsGrab(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	must(t, p.MoveTo(300, 200))
	// Another client grabs the pointer and the keyboard, as a browser
	// does while a button is down or a menu is open.
	c, err := xgb.NewConnDisplay(d.srv.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := xproto.Setup(c).DefaultScreen(c).Root
	g, err := xproto.GrabPointer(c, false, root, xproto.EventMaskButtonPress|xproto.EventMaskButtonRelease,
		xproto.GrabModeAsync, xproto.GrabModeAsync, 0, 0, xproto.TimeCurrentTime).Reply()
	if err != nil || g.Status != xproto.GrabStatusSuccess {
		t.Fatalf("GrabPointer: %v, %+v", err, g)
	}
	k, err := xproto.GrabKeyboard(c, false, root, xproto.TimeCurrentTime, xproto.GrabModeAsync, xproto.GrabModeAsync).Reply()
	if err != nil || k.Status != xproto.GrabStatusSuccess {
		t.Fatalf("GrabKeyboard: %v, %+v", err, k)
	}

	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	must(t, p.Press(1))
	handtest.WantHand(t, w, ErrPersonsHand, Button, p.Mouse)
	must(t, p.Release(1))

	w = handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	must(t, p.Key("a"))
	handtest.WantHand(t, w, ErrPersonsHand, Key, p.Keyboard)
}

func TestHandWatchTellsWhereThePersonPressed(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	ctx := context.Background()
	if _, ok, err := w.LastPress(ctx); ok || err != nil {
		t.Fatalf("LastPress before any press: %v, %v", ok, err)
	}
	must(t, p.MoveTo(420, 310))
	must(t, p.Press(1))
	must(t, p.Release(1))
	last, ok, err := w.LastPress(ctx)
	if err != nil || !ok || !last.Person || !last.Placed || last.X != 420 || last.Y != 310 || last.Device != p.Mouse {
		t.Fatalf("LastPress = %+v, %v, %v; want the person's press at (420, 310) from device %d", last, ok, err, p.Mouse)
	}

	// A synthetic press after the person's makes the last press synthetic.
	c, err := xgb.NewConnDisplay(d.srv.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must(t, xtest.Init(c))
	root := xproto.Setup(c).DefaultScreen(c).Root
	must(t, xtest.FakeInputChecked(c, xproto.ButtonPress, 1, 0, root, 0, 0, 0).Check())
	must(t, xtest.FakeInputChecked(c, xproto.ButtonRelease, 1, 0, root, 0, 0, 0).Check())
	after, ok, err := w.LastPress(ctx)
	if err != nil || !ok || after.Person || !after.At.After(last.At) {
		t.Fatalf("LastPress after a synthetic click = %+v, %v, %v; want it synthetic, and later", after, ok, err)
	}
}

func TestHandWatchFollowsNewDevices(t *testing.T) {
	d := startDisplay(t)
	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})

	// A second master pointer and keyboard, and their XTEST devices, come
	// while the watch is on; a client's XTEST input then comes from the
	// new XTEST devices.
	c, err := xgb.NewConnDisplay(d.srv.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must(t, xtest.Init(c))
	op := xiOpcode(t, c)
	xiRequest(t, c, op, 47, true, []byte{2, 0, 2, 0}) // XIQueryVersion 2.2
	name := "Second"
	add := make([]byte, 4+8+len(name)+pad4(len(name)))
	add[0] = 1 // one change
	le.PutUint16(add[4:], 1)
	le.PutUint16(add[6:], uint16((8+len(name)+pad4(len(name)))/4))
	le.PutUint16(add[8:], uint16(len(name)))
	add[10], add[11] = 1, 1 // send core events; enable
	copy(add[12:], name)
	xiRequest(t, c, op, 43, false, add) // XIChangeHierarchy: add a master
	var master uint16
	devs := xiRequest(t, c, op, 48, true, []byte{0, 0, 0, 0}) // XIQueryDevice, all
	for id, n := range deviceNames(devs) {
		if n == "Second pointer" {
			master = id
		}
	}
	if master == 0 {
		t.Fatal("the second master pointer was not made")
	}
	set := make([]byte, 8)
	le.PutUint16(set[4:], master)
	xiRequest(t, c, op, 44, false, set) // XISetClientPointer: this client's

	root := xproto.Setup(c).DefaultScreen(c).Root
	code := handtest.KeycodeOf(t, d.srv.Display, 'x')
	for range 50 {
		must(t, xtest.FakeInputChecked(c, xproto.KeyPress, code, 0, root, 0, 0, 0).Check())
		must(t, xtest.FakeInputChecked(c, xproto.KeyRelease, code, 0, root, 0, 0, 0).Check())
		must(t, xtest.FakeInputChecked(c, xproto.ButtonPress, 1, 0, root, 0, 0, 0).Check())
		must(t, xtest.FakeInputChecked(c, xproto.ButtonRelease, 1, 0, root, 0, 0, 0).Check())
	}
	handtest.WantNoHand(t, w)
	last, ok, err := w.LastPress(context.Background())
	if err != nil || !ok || last.Person {
		t.Fatalf("LastPress = %+v, %v, %v; want a synthetic press", last, ok, err)
	}
	if got := w.src.(*ownListener).handSource.(*xiSource).x.devices[uint16(last.Device)]; got == nil || !got.synthetic {
		t.Errorf("the press came from device %d, which the watch does not know for an XTEST device", last.Device)
	}

	p := handtest.StandIn(t, d.srv.Display)
	must(t, p.Key("a"))
	handtest.WantHand(t, w, ErrPersonsHand, Key, p.Keyboard)
}

func TestHandWatchTripsWhenTheDisplayGoes(t *testing.T) {
	d := startDisplay(t)
	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	must(t, d.srv.Close())
	<-w.Tripped()
	if err := w.Err(); !errors.Is(err, ErrNoWatch) || errors.Is(err, ErrPersonsHand) {
		t.Errorf("Err = %v, want the watch lost", err)
	}
	if err := w.Check(context.Background()); !errors.Is(err, ErrNoWatch) {
		t.Errorf("Check = %v, want the watch lost", err)
	}
	if _, _, err := w.LastPress(context.Background()); !errors.Is(err, ErrNoWatch) {
		t.Errorf("LastPress = %v, want the watch lost", err)
	}
}

func TestHandWatchClosed(t *testing.T) {
	d := startDisplay(t)
	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	must(t, w.Close())
	must(t, w.Close())
	if err := w.Check(context.Background()); !errors.Is(err, ErrNoWatch) {
		t.Errorf("Check after Close = %v, want ErrNoWatch", err)
	}
}

func TestWatchHandWithoutADisplay(t *testing.T) {
	for _, display := range []string{":" + "65000", "nonsense"} {
		if w, err := Start(context.Background(), Options{Display: display}); !errors.Is(err, ErrNoWatch) {
			if w != nil {
				w.Close()
			}
			t.Errorf("Start(%q) = %v, want ErrNoWatch", display, err)
		}
	}
}

func xiOpcode(t testing.TB, c *xgb.Conn) byte {
	t.Helper()
	const name = "XInputExtension"
	r, err := xproto.QueryExtension(c, uint16(len(name)), name).Reply()
	if err != nil || !r.Present {
		t.Fatalf("XInputExtension: %v", err)
	}
	return r.MajorOpcode
}

// xiRequest sends an XInput request whose body (after the 4-byte header)
// is body, and returns its reply, or checks it.
func xiRequest(t *testing.T, c *xgb.Conn, op, minor byte, reply bool, body []byte) []byte {
	t.Helper()
	b := append([]byte{op, minor, 0, 0}, body...)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(b)/4))
	ck := c.NewCookie(true, reply)
	c.NewRequest(b, ck)
	if !reply {
		must(t, ck.Check())
		return nil
	}
	r, err := ck.Reply()
	if err != nil {
		t.Fatalf("XInput request %d: %v", minor, err)
	}
	return r
}

// deviceNames reads the names from an XIQueryDevice reply.
func deviceNames(r []byte) map[uint16]string {
	out := map[uint16]string{}
	off := 32
	for range int(le.Uint16(r[8:])) {
		id, classes, n := le.Uint16(r[off:]), int(le.Uint16(r[off+6:])), int(le.Uint16(r[off+8:]))
		out[id] = string(r[off+12 : off+12+n])
		off += 12 + n + pad4(n)
		for range classes {
			off += 4 * int(le.Uint16(r[off+2:]))
		}
	}
	return out
}

// selected is the listener's raw input selection on the root window, as
// the server holds it.
func selected(t *testing.T, l *Listener) uint32 {
	t.Helper()
	x := l.impl.(*xiListener)
	r, err := x.wire.call(context.Background(), x.req(60, 8, func(b []byte) { le.PutUint32(b[4:], x.wire.screen.root) }))
	if err != nil {
		t.Fatalf("XIGetSelectedEvents: %v", err)
	}
	var mask uint32
	off := 32
	for range int(le.Uint16(r[8:])) {
		if n := int(le.Uint16(r[off+2:])); n > 0 {
			mask |= le.Uint32(r[off+4:])
		}
		off += 4 + 4*int(le.Uint16(r[off+2:]))
	}
	return mask &^ (1 << xiHierarchyChanged)
}

func TestHandListenerReadsInputOnlyWhileAWatchIsOn(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	ctx := context.Background()
	l, err := NewListener(ctx, Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := selected(t, l); m != 0 {
		t.Fatalf("with no watch on, the listener selects input %#x", m)
	}

	a, err := l.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m := selected(t, l); m == 0 {
		t.Fatal("with a watch on, the listener selects no input")
	}
	must(t, p.Key("a"))
	handtest.WantHand(t, a, ErrPersonsHand, Key, p.Keyboard)

	// A watch started after an input does not see it, though another
	// watch did; both see what comes after.
	b, err := l.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	handtest.WantNoHand(t, b)
	must(t, p.Press(1))
	must(t, p.Release(1))
	handtest.WantHand(t, b, ErrPersonsHand, Button, p.Mouse)
	if last, ok, err := a.LastPress(ctx); err != nil || !ok || !last.Person {
		t.Errorf("the first watch's LastPress = %+v, %v, %v; want the person's", last, ok, err)
	}

	must(t, a.Close())
	if m := selected(t, l); m == 0 {
		t.Fatal("with one watch of two closed, the listener selects no input")
	}
	must(t, b.Close())
	if m := selected(t, l); m != 0 {
		t.Fatalf("with every watch closed, the listener selects input %#x", m)
	}

	// And it starts again.
	c, err := l.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	handtest.WantNoHand(t, c)
	must(t, p.MoveBy(10, 0))
	handtest.WantHand(t, c, ErrPersonsHand, Motion, p.Mouse)

	// Closing the listener trips the watches on.
	e, err := l.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	must(t, l.Close())
	<-e.Tripped()
	if err := e.Check(ctx); !errors.Is(err, ErrNoWatch) {
		t.Errorf("a watch's Check after its listener closed = %v, want ErrNoWatch", err)
	}
	if _, err := l.Watch(ctx); !errors.Is(err, ErrNoWatch) {
		t.Errorf("Watch on a closed listener = %v, want ErrNoWatch", err)
	}
}

func TestHandWatchContextEndsWhenThePersonReachesIn(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	w := handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	ctx, cancel := w.Context(context.Background())
	defer cancel()
	must(t, p.Key("a"))
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, ErrPersonsHand) {
		t.Errorf("the act's context ended with %v, want the person's hand", cause)
	}

	// An act that ends first ends its context, and leaves nothing running.
	w = handtest.StartWatch(t, Start, Options{Display: d.srv.Display})
	ctx, cancel = w.Context(context.Background())
	cancel()
	if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
		t.Errorf("a cancelled act's context ended with %v", cause)
	}
}
