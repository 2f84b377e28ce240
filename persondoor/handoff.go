package persondoor

import (
	"errors"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Hand-off events. Event.Tab is the tab, Event.Detail the hand-off's id,
// and Event.Request describes it as an act of kind vocab.Handoff (its
// Act.Text the agent's reason); re-read [Door.Handoffs] on each, and on
// EventTabs, which says where the tab is now.
const (
	EventHandoff    EventKind = "handoff"      // an agent handed a tab to the person
	EventHandoffEnd EventKind = "handoff_done" // the person pressed Done or Stop, or the tab closed
)

// Handoff is a tab an agent handed to the person for a step of their own.
// Its texts are what the agent and the page wrote: render them with
// internal/plain (the reason as the agent's words) before showing them.
type Handoff struct {
	ID     string      `json:"id"`
	Agent  vocab.Agent `json:"agent"`
	Tab    string      `json:"tab"`
	Title  string      `json:"title"`  // the tab's title now
	Origin string      `json:"origin"` // the site the tab is shared on
	Now    string      `json:"now"`    // the site the tab shows now
	Level  vocab.Level `json:"level"`  // the share held
	Reason string      `json:"reason"` // the agent's words
	Since  time.Time   `json:"since"`
}

// Moved reports whether the tab shows another site than the one it was
// shared on, so that Done needs the person to confirm the site on screen.
func (h Handoff) Moved() bool { return h.Now != h.Origin }

// ErrNoSuchHandoff is returned by FinishHandoff for an id not in progress.
var ErrNoSuchHandoff = errors.New("that hand-off is no longer in progress")

// ErrConfirmOrigin is wrapped by the error FinishHandoff returns for Done
// on another site than the tab was shared on.
var ErrConfirmOrigin = errors.New("the tab shows another site than the one it was shared on; confirm that site to go on sharing the tab there, or press Stop")

// ConfirmOriginError names the site the person must confirm.
type ConfirmOriginError struct {
	Shared string // the site the tab was shared on
	Now    string // the site on screen, which Done would share the tab on
}

func (e *ConfirmOriginError) Error() string {
	return "the tab was shared on " + e.Shared + " and now shows " + e.Now + "; confirm " + e.Now + " to go on sharing the tab there, or press Stop"
}

func (e *ConfirmOriginError) Unwrap() error { return ErrConfirmOrigin }
