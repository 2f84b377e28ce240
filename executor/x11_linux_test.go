package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

func TestX11Contract(t *testing.T) {
	for _, scale := range []float64{1, 2} {
		t.Run(fmt.Sprintf("scale %g", scale), func(t *testing.T) {
			d := startDisplay(t, scale)
			runContract(t, func(t *testing.T) rig { return newX11Rig(t, d) })
		})
	}
}

// fire fires act at (x, y) DIP with the rig's scale and returns what the
// witness saw.
func (r *x11Rig) fire(t *testing.T, act vocab.Act, x, y float64) ([]xev, error) {
	t.Helper()
	err := r.ex.Fire(context.Background(), audit.TestOnlyTicket(act, audit.Landing{X: x, Y: y, Scale: r.d.scale}))
	return r.w.take(), err
}

func only(evs []xev, kinds ...string) []xev {
	var out []xev
	for _, e := range evs {
		for _, k := range kinds {
			if e.kind == k {
				out = append(out, e)
			}
		}
	}
	return out
}

func TestX11ClickLandsOnTheExactDevicePixel(t *testing.T) {
	for _, tc := range []struct {
		scale        float64
		x, y         float64 // DIP
		wantX, wantY int16   // device pixels
	}{
		{1, 150.3, 120.6, 150, 121},
		{1, 399.5, 299.49, 400, 299},
		{2, 150.3, 120.6, 301, 241},
		{2, 399.75, 299.2, 800, 598},
	} {
		t.Run(fmt.Sprintf("(%g, %g) at scale %g", tc.x, tc.y, tc.scale), func(t *testing.T) {
			r := newX11Rig(t, startDisplay(t, tc.scale))
			// The window starts at device pixel (100, 80) whatever the scale.
			win := r.w.app("Witness", 100, 80, 800, 600)
			r.w.take()
			evs, err := r.fire(t, vocab.Act{Kind: vocab.Click}, tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			clicks := only(evs, "press", "release")
			if len(clicks) != 2 {
				t.Fatalf("got %d button events, want a press and a release: %+v", len(clicks), clicks)
			}
			for _, e := range clicks {
				if e.window != win || e.detail != buttonLeft || e.rootX != tc.wantX || e.rootY != tc.wantY ||
					e.x != tc.wantX-100 || e.y != tc.wantY-80 {
					t.Errorf("%s: button %d at root (%d, %d), window (%d, %d) of %#x; want button 1 at root (%d, %d), window (%d, %d) of %#x",
						e.kind, e.detail, e.rootX, e.rootY, e.x, e.y, e.window, tc.wantX, tc.wantY, tc.wantX-100, tc.wantY-80, win)
				}
			}
		})
	}
}

func TestX11Clicks(t *testing.T) {
	d := startDisplay(t, 1)
	for _, tc := range []struct {
		kind    vocab.ActKind
		buttons []byte
	}{
		{vocab.Click, []byte{1}},
		{vocab.RightClick, []byte{3}},
		{vocab.DoubleClick, []byte{1, 1}},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			r := newX11Rig(t, d)
			r.w.app("Witness", 100, 100, 300, 200)
			r.w.warp(7, 9)
			r.w.take()
			evs, err := r.fire(t, vocab.Act{Kind: tc.kind}, 200, 150)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			for _, e := range only(evs, "press") {
				got = append(got, e.detail)
				if e.rootX != 200 || e.rootY != 150 {
					t.Errorf("press at (%d, %d), want (200, 150)", e.rootX, e.rootY)
				}
			}
			if !reflect.DeepEqual(got, tc.buttons) {
				t.Errorf("pressed buttons %v, want %v", got, tc.buttons)
			}
			if err := balanced(evs); err != nil {
				t.Error(err)
			}
			if x, y := r.w.pointer(); x != 7 || y != 9 {
				t.Errorf("pointer left at (%d, %d), want it back at (7, 9)", x, y)
			}
		})
	}
}

func TestX11HoverLeavesThePointerThere(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	r.w.take()
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Hover}, 250, 160)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(only(evs, "press", "release", "key", "keyup")); n != 0 {
		t.Errorf("hover pressed %d buttons or keys", n)
	}
	if x, y := r.w.pointer(); x != 250 || y != 160 {
		t.Errorf("pointer at (%d, %d), want (250, 160)", x, y)
	}
}

func TestX11TypeSpellsTheText(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	win := r.w.app("Witness", 100, 100, 300, 200)
	before, err := r.ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	r.w.take()

	const text = "Hello, World! 1+1=2 ü"
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: text}, 200, 150)
	if err != nil {
		t.Fatal(err)
	}
	if got := typed(evs); got != text {
		t.Errorf("typed %q, want %q", got, text)
	}
	for _, e := range only(evs, "key") {
		if e.window != win {
			t.Errorf("key %d went to %#x, not the window clicked (%#x)", e.detail, e.window, win)
		}
	}
	if err := balanced(evs); err != nil {
		t.Error(err)
	}
	if n := len(only(evs, "press")); n != 1 {
		t.Errorf("%d clicks before typing, want 1", n)
	}
	after, err := r.ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before.syms, after.syms) {
		t.Error("the keyboard mapping was not restored after typing")
	}
}

func TestX11TypeWithCapsLockOn(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	must(t, xtest.Init(r.w.conn))
	capsLock := func() {
		for _, typ := range []byte{xproto.KeyPress, xproto.KeyRelease} {
			must(t, xtest.FakeInputChecked(r.w.conn, typ, 66, 0, r.w.root, 0, 0, 0).Check())
		}
	}
	capsLock()
	defer capsLock()
	r.w.take()
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: "Hello World"}, 200, 150)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range only(evs, "key") {
		if e.state&xproto.ModMaskLock == 0 {
			t.Fatalf("key %d arrived without Caps Lock: the test did not turn it on", e.detail)
		}
	}
	if got := typed(evs); got != "Hello World" {
		t.Errorf("typed %q with Caps Lock on, want %q", got, "Hello World")
	}
}

func TestX11TypeClearsAndSubmits(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	r.w.take()
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: "a b\r\nc", Clear: true, Submit: true}, 200, 150)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := typed(evs), "C-a<BackSpace>a b<Return>c<Return>"; got != want {
		t.Errorf("typed %q, want %q", got, want)
	}
}

func TestX11TypeAtTheOriginTypesWithoutClicking(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	r.w.warp(200, 150) // focus follows the pointer without a window manager
	r.w.take()
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: "ok"}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(only(evs, "press", "motion")); n != 0 {
		t.Errorf("%d pointer events, want none", n)
	}
	if got := typed(evs); got != "ok" {
		t.Errorf("typed %q, want %q", got, "ok")
	}
}

func TestX11TypeManyMissingCharactersBorrowsKeycodesInRounds(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	km, err := r.ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	spares := len(km.spares())
	// More distinct characters than spare keycodes, none on a US keyboard.
	var b strings.Builder
	for i := range spares + 3 {
		b.WriteRune(rune(0x4e00 + i))
	}
	text := b.String()
	r.w.take()
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: text}, 200, 150)
	if err != nil {
		t.Fatal(err)
	}
	if got := typed(evs); got != text {
		t.Errorf("typed %q, want %q", got, text)
	}
	after, err := r.ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(km.syms, after.syms) {
		t.Error("the keyboard mapping was not restored after typing")
	}
	t.Logf("%d spare keycodes", spares)
}

func TestX11Chords(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	r.w.warp(200, 150)
	for _, tc := range []struct{ keys, want string }{
		{"Control+Shift+K", "C-S-k"},
		{"Control+k", "C-k"},
		{"Meta+A", "M-a"},
		{"Control+=", "C-="},
		{"Control+minus", "C--"},
		{"Control++", "C-S-+"},
		{"Enter", "<Return>"},
		{"Tab", "<Tab>"},
		{"Escape", "<Escape>"},
		{"ArrowDown", "<Down>"},
		{"Backspace", "<BackSpace>"},
		{"F5", "<F5>"},
		{"Shift+A", "A"},
		{"ü", "ü"},
	} {
		r.w.take()
		evs, err := r.fire(t, vocab.Act{Kind: vocab.Key, Keys: tc.keys}, 0, 0)
		if err != nil {
			t.Errorf("%s: %v", tc.keys, err)
			continue
		}
		if got := typed(evs); got != tc.want {
			t.Errorf("%s: typed %q, want %q", tc.keys, got, tc.want)
		}
		if err := balanced(evs); err != nil {
			t.Errorf("%s: %v", tc.keys, err)
		}
		if n := len(only(evs, "motion", "press")); n != 0 {
			t.Errorf("%s: %d pointer events, want none", tc.keys, n)
		}
	}
}

func TestX11ChordModifiersArriveOnTheKey(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	r.w.warp(200, 150)
	r.w.take()
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Key, Keys: "Control+Shift+K"}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var k *xev
	for i, e := range evs {
		if e.kind == "key" && (e.sym == 'k' || e.sym == 'K') {
			k = &evs[i]
		}
	}
	if k == nil {
		t.Fatalf("no K pressed: %+v", evs)
	}
	if want := uint16(xproto.ModMaskControl | xproto.ModMaskShift); k.state&want != want {
		t.Errorf("K pressed with state %#x, want Control and Shift (%#x)", k.state, want)
	}
}

func TestX11Scroll(t *testing.T) {
	d := startDisplay(t, 1)
	for _, tc := range []struct {
		dx, dy  int
		buttons []byte
	}{
		{0, 2, []byte{5, 5}},
		{0, -1, []byte{4}},
		{1, 0, []byte{7}},
		{-2, 1, []byte{5, 6, 6}},
	} {
		t.Run(fmt.Sprintf("dx %d dy %d", tc.dx, tc.dy), func(t *testing.T) {
			r := newX11Rig(t, d)
			r.w.app("Witness", 100, 100, 300, 200)
			r.w.take()
			evs, err := r.fire(t, vocab.Act{Kind: vocab.Scroll, DX: tc.dx, DY: tc.dy}, 200, 150)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			for _, e := range only(evs, "press") {
				got = append(got, e.detail)
				if e.rootX != 200 || e.rootY != 150 {
					t.Errorf("wheel at (%d, %d), want (200, 150)", e.rootX, e.rootY)
				}
			}
			if !reflect.DeepEqual(got, tc.buttons) {
				t.Errorf("wheel buttons %v, want %v", got, tc.buttons)
			}
		})
	}
}

func TestX11Drag(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 2))
	r.w.app("Witness", 100, 100, 1000, 600)
	r.w.warp(3, 4)
	r.w.take()
	tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 100, Y: 100, X2: 300.2, Y2: 250, Scale: 2})
	if err := r.ex.Fire(context.Background(), tk); err != nil {
		t.Fatal(err)
	}
	evs := r.w.take()
	var press, release *xev
	moves := 0
	for i, e := range evs {
		switch {
		case e.kind == "press":
			press = &evs[i]
		case e.kind == "release":
			release = &evs[i]
		case e.kind == "motion" && press != nil && release == nil:
			moves++
		}
	}
	if press == nil || release == nil {
		t.Fatalf("no press and release: %+v", evs)
	}
	if press.rootX != 200 || press.rootY != 200 || release.rootX != 600 || release.rootY != 500 {
		t.Errorf("dragged (%d, %d) → (%d, %d), want (200, 200) → (600, 500)", press.rootX, press.rootY, release.rootX, release.rootY)
	}
	if moves < 3 {
		t.Errorf("%d moves with the button down, want several", moves)
	}
	if x, y := r.w.pointer(); x != 3 || y != 4 {
		t.Errorf("pointer left at (%d, %d), want it back at (3, 4)", x, y)
	}
}

func TestX11OffScreenFiresNothing(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 2))
	r.w.take()
	for _, p := range [][2]float64{{1280, 10}, {10, 799.8}, {-0.3, 5}} {
		_, err := r.fire(t, vocab.Act{Kind: vocab.Click}, p[0], p[1])
		if !errors.Is(err, ErrOffScreen) {
			t.Errorf("click at %v = %v, want ErrOffScreen", p, err)
		}
	}
	if n := r.Fired(t); n != 0 {
		t.Errorf("%d events fired", n)
	}
}

func TestX11FrontmostFollowsInputFocusWithoutAWindowManager(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	keepass := r.w.app("KeePassXC", 500, 100, 200, 200)
	ctx := context.Background()

	// Focus follows the pointer.
	r.w.warp(200, 150)
	if app, err := r.ex.Frontmost(ctx); err != nil || app.Name != "Witness" {
		t.Errorf("Frontmost with the pointer on Witness = %+v, %v", app, err)
	}
	r.w.warp(5, 700)
	if app, err := r.ex.Frontmost(ctx); err != nil || app != desktop {
		t.Errorf("Frontmost with the pointer on the desktop = %+v, %v", app, err)
	}

	// Focus given explicitly.
	must(t, xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusPointerRoot, keepass, xproto.TimeCurrentTime).Check())
	if app, err := r.ex.Frontmost(ctx); err != nil || app.Name != "KeePassXC" {
		t.Errorf("Frontmost with focus on KeePassXC = %+v, %v", app, err)
	}
	r.w.warp(2, 2)
	r.Fired(t)
	_, err := r.fire(t, vocab.Act{Kind: vocab.Click}, 200, 150)
	if !errors.Is(err, ErrDenyListed) {
		t.Errorf("click while KeePassXC has focus = %v, want ErrDenyListed", err)
	}

	// A stale _NET_ACTIVE_WINDOW naming a destroyed window falls back to the focus.
	gone := r.w.newWindow(r.w.root, 0, 0, 10, 10, false)
	must(t, xproto.DestroyWindowChecked(r.w.conn, gone).Check())
	r.w.setActive(gone)
	if app, err := r.ex.Frontmost(ctx); err != nil || app.Name != "KeePassXC" {
		t.Errorf("Frontmost with a stale _NET_ACTIVE_WINDOW = %+v, %v", app, err)
	}
	if n := r.Fired(t); n != 0 {
		t.Errorf("%d events fired", n)
	}
}

func TestX11AppAtLooksThroughWindowManagerFrames(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	// A frame as a reparenting window manager makes: no WM_CLASS of its
	// own, a title bar, the client inside it, and an inner child.
	frame := r.w.newWindow(r.w.root, 100, 100, 300, 230, true)
	client := r.w.newWindow(frame, 0, 30, 300, 200, false)
	r.w.label(client, "Witness")
	must(t, xproto.MapWindowChecked(r.w.conn, client).Check())
	r.w.newWindow(client, 10, 10, 50, 50, true)
	want := testApp(t, "Witness")
	ctx := context.Background()
	for _, p := range [][2]float64{{200, 110}, {200, 200}, {120, 150}} {
		if got, err := r.ex.AppAt(ctx, p[0], p[1]); err != nil || got != want {
			t.Errorf("AppAt%v = %+v, %v; want %+v", p, got, err, want)
		}
	}
	must(t, xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusPointerRoot, frame, xproto.TimeCurrentTime).Check())
	if got, err := r.ex.Frontmost(ctx); err != nil || got != want {
		t.Errorf("Frontmost with focus on the frame = %+v, %v; want %+v", got, err, want)
	}
}

func TestX11Windows(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 2))
	back := r.w.app("Back", 100, 100, 400, 300)
	front := r.w.app("Front", 200, 200, 600, 400)
	r.w.newWindow(r.w.root, 0, 0, 50, 50, true) // anonymous: not listed
	r.w.setActive(front)
	ctx := context.Background()

	want := []Window{
		{ID: uint64(front), App: testApp(t, "Front"), Title: "Front — window", X: 100, Y: 100, W: 300, H: 200, Active: true},
		{ID: uint64(back), App: testApp(t, "Back"), Title: "Back — window", X: 50, Y: 50, W: 200, H: 150},
	}
	got, err := r.ex.Windows(ctx)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Windows from the tree = %+v, %v\nwant %+v", got, err, want)
	}

	// A window manager's stacking order wins over the tree's.
	v := make([]byte, 8)
	putWindows(v, front, back) // bottom to top: Back is in front
	must(t, xproto.ChangePropertyChecked(r.w.conn, xproto.PropModeReplace, r.w.root, r.w.atom("_NET_CLIENT_LIST_STACKING"), xproto.AtomWindow, 32, 2, v).Check())
	r.w.setActive(back)
	want[0].Active, want[1].Active = false, true
	want[0], want[1] = want[1], want[0]
	got, err = r.ex.Windows(ctx)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Windows from _NET_CLIENT_LIST_STACKING = %+v, %v\nwant %+v", got, err, want)
	}
}

func putWindows(b []byte, ws ...xproto.Window) {
	for i, w := range ws {
		b[4*i] = byte(w)
		b[4*i+1] = byte(w >> 8)
		b[4*i+2] = byte(w >> 16)
		b[4*i+3] = byte(w >> 24)
	}
}

// activeOnFirstKey makes id the active window, as a window manager says it,
// when the first key reaches a window of w.
func (w *witness) activeOnFirstKey(id xproto.Window) {
	var once sync.Once
	w.setOnKey(func(xev) {
		once.Do(func() {
			v := make([]byte, 4)
			putWindows(v, id)
			_ = xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, w.root, w.atom("_NET_ACTIVE_WINDOW"), xproto.AtomWindow, 32, 1, v).Check()
		})
	})
}

func TestX11TypingStopsWhenADenyListedAppComesToTheFront(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	keepass := r.w.app("KeePassXC", 500, 100, 200, 200)
	r.w.take()
	// As a window manager would when a password prompt pops up.
	r.w.activeOnFirstKey(keepass)
	text := strings.Repeat("secret ", 10)
	evs, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: text}, 200, 150)
	if !errors.Is(err, ErrDenyListed) || !strings.Contains(err.Error(), "typing stopped") {
		t.Fatalf("Fire = %v, want ErrDenyListed saying typing stopped", err)
	}
	if got := typed(evs); len(got) == 0 || len(got) >= len(text) {
		t.Errorf("typed %q before stopping; want some but not all of the text", got)
	}
	if err := balanced(evs); err != nil {
		t.Error(err)
	}
}

// Desktop typing into whatever has the focus stops when a web browser comes
// to the front: its keys would go into a tab the person may not have shared.
func TestX11DesktopTypingStopsWhenABrowserComesToTheFront(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	witness := r.w.app("Witness", 100, 100, 300, 200)
	browser := r.w.app("Chromium", 500, 100, 200, 200)
	r.w.warp(200, 150) // the keys go to the window under the pointer
	r.w.take()
	text := strings.Repeat("words ", 10)
	// Into the focus, and by a point, which is clicked first.
	for _, p := range []audit.Landing{{Scale: r.d.scale}, {X: 200, Y: 150, Scale: r.d.scale}} {
		r.w.setActive(witness)
		r.w.activeOnFirstKey(browser)
		err := r.ex.Fire(context.Background(), audit.TestOnlyDesktopTicket(vocab.Act{Kind: vocab.Type, Text: text}, p))
		evs := r.w.take()
		if !errors.Is(err, ErrBrowser) || !strings.Contains(err.Error(), "typing stopped") {
			t.Fatalf("Fire at (%g, %g) = %v, want ErrBrowser saying typing stopped", p.X, p.Y, err)
		}
		if got := typed(evs); len(got) == 0 || len(got) >= len(text) {
			t.Errorf("typed %q at (%g, %g) before stopping; want some but not all of the text", got, p.X, p.Y)
		}
		if err := balanced(evs); err != nil {
			t.Error(err)
		}
	}
}

func TestX11CancelLeavesNothingHeldAndRestoresTheKeyboard(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	r.w.app("Witness", 100, 100, 300, 200)
	before, err := r.ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	r.w.take()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.w.setOnKey(func(e xev) {
		if e.sym == 'ß' {
			cancel()
		}
	})
	tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Type, Text: "Straße ÄÖÜ ß and much more text"}, audit.Landing{X: 200, Y: 150, Scale: 1})
	err = r.ex.Fire(ctx, tk)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fire = %v, want context.Canceled", err)
	}
	evs := r.w.take()
	if err := balanced(evs); err != nil {
		t.Error(err)
	}
	after, err := r.ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before.syms, after.syms) {
		t.Error("the keyboard mapping was not restored after a cancelled act")
	}
}

func TestX11CloseStopsAnActInFlightWithNothingHeld(t *testing.T) {
	d := startDisplay(t, 1)
	r := newX11Rig(t, d)
	r.w.app("Witness", 100, 100, 300, 200)
	r.w.take()
	closed := make(chan error, 1)
	var once sync.Once
	r.w.setOnKey(func(xev) {
		once.Do(func() { go func() { closed <- r.ex.Close() }() })
	})
	_, err := r.fire(t, vocab.Act{Kind: vocab.Type, Text: strings.Repeat("Ünïcödé ", 10)}, 200, 150)
	if !errors.Is(err, errClosed) {
		t.Errorf("Fire when closed half-way = %v, want errClosed", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	evs := r.w.take()
	if err := balanced(evs); err != nil {
		t.Error(err)
	}
	// A fresh executor sees the keyboard as it was: the keycodes lent to
	// Ü, ï, ö and é were given back before the connection closed.
	ex, err := NewX11(X11Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	km, err := ex.keymap()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range "Üïöé" {
		if _, _, ok := km.find(runeKeysym(r)); ok {
			t.Errorf("%q is still bound to a keycode", r)
		}
	}
}

func TestX11CloseEndsTheExecutor(t *testing.T) {
	d := startDisplay(t, 1)
	ex, err := NewX11(X11Options{Display: d.srv.Display})
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ex.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: 1, Y: 1})
	if err := ex.Fire(context.Background(), tk); err == nil {
		t.Error("Fire after Close succeeded")
	}
	if _, err := ex.Frontmost(context.Background()); err == nil {
		t.Error("Frontmost after Close succeeded")
	}
}

func TestNewRefusesWhatItCannotDrive(t *testing.T) {
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	t.Setenv("DISPLAY", ":0")
	if _, err := New(Options{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "X11") {
		t.Errorf("New in a Wayland session = %v, want ErrUnsupported saying Reins needs X11", err)
	}
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "x11")
	t.Setenv("DISPLAY", "")
	if _, err := New(Options{}); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("New without DISPLAY = %v, want ErrNoDisplay", err)
	}
	if _, err := NewX11(X11Options{Display: ":999"}); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("NewX11 on a display nobody serves = %v, want ErrNoDisplay", err)
	}
}

func TestNewDrivesAnXServer(t *testing.T) {
	d := startDisplay(t, 1)
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "x11")
	t.Setenv("DISPLAY", d.srv.Display)
	ex, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if _, ok := ex.(*X11); !ok {
		t.Errorf("New returned a %T, want *X11", ex)
	}
	if app, err := ex.Frontmost(context.Background()); err != nil || app != desktop {
		t.Errorf("Frontmost on an empty display = %+v, %v", app, err)
	}
}

func TestX11KeysymsCoverEveryNamedKey(t *testing.T) {
	for n := keyEnter; n <= keyF24; n++ {
		if _, ok := x11NamedSym(n); !ok {
			t.Errorf("named key %d has no keysym", n)
		}
	}
}

func TestX11TrustsAPidOnlyFromThisMachine(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		machine string
		local   bool
	}{
		{host, true},
		{strings.ToUpper(host) + ".example.org", true},
		{"elsewhere.example.org", false},
	} {
		win := r.w.app(fmt.Sprintf("App%d", i), 100+100*i, 100, 50, 50)
		must(t, xproto.ChangePropertyChecked(r.w.conn, xproto.PropModeReplace, win, r.w.atom("WM_CLIENT_MACHINE"), xproto.AtomString, 8, uint32(len(tc.machine)), []byte(tc.machine)).Check())
		app, err := r.ex.AppAt(context.Background(), float64(110+100*i), 110)
		if err != nil {
			t.Fatal(err)
		}
		if got := app.PID == os.Getpid() && app.Exe != ""; got != tc.local {
			t.Errorf("window from %q: pid %d, exe %q; want the pid trusted: %v", tc.machine, app.PID, app.Exe, tc.local)
		}
		if app.Name != fmt.Sprintf("App%d", i) {
			t.Errorf("window from %q named %q", tc.machine, app.Name)
		}
	}
}
