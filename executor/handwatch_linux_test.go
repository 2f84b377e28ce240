package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/internal/testrig/handtest"
	"github.com/reins-app/reins/vocab"
)

// The watch on the person's hand against the executor's own input and the
// test desktop's windows; the watch's own tests are in package hand.

func TestHandWatchCountsMotionOnlyBeyondAFewPixels(t *testing.T) {
	d := startDisplay(t, 1)
	p := handtest.StandIn(t, d.srv.Display)
	must(t, p.MoveTo(300, 200))
	w := handtest.StartWatch(t, hand.Start, hand.Options{Display: d.srv.Display})
	// A nudge, and back and forth, a pixel at a time (so that the
	// server's pointer acceleration keeps to the pixel): the pointer
	// never goes 4 pixels from where it was.
	for _, m := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, 0}, {-1, -1}, {-1, 0}, {-1, -1}, {1, 0}, {-1, 0}} {
		must(t, p.MoveBy(m[0], m[1]))
	}
	r := newWitness(t, d)
	if x, y := r.pointer(); x != 300 || y != 200 {
		t.Fatalf("the pointer is at (%d, %d), not back at (300, 200)", x, y)
	}
	handtest.WantNoHand(t, w)
	must(t, p.MoveBy(3, 0))
	handtest.WantNoHand(t, w)
	must(t, p.MoveBy(1, 1)) // (4, 1) from the start: 4.1 pixels
	handtest.WantHand(t, w, hand.ErrPersonsHand, hand.Motion, p.Mouse)
}

func TestHandWatchIgnoresReinsOwnInput(t *testing.T) {
	d := startDisplay(t, 1)
	w := handtest.StartWatch(t, hand.Start, hand.Options{Display: d.srv.Display})

	// Through the executor's X11 backend: clicks, typing (with a
	// character the keyboard lacks, so a key code is lent), a drag and
	// the wheel.
	r := newX11Rig(t, d)
	r.w.app("Witness", 100, 100, 600, 400)
	for _, act := range []vocab.Act{
		{Kind: vocab.Click},
		{Kind: vocab.DoubleClick},
		{Kind: vocab.RightClick},
		{Kind: vocab.Type, Text: "Reins types this, ü and all, " + strings.Repeat("x", 40)},
		{Kind: vocab.Scroll, DY: 3},
		{Kind: vocab.Hover},
	} {
		if _, err := r.fire(t, act, 300, 250); err != nil {
			t.Fatalf("%s: %v", act.Kind, err)
		}
	}
	drag := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 200, Y: 200, X2: 500, Y2: 400, Scale: 1})
	must(t, r.ex.Fire(context.Background(), drag))

	// And plain XTEST, as any other program sends it: 2,000 keys, 1,000
	// moves, clicks and wheel notches.
	c, err := xgb.NewConnDisplay(d.srv.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must(t, xtest.Init(c))
	root := xproto.Setup(c).DefaultScreen(c).Root
	code := handtest.KeycodeOf(t, d.srv.Display, 'x')
	for range 1000 {
		xtest.FakeInput(c, xproto.KeyPress, code, 0, root, 0, 0, 0)
		xtest.FakeInput(c, xproto.KeyRelease, code, 0, root, 0, 0, 0)
	}
	for i := range 1000 {
		xtest.FakeInput(c, xproto.MotionNotify, 0, 0, root, int16(i%1200), int16(i%700), 0)
	}
	for _, b := range []byte{1, 3, 4, 5, 6, 7, 1} {
		xtest.FakeInput(c, xproto.ButtonPress, b, 0, root, 0, 0, 0)
		xtest.FakeInput(c, xproto.ButtonRelease, b, 0, root, 0, 0, 0)
	}
	for range 1000 {
		xtest.FakeInput(c, xproto.KeyPress, code, 0, root, 0, 0, 0)
		xtest.FakeInput(c, xproto.KeyRelease, code, 0, root, 0, 0, 0)
	}
	if _, err := xproto.GetInputFocus(c).Reply(); err != nil {
		t.Fatal(err)
	}
	handtest.WantNoHand(t, w)

	// The presses were seen, and known for synthetic.
	last, ok, err := w.LastPress(context.Background())
	if err != nil || !ok || last.Person || last.Placed {
		t.Errorf("LastPress = %+v, %v, %v; want a synthetic press, not placed", last, ok, err)
	}
}

// The stand-in's input is input like any other to the windows it lands in.
func TestStandInClicksAndTypesInWindows(t *testing.T) {
	d := startDisplay(t, 1)
	r := newWitness(t, d)
	win := r.app("Witness", 100, 100, 400, 300)
	p := handtest.StandIn(t, d.srv.Display)
	r.take()
	must(t, p.MoveTo(250, 180))
	must(t, p.Press(1))
	must(t, p.Release(1))
	must(t, p.Key("q"))
	var got []string
	for _, e := range r.take() {
		switch e.kind {
		case "press", "release":
			if e.window == win && e.x == 150 && e.y == 80 && e.detail == 1 {
				got = append(got, e.kind)
			}
		case "key":
			if e.sym == 'q' {
				got = append(got, "q")
			}
		}
	}
	if strings.Join(got, " ") != "press release q" {
		t.Errorf("the window saw %q, want a left click at (150, 80) and the key q", got)
	}
}
