package hand

import (
	"context"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/reins-app/reins/internal/testrig/handtest"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

// The watch's cost on Xvfb, as the budget counts it (≤ 0.5 ms a key, ≤ 2 ms
// a pointer act):
//
//	go test ./executor/ -run '^$' -bench 'Hand' -benchtime 2000x

// benchDisplay is an Xvfb with a connection kept open, so that it does not
// reset between watches, and an XTEST sender on it.
func benchDisplay(b *testing.B) (string, *xgb.Conn, xproto.Window) {
	b.Helper()
	srv := xvfb.StartT(b, "")
	c, err := xgb.NewConnDisplay(srv.Display)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	if err := xtest.Init(c); err != nil {
		b.Fatal(err)
	}
	return srv.Display, c, xproto.Setup(c).DefaultScreen(c).Root
}

// Starting a watch from a listener and stopping it: once an act.
func BenchmarkHandWatchStartStop(b *testing.B) {
	display, _, _ := benchDisplay(b)
	l, err := NewListener(context.Background(), Options{Display: display})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for b.Loop() {
		w, err := l.Watch(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

// Opening a listener and closing it: once an executor, or once a watch
// with Start.
func BenchmarkHandListenerOpenClose(b *testing.B) {
	display, _, _ := benchDisplay(b)
	for b.Loop() {
		l, err := NewListener(context.Background(), Options{Display: display})
		if err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}

// One Check: a round trip through the watch.
func BenchmarkHandCheck(b *testing.B) {
	display, _, _ := benchDisplay(b)
	w, err := Start(context.Background(), Options{Display: display})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		if err := w.Check(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// A key as the X11 backend sends it (a checked press, a checked release),
// without a watch, with one reading its raw events, and with a Check
// before each event.
func BenchmarkHandKey(b *testing.B) {
	for _, mode := range []string{"unwatched", "watched", "checked"} {
		b.Run(mode, func(b *testing.B) {
			display, c, root := benchDisplay(b)
			code := handtest.KeycodeOf(b, display, 'x')
			var w *Watch
			if mode != "unwatched" {
				var err error
				if w, err = Start(context.Background(), Options{Display: display}); err != nil {
					b.Fatal(err)
				}
				defer w.Close()
			}
			send := func(typ byte) {
				if mode == "checked" {
					if err := w.Check(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				if err := xtest.FakeInputChecked(c, typ, code, 0, root, 0, 0, 0).Check(); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				send(xproto.KeyPress)
				send(xproto.KeyRelease)
			}
			if w != nil {
				if err := w.Check(context.Background()); err != nil {
					b.Fatalf("Reins' own keys tripped the watch: %v", err)
				}
			}
		})
	}
}

// A click as one act: a move, a press and a release; "watched" starts and
// stops a watch for the act, from a listener held open, and Checks before
// each event.
func BenchmarkHandClickAct(b *testing.B) {
	for _, mode := range []string{"unwatched", "watched"} {
		b.Run(mode, func(b *testing.B) {
			display, c, root := benchDisplay(b)
			l, err := NewListener(context.Background(), Options{Display: display})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			i := 0
			for b.Loop() {
				var w *Watch
				if mode == "watched" {
					if w, err = l.Watch(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				i++
				for _, ev := range []struct{ typ, detail byte }{{xproto.MotionNotify, 0}, {xproto.ButtonPress, 3}, {xproto.ButtonRelease, 3}} {
					if w != nil {
						if err := w.Check(context.Background()); err != nil {
							b.Fatal(err)
						}
					}
					if err := xtest.FakeInputChecked(c, ev.typ, ev.detail, 0, root, int16(100+i%500), int16(100+i%300), 0).Check(); err != nil {
						b.Fatal(err)
					}
				}
				if w != nil {
					w.Close()
				}
			}
		})
	}
}

// A window's watch of presses: started when it shows, asked once at the
// click (one round trip), closed when it hides.
func BenchmarkHandWatchPressesAskedOnce(b *testing.B) {
	display, _, _ := benchDisplay(b)
	l, err := NewListener(context.Background(), Options{Display: display})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for b.Loop() {
		w, err := l.WatchPresses(context.Background(), PressOptions{Keys: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := w.LastPress(context.Background()); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}
