package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/vocab"
)

func (r *x11Rig) Focus(t *testing.T, name string) {
	t.Helper()
	must(t, xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusPointerRoot, r.w.window(name), xproto.TimeCurrentTime).Check())
}

// FocusOnKey sets the focus from the witness's event loop, as a popup's
// browser would once the key that opened it arrived.
func (r *x11Rig) FocusOnKey(t *testing.T, n int, name string) {
	id := r.w.window(name)
	keys := 0
	r.w.setOnKey(func(xev) {
		if keys++; keys == n {
			_ = xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusPointerRoot, id, xproto.TimeCurrentTime).Check()
		}
	})
}

func (r *x11Rig) ShowOnPress(t *testing.T, name string, a rect) {
	var once sync.Once
	r.w.setOnEvent(func(e xev) {
		if e.kind == "press" {
			once.Do(func() {
				id := r.w.newWindow(r.w.root, r.px(a.X), r.px(a.Y), r.px(a.W), r.px(a.H), false)
				r.w.label(id, name)
				_ = xproto.MapWindowChecked(r.w.conn, id).Check()
				r.w.mu.Lock()
				r.w.windows[name] = id
				r.w.mu.Unlock()
			})
		}
	})
}

// Landed takes what the witness saw: a key by the window it was sent to,
// a button by the top-level window at its point now, asked of the server.
func (r *x11Rig) Landed(t *testing.T) []landed {
	t.Helper()
	evs := r.w.take()
	r.w.mu.Lock()
	names := map[xproto.Window]string{}
	for name, id := range r.w.windows {
		names[id] = name
	}
	r.w.mu.Unlock()
	var out []landed
	for _, e := range evs {
		kind := e.kind
		switch {
		case kind == "motion":
			continue
		case (kind == "press" || kind == "release") && e.detail >= buttonWheelUp:
			if kind == "release" {
				continue
			}
			kind = "wheel"
		}
		over := names[e.window]
		if kind != "key" && kind != "keyup" {
			at, err := xproto.TranslateCoordinates(r.w.conn, r.w.root, r.w.root, e.rootX, e.rootY).Reply()
			must(t, err)
			over = names[at.Child]
		}
		out = append(out, landed{kind: kind, over: over})
	}
	return out
}

// benchTab is an X display with a tab's window holding the focus, a
// window manager's frame round it when framed, and the executor.
func benchTab(b *testing.B, framed bool) (*X11, xproto.Window) {
	b.Helper()
	srv := xvfb.StartT(b, "1280x800x24")
	c, err := xgb.NewConnDisplay(srv.Display)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	scr := xproto.Setup(c).DefaultScreen(c)
	window := func(parent xproto.Window, x, y, w, h int) xproto.Window {
		id, err := xproto.NewWindowId(c)
		if err != nil {
			b.Fatal(err)
		}
		if err := xproto.CreateWindowChecked(c, 0, id, parent, int16(x), int16(y), uint16(w), uint16(h), 0,
			xproto.WindowClassInputOutput, scr.RootVisual, 0, nil).Check(); err != nil {
			b.Fatal(err)
		}
		if err := xproto.MapWindowChecked(c, id).Check(); err != nil {
			b.Fatal(err)
		}
		return id
	}
	parent := scr.Root
	if framed {
		parent = window(scr.Root, 100, 70, 1000, 730)
	}
	tab := window(parent, 0, 30, 1000, 700)
	if err := xproto.SetInputFocusChecked(c, xproto.InputFocusPointerRoot, tab, xproto.TimeCurrentTime).Check(); err != nil {
		b.Fatal(err)
	}
	x, err := NewX11(X11Options{Display: srv.Display})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	return x, tab
}

// BenchmarkX11KeyCheck is what a tab's act adds before each key: the
// focus read and found in the tab's window.
func BenchmarkX11KeyCheck(b *testing.B) {
	x, tab := benchTab(b, false)
	ctx := context.Background()
	for b.Loop() {
		in, _, err := x.focusIn(ctx, uint64(tab))
		if err == nil && !in {
			err = errors.New("the focus is not in the tab's window")
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkX11ClickChecks is what a tab's click adds: the window under
// the point read before its press and before its release; framed,
// through a window manager's frame.
func BenchmarkX11ClickChecks(b *testing.B) {
	for _, framed := range []bool{false, true} {
		b.Run(fmt.Sprintf("framed=%v", framed), func(b *testing.B) {
			x, tab := benchTab(b, framed)
			ctx := context.Background()
			at := point{500, 400}
			for b.Loop() {
				for range 2 {
					is, _, err := x.topIs(ctx, at, uint64(tab))
					if err == nil && !is {
						err = errors.New("the tab's window is not under the point")
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// The picture a browser drags along under the pointer (an override-redirect
// window of type _NET_WM_WINDOW_TYPE_DND, of the browser's own process) is
// looked through at the release: the drop lands on the page beneath it.
func TestX11ABrowsersDragIconIsLookedThrough(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	tab := rect{100, 100, 700, 500}
	r.Window(t, "Chromium", tab)
	r.Focus(t, "Chromium")
	tw := tabWindowOf(t, r, tab)
	var once sync.Once
	r.w.setOnEvent(func(e xev) {
		if e.kind != "press" {
			return
		}
		once.Do(func() {
			id, err := xproto.NewWindowId(r.w.conn)
			if err != nil {
				return
			}
			// Over the drag's end, as Chromium shows the dragged element.
			_ = xproto.CreateWindowChecked(r.w.conn, 0, id, r.w.root, 450, 330, 140, 60, 0, xproto.WindowClassInputOutput, r.w.scr.RootVisual,
				xproto.CwOverrideRedirect, []uint32{1}).Check()
			v := make([]byte, 4)
			xgb.Put32(v, uint32(r.w.atom("_NET_WM_WINDOW_TYPE_DND")))
			_ = xproto.ChangePropertyChecked(r.w.conn, xproto.PropModeReplace, id, r.w.atom("_NET_WM_WINDOW_TYPE"), xproto.AtomAtom, 32, 1, v).Check()
			_ = xproto.MapWindowChecked(r.w.conn, id).Check()
		})
	})
	tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 200, Y: 200, X2: 500, Y2: 350, Scale: 1, Window: tw.ID, PID: tw.App.PID})
	if err := r.ex.Fire(context.Background(), tk); err != nil {
		t.Fatalf("a drag whose end shows the browser's drag icon = %v", err)
	}
	evs := r.w.take()
	var release *xev
	for i, e := range evs {
		if e.kind == "release" {
			release = &evs[i]
		}
	}
	if release == nil || release.rootX != 500 || release.rootY != 350 {
		t.Errorf("released at %+v, want at the drag's end (500, 350)", release)
	}
}
