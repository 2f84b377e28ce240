package persondoor

import (
	"context"
	"errors"
	"time"
)

// Hand is an optional capability of a [Door]: telling the person's own
// click on one of Reins' controls from a press a program made. Every
// window control that allows, shares, resumes or ends a hand-off with Done
// takes effect only when the person's own mouse pressed it; anything else
// (a program's synthetic click, xdotool, another Reins' agent, a press
// from the keyboard, no press at all, a desktop that cannot tell) changes
// nothing. A Door without it can tell nothing, so its windows allow
// nothing.
type Hand interface {
	// WatchPresses starts watching the desktop's presses for a window
	// that allows, as it is shown; Close the watch when it hides. An
	// error says the desktop cannot tell the person's presses apart.
	WatchPresses(opts PressOptions) (PressWatch, error)
}

// PressOptions configures [Hand.WatchPresses].
type PressOptions struct {
	// Keys: the window takes the keyboard, so a key press counts as a
	// press (never which key), and a control activated from the keyboard
	// is told from one clicked. Optional.
	Keys bool
	// Within: the press is on a menu another program draws (the tray's,
	// drawn by the panel): it may be anywhere, but no older than Within.
	// Zero: the press must be on one of this Reins' windows. Optional.
	Within time.Duration
}

// PressWatch is one window's watch of the presses.
type PressWatch interface {
	// PersonsClick returns nil when the last press since the watch began
	// (key or button, from any device) was a button of the person's own
	// mouse, on one of this Reins' windows (or, with Within, recent
	// enough). Otherwise it returns an error wrapping ErrNotPersonsClick
	// that says why in a few words, which follow "… takes a click of your
	// own mouse; ".
	PersonsClick(ctx context.Context) error
	Close()
}

// ErrNotPersonsClick is wrapped by PressWatch.PersonsClick's refusals.
var ErrNotPersonsClick = errors.New("the press did not come from the person's own mouse")

// NotPersonsClick is why a press did not answer for the person.
type NotPersonsClick struct {
	Why string // a few words: "that press came from a program"
	Err error  // optional: what the desktop said
}

func (e *NotPersonsClick) Error() string { return e.Why }

func (e *NotPersonsClick) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrNotPersonsClick, e.Err}
	}
	return []error{ErrNotPersonsClick}
}
