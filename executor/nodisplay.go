package executor

import (
	"context"
	"strings"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
)

// NoDisplay is the [Executor] of a Reins that has no display to send input
// to: `reins serve` on a machine without a desktop. Everything that needs
// no screen still works there (reading and sharing tabs, snapshots,
// screenshots, the person's answers on the terminal, acts the browser
// performs itself); every act that is OS input is refused with an error
// wrapping [ErrNoDisplay] that says why and what to do, and so are the
// questions about the screen.
type NoDisplay struct {
	err error
}

var _ Executor = (*NoDisplay)(nil)

// NewNoDisplay returns the executor for a Reins without a display. why is
// what New said (an error wrapping ErrNoDisplay): its account of the
// missing display goes into the refusals, which wrap it.
func NewNoDisplay(why error) *NoDisplay {
	return &NoDisplay{err: &noInputError{why: why}}
}

// Err is why this Reins cannot send input: an error wrapping ErrNoDisplay.
func (n *NoDisplay) Err() error { return n.err }

// noInputError is what a NoDisplay refuses with.
type noInputError struct{ why error }

func (e *noInputError) Error() string {
	return "no X display" + e.cause() + ": Reins can read and share tabs but cannot click or type; start it inside an X11 session to act"
}

// cause is New's account of the missing display, " (DISPLAY is not set)",
// without its advice, which the refusal gives in its own words.
func (e *noInputError) cause() string {
	if e.why == nil {
		return ""
	}
	c := strings.TrimPrefix(e.why.Error(), ErrNoDisplay.Error()+": ")
	c, _, _ = strings.Cut(c, "; ")
	if c == "" || c == ErrNoDisplay.Error() {
		return ""
	}
	return " (" + c + ")"
}

func (e *noInputError) Unwrap() []error {
	if e.why == nil {
		return []error{ErrNoDisplay}
	}
	return []error{ErrNoDisplay, e.why}
}

// Fire refuses every act: an invalid ticket or an act that is not input as
// every executor does, and the rest because there is nowhere to send it.
func (n *NoDisplay) Fire(ctx context.Context, t audit.Ticket) error {
	if _, err := check(t); err != nil {
		return err
	}
	return n.err
}

// Frontmost has no answer without a display.
func (n *NoDisplay) Frontmost(context.Context) (App, error) { return App{}, n.err }

// AppAt has no answer without a display.
func (n *NoDisplay) AppAt(context.Context, float64, float64) (App, error) { return App{}, n.err }

// Windows has no answer without a display.
func (n *NoDisplay) Windows(context.Context) ([]Window, error) { return nil, n.err }

// TabWindow has no answer without a display.
func (n *NoDisplay) TabWindow(context.Context, TabWindowQuery) (TabWindow, error) {
	return TabWindow{}, n.err
}

// Screens has no answer without a display.
func (n *NoDisplay) Screens(context.Context) ([]Screen, error) { return nil, n.err }

// LastInput is the zero time: no one uses a display that is not there, so
// an approved act goes on to its audit row and to Fire, which refuses it
// with the reason (rather than as "cannot tell whether the person is
// using the mouse").
func (n *NoDisplay) LastInput(context.Context) (time.Time, error) { return time.Time{}, nil }

// SetDenyList does nothing: nothing is ever fired to check it against.
func (n *NoDisplay) SetDenyList(denylist.List) {}

// Close does nothing.
func (n *NoDisplay) Close() error { return nil }

// InputUnavailable returns why ex can send no input at all (an error
// wrapping ErrNoDisplay), or nil when it may.
func InputUnavailable(ex Executor) error {
	if n, ok := ex.(*NoDisplay); ok {
		return n.err
	}
	return nil
}
