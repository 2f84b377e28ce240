package executor

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// display is one Xvfb for a whole test, with a connection held open for its
// life: when its last client leaves, an X server resets, forgetting root
// properties and the keyboard mapping between subtests.
type display struct {
	srv   *xvfb.Server
	scale float64
}

func startDisplay(t *testing.T, scale float64) *display {
	t.Helper()
	screen := "1280x800x24"
	if scale == 2 {
		screen = "2560x1600x24"
	}
	srv := xvfb.StartT(t, screen)
	keeper, err := xgb.NewConnDisplay(srv.Display)
	if err != nil {
		t.Fatalf("connect to %s: %v", srv.Display, err)
	}
	t.Cleanup(keeper.Close)
	return &display{srv: srv, scale: scale}
}

// xev is one input event as a client saw it.
type xev struct {
	kind         string // "press", "release", "key", "keyup", "motion"
	detail       byte   // button or keycode
	window       xproto.Window
	rootX, rootY int16
	x, y         int16 // in the event's window
	state        uint16
	sym          xproto.Keysym // "key": what the keycode typed with the mapping then in force
}

// witness is an X client that sees every input event on the display: it
// selects them on the root window and on every window it makes. It decodes
// key presses with the keyboard mapping current when each arrives, as a
// real client does, so characters typed on a borrowed keycode read right.
type witness struct {
	t    *testing.T
	conn *xgb.Conn
	root xproto.Window
	scr  *xproto.ScreenInfo
	mark xproto.Window // an unmapped window that only carries sync markers
	atom func(string) xproto.Atom

	mu      sync.Mutex
	events  []xev                    // guarded by mu
	keymap  []xproto.Keysym          // guarded by mu
	per     int                      // guarded by mu
	onKey   func(xev)                // guarded by mu
	onEvent func(xev)                // guarded by mu
	marks   map[uint32]chan struct{} // guarded by mu
	nmark   uint32                   // guarded by mu
	windows map[string]xproto.Window // guarded by mu
}

const inputMask = xproto.EventMaskKeyPress | xproto.EventMaskKeyRelease | xproto.EventMaskButtonPress |
	xproto.EventMaskButtonRelease | xproto.EventMaskPointerMotion

func newWitness(t *testing.T, d *display) *witness {
	t.Helper()
	c, err := xgb.NewConnDisplay(d.srv.Display)
	if err != nil {
		t.Fatalf("witness: connect: %v", err)
	}
	w := &witness{
		t: t, conn: c, marks: map[uint32]chan struct{}{},
		windows: map[string]xproto.Window{},
	}
	w.scr = xproto.Setup(c).DefaultScreen(c)
	w.root = w.scr.Root
	w.atom = func(name string) xproto.Atom {
		r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatalf("intern %s: %v", name, err)
		}
		return r.Atom
	}
	w.loadKeymap()
	must(t, xproto.ChangeWindowAttributesChecked(c, w.root, xproto.CwEventMask, []uint32{inputMask}).Check())
	w.mark = w.newWindow(w.root, 0, 0, 1, 1, false)
	done := make(chan struct{})
	go w.loop(done)
	t.Cleanup(func() {
		w.cleanRoot()
		c.Close()
		<-done
	})
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (w *witness) loadKeymap() {
	setup := xproto.Setup(w.conn)
	n := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	r, err := xproto.GetKeyboardMapping(w.conn, setup.MinKeycode, byte(n)).Reply()
	if err != nil {
		return // the connection is closing
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// Index by keycode, so decoding needs no offset.
	w.per = int(r.KeysymsPerKeycode)
	w.keymap = make([]xproto.Keysym, int(setup.MinKeycode)*w.per, 256*w.per)
	w.keymap = append(w.keymap, r.Keysyms...)
}

// decode reads what keycode types, by the core protocol's rules, with
// Shift and Caps Lock considered.
func (w *witness) decode(code xproto.Keycode, state uint16) xproto.Keysym {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := int(code) * w.per
	if i+1 >= len(w.keymap) {
		return 0
	}
	lo, hi := w.keymap[i], w.keymap[i+1]
	shifted := state&xproto.ModMaskShift != 0
	if state&xproto.ModMaskLock != 0 && lo < 0x100 && hi < 0x100 && unicode.ToUpper(rune(lo)) == rune(hi) && lo != hi {
		shifted = !shifted // Caps Lock on a letter, as XKB's ALPHABETIC key type has it
	}
	if !shifted {
		if hi == 0 && lo < 0x100 && unicode.IsUpper(rune(lo)) {
			return xproto.Keysym(unicode.ToLower(rune(lo)))
		}
		return lo
	}
	if hi != 0 {
		return hi
	}
	if lo < 0x100 {
		return xproto.Keysym(unicode.ToUpper(rune(lo)))
	}
	return lo
}

func (w *witness) loop(done chan struct{}) {
	defer close(done)
	for {
		ev, xerr := w.conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return
		}
		var e xev
		switch v := ev.(type) {
		case xproto.KeyPressEvent:
			e = xev{kind: "key", detail: byte(v.Detail), window: v.Event, rootX: v.RootX, rootY: v.RootY, x: v.EventX, y: v.EventY, state: v.State}
			e.sym = w.decode(v.Detail, v.State)
		case xproto.KeyReleaseEvent:
			e = xev{kind: "keyup", detail: byte(v.Detail), window: v.Event, rootX: v.RootX, rootY: v.RootY, x: v.EventX, y: v.EventY, state: v.State}
		case xproto.ButtonPressEvent:
			e = xev{kind: "press", detail: byte(v.Detail), window: v.Event, rootX: v.RootX, rootY: v.RootY, x: v.EventX, y: v.EventY, state: v.State}
		case xproto.ButtonReleaseEvent:
			e = xev{kind: "release", detail: byte(v.Detail), window: v.Event, rootX: v.RootX, rootY: v.RootY, x: v.EventX, y: v.EventY, state: v.State}
		case xproto.MotionNotifyEvent:
			e = xev{kind: "motion", window: v.Event, rootX: v.RootX, rootY: v.RootY, x: v.EventX, y: v.EventY, state: v.State}
		case xproto.MappingNotifyEvent:
			if v.Request == xproto.MappingKeyboard {
				w.loadKeymap()
			}
			continue
		case xproto.ClientMessageEvent:
			w.mu.Lock()
			if ch, ok := w.marks[v.Data.Data32[0]]; ok {
				close(ch)
				delete(w.marks, v.Data.Data32[0])
			}
			w.mu.Unlock()
			continue
		default:
			continue
		}
		w.mu.Lock()
		w.events = append(w.events, e)
		hook, every := w.onKey, w.onEvent
		w.mu.Unlock()
		if hook != nil && e.kind == "key" {
			hook(e)
		}
		if every != nil {
			every(e)
		}
	}
}

// take returns the events seen since the last take. It first makes sure
// every event the server generated so far has been read: a message the
// witness sends itself arrives after them.
func (w *witness) take() []xev {
	w.t.Helper()
	w.mu.Lock()
	w.nmark++
	n := w.nmark
	ch := make(chan struct{})
	w.marks[n] = ch
	w.mu.Unlock()
	msg := xproto.ClientMessageEvent{
		Format: 32, Window: w.mark, Type: xproto.AtomNotice,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{n, 0, 0, 0, 0}),
	}
	must(w.t, xproto.SendEventChecked(w.conn, false, w.mark, 0, string(msg.Bytes())).Check())
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		w.t.Fatal("witness: events did not arrive")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.events
	w.events = nil
	return out
}

// setOnEvent calls f, from the event loop, for every input event.
func (w *witness) setOnEvent(f func(xev)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onEvent = f
}

// setOnKey calls f, from the event loop, for every key press.
func (w *witness) setOnKey(f func(xev)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onKey = f
}

// newWindow makes a window selecting every input event.
func (w *witness) newWindow(parent xproto.Window, x, y, width, height int, mapped bool) xproto.Window {
	w.t.Helper()
	id, err := xproto.NewWindowId(w.conn)
	must(w.t, err)
	must(w.t, xproto.CreateWindowChecked(w.conn, 0, id, parent, int16(x), int16(y), uint16(width), uint16(height), 0,
		xproto.WindowClassInputOutput, w.scr.RootVisual, xproto.CwBackPixel|xproto.CwEventMask,
		[]uint32{w.scr.WhitePixel, inputMask}).Check())
	if mapped {
		must(w.t, xproto.MapWindowChecked(w.conn, id).Check())
	}
	return id
}

// app makes a top-level window that names its application the way real
// clients do: WM_CLASS "name-in-lower-case\0Name\0", _NET_WM_PID of this
// process, a title. The area is in device pixels.
func (w *witness) app(name string, x, y, width, height int) xproto.Window {
	w.t.Helper()
	id := w.newWindow(w.root, x, y, width, height, false)
	w.label(id, name)
	must(w.t, xproto.MapWindowChecked(w.conn, id).Check())
	w.mu.Lock()
	w.windows[name] = id
	w.mu.Unlock()
	return id
}

func (w *witness) label(id xproto.Window, name string) {
	w.t.Helper()
	class := strings.ToLower(name) + "\x00" + name + "\x00"
	must(w.t, xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, id, xproto.AtomWmClass, xproto.AtomString, 8, uint32(len(class)), []byte(class)).Check())
	pid := make([]byte, 4)
	xgb.Put32(pid, uint32(os.Getpid()))
	must(w.t, xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, id, w.atom("_NET_WM_PID"), xproto.AtomCardinal, 32, 1, pid).Check())
	title := name + " — window"
	must(w.t, xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, id, w.atom("_NET_WM_NAME"), w.atom("UTF8_STRING"), 8, uint32(len(title)), []byte(title)).Check())
}

func (w *witness) window(name string) xproto.Window {
	w.mu.Lock()
	defer w.mu.Unlock()
	id, ok := w.windows[name]
	if !ok {
		w.t.Fatalf("no window of %s", name)
	}
	return id
}

// setActive plays a window manager announcing the active window.
func (w *witness) setActive(id xproto.Window) {
	w.t.Helper()
	v := make([]byte, 4)
	xgb.Put32(v, uint32(id))
	must(w.t, xproto.ChangePropertyChecked(w.conn, xproto.PropModeReplace, w.root, w.atom("_NET_ACTIVE_WINDOW"), xproto.AtomWindow, 32, 1, v).Check())
}

// cleanRoot undoes what a test did to state that outlives its windows.
func (w *witness) cleanRoot() {
	for _, name := range []string{"_NET_ACTIVE_WINDOW", "_NET_CLIENT_LIST_STACKING"} {
		_ = xproto.DeletePropertyChecked(w.conn, w.root, w.atom(name)).Check()
	}
	_ = xproto.SetInputFocusChecked(w.conn, xproto.InputFocusPointerRoot, xproto.InputFocusPointerRoot, xproto.TimeCurrentTime).Check()
	// Only one client may select button presses on the root: give the
	// selection back now, while the server answers, rather than when it
	// gets round to the closed connection, or the next witness's selection
	// fails with BadAccess.
	_ = xproto.ChangeWindowAttributesChecked(w.conn, w.root, xproto.CwEventMask, []uint32{0}).Check()
}

func (w *witness) warp(x, y int) {
	w.t.Helper()
	must(w.t, xproto.WarpPointerChecked(w.conn, 0, w.root, 0, 0, 0, 0, int16(x), int16(y)).Check())
}

func (w *witness) pointer() (int, int) {
	w.t.Helper()
	r, err := xproto.QueryPointer(w.conn, w.root).Reply()
	must(w.t, err)
	return int(r.RootX), int(r.RootY)
}

// typed is the text the key presses spell, with control keys in <angle
// brackets> and modifiers as C-, S-, M- (Mod4) prefixes when not typing.
func typed(evs []xev) string {
	var b strings.Builder
	for _, e := range evs {
		if e.kind != "key" {
			continue
		}
		switch e.sym {
		case 0xffe1, 0xffe2, 0xffe3, 0xffe4, 0xffe9, 0xffea, 0xffeb, 0xffec:
			continue // the modifier keys themselves
		}
		if e.state&xproto.ModMaskControl != 0 {
			b.WriteString("C-")
		}
		if e.state&xproto.ModMask4 != 0 {
			b.WriteString("M-")
		}
		r, ok := keysymRune(e.sym)
		if ok && e.state&(xproto.ModMaskControl|xproto.ModMask4) == 0 {
			b.WriteRune(r)
			continue
		}
		if ok {
			if e.state&xproto.ModMaskShift != 0 {
				b.WriteString("S-")
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		name, known := map[xproto.Keysym]string{
			0xff0d: "Return", 0xff09: "Tab", 0xff1b: "Escape", 0xff08: "BackSpace", 0xff54: "Down",
			0xffc2: "F5", 0xffff: "Delete",
		}[e.sym]
		if !known {
			name = fmt.Sprintf("%#x", uint32(e.sym))
		}
		b.WriteString("<" + name + ">")
	}
	return b.String()
}

// balanced reports whether every key and button pressed was released.
func balanced(evs []xev) error {
	down := map[string]int{}
	for _, e := range evs {
		switch e.kind {
		case "key":
			down[fmt.Sprintf("key %d", e.detail)]++
		case "keyup":
			down[fmt.Sprintf("key %d", e.detail)]--
		case "press":
			down[fmt.Sprintf("button %d", e.detail)]++
		case "release":
			down[fmt.Sprintf("button %d", e.detail)]--
		}
	}
	for k, n := range down {
		if n != 0 {
			return fmt.Errorf("%s left with %d more presses than releases", k, n)
		}
	}
	return nil
}

// x11Rig is the contract rig for the X11 executor.
type x11Rig struct {
	d  *display
	w  *witness
	ex *X11
}

func newX11Rig(t *testing.T, d *display) *x11Rig {
	t.Helper()
	w := newWitness(t, d)
	ex, err := NewX11(X11Options{Display: d.srv.Display, Scale: func() float64 { return d.scale }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	w.warp(2, 2)
	w.take()
	return &x11Rig{d: d, w: w, ex: ex}
}

func (r *x11Rig) Executor() Executor { return r.ex }
func (r *x11Rig) Scale() float64     { return r.d.scale }

func (r *x11Rig) px(v float64) int { return int(math.Round(v * r.d.scale)) }

func (r *x11Rig) Window(t *testing.T, name string, a rect) App {
	r.w.app(name, r.px(a.X), r.px(a.Y), r.px(a.W), r.px(a.H))
	return testApp(t, name)
}

func (r *x11Rig) Front(t *testing.T, name string) { r.w.setActive(r.w.window(name)) }

// PersonMoves sends a motion to where the pointer already is through XTEST
// on a connection of its own: on X, that is what a mouse's input is.
func (r *x11Rig) PersonMoves(t *testing.T) {
	t.Helper()
	c, err := xgb.NewConnDisplay(r.d.srv.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must(t, xtest.Init(c))
	x, y := r.w.pointer()
	must(t, xtest.FakeInputChecked(c, xproto.MotionNotify, 0, 0, r.w.root, int16(x), int16(y), 0).Check())
	r.w.take()
}

func (r *x11Rig) Fired(t *testing.T) int {
	x, y := r.w.pointer()
	n := len(r.w.take())
	// A pointer that moved and came back fires motion events, but one
	// that was only warped by a test does not: count the position too.
	if x != 2 || y != 2 {
		n++
		r.w.warp(2, 2)
		r.w.take()
	}
	return n
}
