package core

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/persondoor"
)

// personsHand tells the person's own click on one of Reins' controls from a
// press a program made (persondoor.Hand), on a hand listener of the
// executor's, opened when first needed and opened again after the display
// failed it.
type personsHand struct {
	display string
	appAt   func(ctx context.Context, x, y float64) (executor.App, error)
	pid     int // this Reins: a press must land on its windows
	held    hand.Holder
}

// handWait bounds what a window's watch may wait on the display: the
// person's click is answered on the UI's own goroutine.
const handWait = 2 * time.Second

func newPersonsHand(display string, ex executor.Executor) *personsHand {
	return &personsHand{display: display, appAt: ex.AppAt, pid: os.Getpid()}
}

// notOnMac is why no window of Reins allows on macOS when the app gave no
// WindowsHand (a build without AppKit): there the presses AppKit hands
// Reins' own windows tell the person's click apart, not the executor.
const notOnMac = "this build of Reins cannot tell your own mouse from a program's on macOS, so its windows allow nothing; answer in the terminal of reins serve instead"

// WatchPresses starts a watch for a window that allows.
func (h *personsHand) WatchPresses(opts persondoor.PressOptions) (persondoor.PressWatch, error) {
	if runtime.GOOS == "darwin" {
		return nil, &persondoor.NotPersonsClick{Why: notOnMac, Err: hand.ErrNoWatch}
	}
	ctx, cancel := context.WithTimeout(context.Background(), handWait)
	defer cancel()
	w, err := h.held.WatchPresses(ctx, hand.Options{Display: h.display}, hand.PressOptions{Keys: opts.Keys})
	if err != nil {
		return nil, err
	}
	return &pressWatch{h: h, w: w, opts: opts}, nil
}

func (h *personsHand) close() { h.held.Close() }

// pressWatch is one window's watch.
type pressWatch struct {
	h    *personsHand
	w    *hand.Watch
	opts persondoor.PressOptions
}

func (p *pressWatch) Close() { p.w.Close() }

// PersonsClick judges the last press since the watch began.
func (p *pressWatch) PersonsClick(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, handWait)
	defer cancel()
	last, ok, err := p.w.LastPress(ctx)
	switch {
	case err != nil:
		return &persondoor.NotPersonsClick{Why: "Reins cannot tell your mouse from a program's just now; click again", Err: err}
	case !ok:
		return &persondoor.NotPersonsClick{Why: "Reins saw no mouse button pressed"}
	case last.Kind == hand.Key:
		return &persondoor.NotPersonsClick{Why: "it was pressed from the keyboard"}
	case !last.Person:
		return &persondoor.NotPersonsClick{Why: "that press came from a program"}
	case p.opts.Within > 0:
		// The tray's menu is drawn by another program, where no press can
		// be placed on a window of Reins'.
		if time.Since(last.At) > p.opts.Within {
			return &persondoor.NotPersonsClick{Why: "your last click was too long before this"}
		}
		return nil
	case !last.Placed:
		return &persondoor.NotPersonsClick{Why: "Reins could not tell where that click was"}
	}
	app, err := p.h.appAt(ctx, float64(last.X), float64(last.Y))
	if err != nil {
		return &persondoor.NotPersonsClick{Why: "Reins could not tell which window that click was on", Err: err}
	}
	if app.PID != p.h.pid {
		return &persondoor.NotPersonsClick{Why: "that click was not on a window of Reins"}
	}
	return nil
}
