package hand

import (
	"context"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/internal/testrig/handtest"
)

// syntheticPresser presses keys and buttons through plain XTEST, as
// xdotool, another Reins or any automation tool does.
type syntheticPresser struct {
	c    *xgb.Conn
	root xproto.Window
}

func newSyntheticPresser(t *testing.T, display string) *syntheticPresser {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	must(t, xtest.Init(c))
	return &syntheticPresser{c: c, root: xproto.Setup(c).DefaultScreen(c).Root}
}

func (s *syntheticPresser) click(t *testing.T) {
	t.Helper()
	must(t, xtest.FakeInputChecked(s.c, xproto.ButtonPress, 1, 0, s.root, 0, 0, 0).Check())
	must(t, xtest.FakeInputChecked(s.c, xproto.ButtonRelease, 1, 0, s.root, 0, 0, 0).Check())
}

func (s *syntheticPresser) key(t *testing.T) {
	t.Helper()
	const space = 65 // on Xvfb's default keymap
	must(t, xtest.FakeInputChecked(s.c, xproto.KeyPress, space, 0, s.root, 0, 0, 0).Check())
	must(t, xtest.FakeInputChecked(s.c, xproto.KeyRelease, space, 0, s.root, 0, 0, 0).Check())
}

func lastPress(t *testing.T, w *Watch) Press {
	t.Helper()
	p, ok, err := w.LastPress(context.Background())
	if err != nil || !ok {
		t.Fatalf("LastPress = %+v, %v, %v; want a press", p, ok, err)
	}
	return p
}

// A watch of presses, for a window that allows, keeps the last press with
// its kind and whose it was, never trips, and has the listener read no
// more than it needs: no motion, and keys only when it counts them.
func TestHandWatchOfPressesTellsWhosePressItWas(t *testing.T) {
	d := startDisplay(t)
	p := handtest.StandIn(t, d.srv.Display)
	syn := newSyntheticPresser(t, d.srv.Display)
	ctx := context.Background()
	l, err := NewListener(ctx, Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	buttons, err := l.WatchPresses(ctx, PressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const keys, motion = 1 << xiRawKeyPress, 1 << xiRawMotion
	if m := selected(t, l); m&(1<<xiRawButtonPress) == 0 || m&(keys|motion) != 0 {
		t.Fatalf("a watch of button presses has the listener select %#x; want button presses, and no keys or motion", m)
	}
	must(t, p.MoveTo(200, 150))
	must(t, p.Press(1))
	must(t, p.Release(1))
	if got := lastPress(t, buttons); got.Kind != Button || !got.Person || !got.Placed || got.X != 200 || got.Y != 150 {
		t.Fatalf("the person's click: %+v; want their button, placed at (200, 150)", got)
	}
	must(t, p.Key("a"))
	if got := lastPress(t, buttons); got.Kind != Button || !got.Person {
		t.Fatalf("after a key, a watch of buttons still has %+v; want the person's button", got)
	}
	syn.click(t)
	if got := lastPress(t, buttons); got.Kind != Button || got.Person || got.Placed {
		t.Fatalf("after a synthetic click: %+v; want it synthetic, not placed", got)
	}
	select {
	case <-buttons.Tripped():
		t.Fatalf("a watch of presses tripped on the person's hand: %v", buttons.Err())
	default:
	}

	withKeys, err := l.WatchPresses(ctx, PressOptions{Keys: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := selected(t, l); m&keys == 0 || m&motion != 0 {
		t.Fatalf("with a watch that counts keys, the listener selects %#x; want keys, and no motion", m)
	}
	must(t, p.Key(" "))
	if got := lastPress(t, withKeys); got.Kind != Key || !got.Person || got.Placed || got.Device != p.Keyboard {
		t.Fatalf("the person's key: %+v; want a key of theirs from device %d, not placed", got, p.Keyboard)
	}
	syn.key(t)
	if got := lastPress(t, withKeys); got.Kind != Key || got.Person {
		t.Fatalf("a synthetic key: %+v; want a synthetic key", got)
	}
	must(t, p.Press(1))
	must(t, p.Release(1))
	if got := lastPress(t, withKeys); got.Kind != Button || !got.Person {
		t.Fatalf("then the person's click: %+v", got)
	}

	// An act's watch, on beside them, still trips on the person's hand
	// and counts only buttons as presses.
	act, err := l.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m := selected(t, l); m&motion == 0 {
		t.Fatalf("with an act's watch on, the listener selects %#x; want motion too", m)
	}
	syn.key(t)
	if _, ok, _ := act.LastPress(ctx); ok {
		t.Error("an act's watch counts a key as a press")
	}
	must(t, p.Key("a"))
	handtest.WantHand(t, act, ErrPersonsHand, Key, p.Keyboard)
	must(t, act.Close())
	must(t, withKeys.Close())
	if m := selected(t, l); m&(keys|motion) != 0 {
		t.Fatalf("with only the watch of buttons left, the listener selects %#x", m)
	}
	must(t, buttons.Close())
	if m := selected(t, l); m != 0 {
		t.Fatalf("with no watch on, the listener selects %#x", m)
	}
}
