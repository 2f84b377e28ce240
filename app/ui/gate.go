package ui

import (
	"context"
	"errors"
	"time"

	"github.com/reins-app/reins/persondoor"
)

// A window control that allows, shares, resumes or ends a hand-off with
// Done takes effect only when the person's own mouse pressed it: a gate,
// watching the presses from when its window shows, asks the engine's
// persondoor.Hand at the press. Anything else (a program's click, a press
// from the keyboard, no press seen, a desktop that cannot tell) changes
// nothing; the window says why in one line, and the person's log keeps it.
// Controls that only take power away (Deny, Stop, Pause, not shared) need
// no gate.

// gateWithin is how recent the person's click must be for a choice in the
// tray's menu, which the panel draws: Reins sees the choice come over
// D-Bus, never where it was clicked.
const gateWithin = 15 * time.Second

// gate is one window's watch of the presses.
type gate struct {
	hand persondoor.Hand // nil: the door cannot tell, so nothing passes
	opts persondoor.PressOptions
	logf func(format string, args ...any)

	watch persondoor.PressWatch // on while the window shows
	err   error                 // why the watch could not start
}

// newGate finds the door's Hand, if it has one.
func newGate(door any, opts persondoor.PressOptions, logf func(string, ...any)) *gate {
	h, _ := door.(persondoor.Hand)
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &gate{hand: h, opts: opts, logf: logf}
}

// start watches the presses from now: the window shows (or shows
// something new to allow). It runs on fyne's goroutine.
func (g *gate) start() {
	g.stop()
	if g.hand == nil {
		return
	}
	g.watch, g.err = g.hand.WatchPresses(g.opts)
	if g.err != nil {
		g.logf("watching the presses on Reins' window: %v", g.err)
	}
}

// stop ends the watch: the window hid.
func (g *gate) stop() {
	if g.watch != nil {
		g.watch.Close()
		g.watch = nil
	}
}

// pass reports whether the press that activated control was the person's
// own click; if not, it says why in one line ("Allow takes a click of your
// own mouse; that press came from a program"), logs it, and watches afresh
// for the next press.
func (g *gate) pass(control string) (ok bool, why string) {
	var err error
	switch {
	case g.hand == nil:
		err = errors.New("this Reins cannot tell your mouse from a program's here")
	case g.watch == nil && g.err == nil:
		// Never started: whatever pressed it came before the watch.
		g.start()
		err = errors.New("Reins saw no mouse button pressed")
	case g.watch == nil && errors.Is(g.err, persondoor.ErrNotPersonsClick):
		err = g.err
	case g.watch == nil:
		err = errors.New("this desktop cannot tell your mouse from a program's")
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err = g.watch.PersonsClick(ctx)
		cancel()
	}
	if err == nil {
		return true, ""
	}
	why = control + " takes a click of your own mouse; " + err.Error()
	if g.err != nil {
		g.logf("%s: nothing changed: %s (%v)", control, why, g.err)
	} else {
		g.logf("%s: nothing changed: %s", control, why)
	}
	if g.hand != nil {
		g.start()
	}
	return false, why
}
