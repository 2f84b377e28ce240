package macwin

import (
	"context"
	"sync"
	"time"

	"github.com/reins-app/reins/persondoor"
)

// The presses Reins' own windows receive, as macOS tells them apart: an
// event local to the app (a local event monitor, which needs no
// permission) says which process posted it, and the person's own mouse and
// keyboard are the HID system's, no process's. Of each press only its kind,
// whether it was the person's and when are kept, never a key.
//
// Unverified on a Mac, for the self-test to confirm: that -[NSEvent
// CGEvent] of a click the person made carries
// kCGEventSourceUnixProcessID 0 and a posted one the poster's pid; and that
// a click in the menu bar item's menu reaches the monitor.

// pressKind is what was pressed.
type pressKind uint8

const (
	pressButton pressKind = iota + 1
	pressKey
)

// press is one press a Reins window received.
type press struct {
	person bool // the HID system's own: the person's hardware
	at     time.Time
	seq    uint64 // its place among all presses, from 1
}

// pressLog keeps the last button press and the last key press Reins'
// windows received.
type pressLog struct {
	mu     sync.Mutex
	button press  // guarded by mu
	key    press  // guarded by mu
	n      uint64 // guarded by mu: presses so far
	now    func() time.Time
}

func (l *pressLog) record(kind pressKind, person bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	p := press{person: person, at: l.now(), seq: l.n}
	if kind == pressKey {
		l.key = p
	} else {
		l.button = p
	}
}

func (l *pressLog) since() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// presses is the log the local event monitor writes.
var presses = &pressLog{now: time.Now}

// pressWatch is one window's watch: the presses after it began.
type pressWatch struct {
	log  *pressLog
	from uint64
	opts persondoor.PressOptions
}

func (w *pressWatch) Close() {}

// PersonsClick judges the last press since the watch began: with Keys, the
// last of every press, which must be a button; without, the last button.
func (w *pressWatch) PersonsClick(context.Context) error {
	w.log.mu.Lock()
	button, key := w.log.button, w.log.key
	now := w.log.now()
	w.log.mu.Unlock()
	switch {
	case w.opts.Keys && key.seq > w.from && key.seq > button.seq:
		return &persondoor.NotPersonsClick{Why: "that was a key, not a click"}
	case button.seq <= w.from:
		return &persondoor.NotPersonsClick{Why: "Reins saw no mouse button pressed"}
	case !button.person:
		return &persondoor.NotPersonsClick{Why: "that press came from a program"}
	case w.opts.Within > 0 && now.Sub(button.at) > w.opts.Within:
		return &persondoor.NotPersonsClick{Why: "Reins saw no click of yours just now"}
	}
	return nil
}

// pressHand is the persondoor.Hand of the presses Reins' windows receive.
type pressHand struct{ log *pressLog }

func (h pressHand) WatchPresses(opts persondoor.PressOptions) (persondoor.PressWatch, error) {
	return &pressWatch{log: h.log, from: h.log.since(), opts: opts}, nil
}
