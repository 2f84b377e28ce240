package executor

import (
	"errors"
	"fmt"

	"github.com/reins-app/reins/executor/hand"
)

// The person's hand stops an act: every act fires under a watch on the
// person's own input (package hand), from right before its last checks to its
// last event. Their key or button press, wheel turn or pointer motion stops
// it before its next event, and it lets go of what it holds; Reins' own
// events never trip it.

// watched puts the act under w: its waits end when the person reaches in,
// and every check before an event asks w. stop ends it.
func (a *act) watched(w *hand.Watch) (stop func()) {
	a.hand = w
	ctx, cancel := w.Context(a.ctx)
	a.ctx = ctx
	return func() {
		cancel()
		w.Close()
	}
}

// handCheck is the check before an event that must not follow the
// person's hand: it waits until every input the desktop took before it has
// been looked at, so that at most the event already on its way follows
// their first key or press.
func (a *act) handCheck() error {
	if a.hand == nil {
		return nil
	}
	if err := a.hand.Check(a.ctx); err != nil {
		return a.stoppedByHand(err)
	}
	return nil
}

// stoppedByHand says how far the act got when the person reached in; err
// is the watch's, or anything else, which it passes on.
func (a *act) stoppedByHand(err error) error {
	if a.hand != nil {
		if herr := a.hand.Err(); herr != nil {
			err = herr
		}
	}
	if !errors.Is(err, hand.ErrPersonsHand) && !errors.Is(err, hand.ErrNoWatch) {
		return err
	}
	return &HandStopped{Err: err, Sent: a.count}
}

// HandStopped is an act stopped because the person reached for the mouse
// or keyboard (Err wraps hand.ErrPersonsHand), or because Reins could no longer
// tell their input from its own (Err wraps hand.ErrNoWatch), after Sent
// events. Whatever the act held was let go.
type HandStopped struct {
	Err  error
	Sent int
}

func (e *HandStopped) Error() string {
	return fmt.Sprintf("%v, so the act stopped after %d events and let go of every key and button it held", e.Err, e.Sent)
}

func (e *HandStopped) Unwrap() error { return e.Err }

// handReady is a backend that can say, before anyone is asked, whether it
// can watch the person's hand.
type handReady interface {
	handUnwatched() error
}

// HandUnwatched says why ex cannot watch the person's hand while an act
// fires (an error wrapping hand.ErrNoWatch: no XInput 2, macOS without
// Input Monitoring), or nil when it can or cannot say before firing;
// callers ask before anyone approves an act.
func HandUnwatched(ex Executor) error {
	if h, ok := ex.(handReady); ok {
		return h.handUnwatched()
	}
	return nil
}
