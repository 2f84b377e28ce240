// Package approvals decides whether an agent may do what it asks: the
// person's shares per tab (None, Read, Control, bound to the origin shown when
// they shared it), the policy of what needs a person, remembered decisions,
// the table of acts always asked on their own ([Tiers]), and the broker that
// asks a person and treats silence as a no.
//
// Only this package can mint an [Approved]; later stages accept nothing else
// as leave to act.
package approvals

import (
	"errors"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Approved is leave to perform exactly one act. Its zero value approves
// nothing; only this package makes a valid one.
type Approved struct {
	req vocab.Request
	how vocab.Decision
	at  time.Time
	ok  bool
}

// Valid reports whether a was minted by this package.
func (a Approved) Valid() bool { return a.ok }

// Request is what was approved.
func (a Approved) Request() vocab.Request { return a.req }

// How tells how the approval came about.
func (a Approved) How() vocab.Decision { return a.how }

// At is when it was approved.
func (a Approved) At() time.Time { return a.at }

// How long the person must have left the mouse and keyboard alone before an
// approved act fires, so that it never fights them for the controls.
const (
	// AnsweredQuiet is for an act the person answered: long enough for the
	// answer's own key or button to come back up.
	AnsweredQuiet = 300 * time.Millisecond
	// RememberedQuiet is for an act a remembered "allow on this tab"
	// answered: nobody looked at it, and input a second before means the
	// person is at the controls.
	RememberedQuiet = time.Second
)

// Quiet is how long the person must have left the mouse and keyboard alone
// before the act fires: AnsweredQuiet, or RememberedQuiet when a remembered
// decision or an allowed plan approved it.
func (a Approved) Quiet() time.Duration {
	if a.how == vocab.Remembered || a.how == vocab.AllowPlan {
		return RememberedQuiet
	}
	return AnsweredQuiet
}

// Errors an agent may see. Each says what to do next.
var (
	ErrDenied           = errors.New("the person denied this action")
	ErrTimeout          = errors.New("the person did not answer in time, so the action was denied")
	ErrNotShared        = errors.New("this tab is not shared with agents; ask the person to share it from the Reins menu")
	ErrReadOnly         = errors.New("this tab is shared read-only; ask the person to give Control from the Reins menu")
	ErrOriginChanged    = errors.New("the tab left the site it was shared on, so its share was withdrawn; ask the person to share it again")
	ErrShutdown         = errors.New("Reins is shutting down, so the action was denied")
	ErrNoAnswerer       = errors.New("no one can answer approvals right now, so the action was denied")
	ErrDesktopNotShared = errors.New("the desktop is not shared with agents; ask the person to share it from the Reins menu")
)
