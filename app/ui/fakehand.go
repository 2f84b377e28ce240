package ui

import (
	"context"
	"errors"
	"sync"

	"github.com/reins-app/reins/persondoor"
)

// LastPress is what a [FakeEngine]'s watch of presses says of the last
// press on a Reins window, for tests of the gate on its controls.
type LastPress int

const (
	PressByPerson  LastPress = iota // the person's own click on the window: it answers
	PressByProgram                  // a synthetic click: xdotool, another Reins' agent
	PressByKey                      // the control reached from the keyboard (Tab, Space)
	PressNone                       // nothing pressed since the window showed
	PressUntold                     // the desktop cannot tell: no watch starts
)

// fakeHand is the fake engine's persondoor.Hand.
type fakeHand struct {
	mu      sync.Mutex
	last    LastPress // guarded by mu
	watches int       // guarded by mu: started
	open    int       // guarded by mu: started and not closed
	keys    int       // guarded by mu: started counting keys
}

var _ persondoor.Hand = (*FakeEngine)(nil)

// SetLastPress sets what every watch of presses says of the last press,
// from now on; the default is the person's own click.
func (f *FakeEngine) SetLastPress(p LastPress) {
	f.hand.mu.Lock()
	defer f.hand.mu.Unlock()
	f.hand.last = p
}

// PressWatches is how many watches of presses were started, how many of
// them are still on, and how many counted keys.
func (f *FakeEngine) PressWatches() (started, open, keys int) {
	f.hand.mu.Lock()
	defer f.hand.mu.Unlock()
	return f.hand.watches, f.hand.open, f.hand.keys
}

// WatchPresses starts a watch that says what SetLastPress set.
func (f *FakeEngine) WatchPresses(opts persondoor.PressOptions) (persondoor.PressWatch, error) {
	h := &f.hand
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == PressUntold {
		return nil, errors.New("this desktop cannot tell the person's own mouse and keyboard from synthetic input")
	}
	h.watches++
	h.open++
	if opts.Keys {
		h.keys++
	}
	return &fakePressWatch{h: h, keys: opts.Keys}, nil
}

type fakePressWatch struct {
	h      *fakeHand
	keys   bool
	closed bool
}

func (w *fakePressWatch) PersonsClick(context.Context) error {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	switch {
	case w.closed:
		return &persondoor.NotPersonsClick{Why: "the watch was closed"}
	case w.h.last == PressByProgram:
		return &persondoor.NotPersonsClick{Why: "that press came from a program"}
	case w.h.last == PressByKey && w.keys:
		return &persondoor.NotPersonsClick{Why: "it was pressed from the keyboard"}
	case w.h.last == PressNone, w.h.last == PressByKey:
		// A watch that reads no keys saw no press at all.
		return &persondoor.NotPersonsClick{Why: "Reins saw no mouse button pressed"}
	case w.h.last == PressUntold:
		return &persondoor.NotPersonsClick{Why: "Reins cannot tell your mouse from a program's just now; click again"}
	}
	return nil
}

func (w *fakePressWatch) Close() {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	if !w.closed {
		w.closed = true
		w.h.open--
	}
}
