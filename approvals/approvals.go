// Package approvals decides whether an agent may do what it asks: the
// person's grants per tab (None, Read, Control, bound to the origin shown when
// they shared it), the policy of what needs a person, remembered decisions,
// and the broker that asks a person and treats silence as a no.
//
// Only this package can mint an [Approved]; later stages accept nothing else
// as leave to act.
package approvals

import (
	"errors"
	"time"

	"github.com/reins-app/reins/internal/plain"
)

// Agent identifies who asks: the self-declared client name beside the real
// process behind the connection.
type Agent struct {
	Name    string `json:"name"`              // self-declared, e.g. "Claude Code"
	Version string `json:"version,omitempty"` // self-declared
	PID     int    `json:"pid,omitempty"`     // the connecting process
	Exe     string `json:"exe,omitempty"`     // its executable
	Session string `json:"session"`           // Reins' id for this connection
}

// Label is how the agent is shown to a person: the real process first and
// whole, then the name it declared, quoted and cut short when long, so that
// no name can hide or push out the process ("python3 (pid 999) · “Claude
// Code”"). Rows the person's own changes wrote show as "you".
func (a Agent) Label() string {
	if a.IsPerson() {
		return "you"
	}
	return plain.Who(a.Exe, a.PID, a.Name)
}

// IsPerson reports whether a stands for the person at Reins' own controls
// (a share or a setting they changed), not for an agent: every agent has a
// session, and the person's rows have none.
func (a Agent) IsPerson() bool {
	return a.Name == PersonName && a.Session == "" && a.PID == 0 && a.Exe == ""
}

// PersonName is the agent name of the rows the person's own changes write.
const PersonName = "person"

// Target is what an act lands on, as the person should see it.
type Target struct {
	Tab         string `json:"tab,omitempty"` // Reins' tab id
	TabTitle    string `json:"tabTitle,omitempty"`
	Origin      string `json:"origin,omitempty"`      // the tab's origin
	FrameOrigin string `json:"frameOrigin,omitempty"` // set only when the target's frame has another origin
	Ref         string `json:"ref,omitempty"`
	Role        string `json:"role,omitempty"`
	Name        string `json:"name,omitempty"`
	Desktop     bool   `json:"desktop,omitempty"` // a desktop act, not in a tab
	// Desktop acts: what Reins itself sees where the act lands, and apart
	// from it, what the agent says is there.
	App    string `json:"app,omitempty"`    // the application under the point, or in front for typing and keys
	Window string `json:"window,omitempty"` // the title of the window under the point, as that application set it
	Claim  string `json:"claim,omitempty"`  // the agent's own words for the target; Reins has not checked them
}

// Request is one act waiting for a person.
type Request struct {
	ID      string `json:"id"`
	Agent   Agent  `json:"agent"`
	Act     Act    `json:"act"`
	Target  Target `json:"target"`
	Picture []byte `json:"-"`             // PNG of the tab's visible area; may be nil
	Box     *Box   `json:"box,omitempty"` // the target within Picture, in its pixels, or within Sketch
	// Sketch is the tab's viewport drawn from the agent's snapshot, when no
	// Picture could be taken; nil otherwise.
	Sketch *Sketch   `json:"sketch,omitempty"`
	Asked  time.Time `json:"asked"`
	// Deadline is when silence becomes a deny; the broker sets it.
	Deadline time.Time `json:"deadline"`
	// Held counts the times this act was approved and then held back,
	// because the person was using the mouse or keyboard when it was about
	// to fire. A held act is always put to the person: a remembered
	// "allow on this tab" does not cover it.
	Held int `json:"held,omitempty"`
	// Remember reports whether "allow on this tab for a while" may be offered:
	// never for secret fields or for navigation to another origin.
	Rememberable bool `json:"rememberable"`
}

// Box is a rectangle in a picture's pixels.
type Box struct {
	X, Y, W, H float64
}

// Sketch is a tab's viewport as the boxes of a snapshot's elements, in CSS
// pixels: what the person sees of the page when Chrome gives no picture.
type Sketch struct {
	W, H  float64     // the viewport
	Boxes []SketchBox // in the viewport, top to bottom
}

// SketchBox is one element of a Sketch.
type SketchBox struct {
	X, Y, W, H float64
	Role       string
}

// Sentence is the act as the person reads it.
func (r Request) Sentence() string { return SentenceOf(r.Act, r.Target) }

// SentenceOf is an act on a target as the person reads it; a desktop act
// says where it lands as Reins sees it.
func SentenceOf(a Act, t Target) string {
	if t.Desktop {
		return a.desktopSentence(t)
	}
	return a.Sentence(t.Name)
}

// Decision is the person's answer.
type Decision int

const (
	Deny            Decision = iota // the default, and what silence means
	AllowOnce                       //
	AllowTab                        // allow this kind of act on this tab for a while
	allowedByMemory                 // a remembered AllowTab covered it
)

func (d Decision) String() string {
	switch d {
	case AllowOnce:
		return "allowed once"
	case AllowTab:
		return "allowed on this tab"
	case allowedByMemory:
		return "allowed (remembered)"
	}
	return "denied"
}

// Approved is leave to perform exactly one act. Its zero value approves
// nothing; only this package makes a valid one.
type Approved struct {
	req Request
	how Decision
	at  time.Time
	ok  bool
}

// Valid reports whether a was minted by this package.
func (a Approved) Valid() bool { return a.ok }

// Request is what was approved.
func (a Approved) Request() Request { return a.req }

// How tells how the approval came about.
func (a Approved) How() Decision { return a.how }

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
// decision approved it.
func (a Approved) Quiet() time.Duration {
	if a.how == allowedByMemory {
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
