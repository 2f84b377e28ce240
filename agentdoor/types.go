package agentdoor

import (
	"time"

	"github.com/reins-app/reins/vocab"
)

// Snapshot modes an agent may ask for; each is grounding's mode of the same name.
const (
	ModeAuto        = "auto"        // the full tree while small, else the interactive view
	ModeFull        = "full"        // everything readable
	ModeInteractive = "interactive" // what an agent can act on, with headings and landmarks as context
	ModeViewport    = "viewport"    // what is on screen, with counts of what lies outside
)

// SnapshotResult is what an agent reads.
type SnapshotResult struct {
	ID    string `json:"snapshot"`
	Tab   string `json:"tab"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// ActRequest is an act on an element of a tab, or on the tab itself.
type ActRequest struct {
	Tab      string
	Ref      string // the element; empty for key presses and tab-level acts
	Snapshot string // optional: the snapshot the ref came from; default the session's latest
	Act      vocab.Act
	Element  string // optional: the agent's own words for the target, kept in the audit row
	To       string // Drag: the ref of the element to drop on, from the same snapshot
}

// ActResult says what fired.
type ActResult struct {
	Done   string `json:"done"` // the act as a sentence
	Target string `json:"target,omitempty"`
	Audit  int64  `json:"audit"` // the "about to fire" row
	// Effect says where the act's events arrived, as the target's frame saw
	// them: "the click reached button “Pay now”"; "" when nothing watched
	// (an act with no element, a key press, a hover).
	Effect string `json:"effect,omitempty"`
	// Missed: the act fired, but its events arrived elsewhere than at the
	// element, or not at all.
	Missed bool `json:"missed,omitempty"`
	// Left: the page began leaving, or was gone, by the time where the
	// events landed was read.
	Left bool `json:"left,omitempty"`
}

// UploadRequest gives a page a file through the file chooser that the
// element (a file input, or a button that opens one) opens.
type UploadRequest struct {
	Tab      string
	Ref      string   // the element, from a snapshot
	Snapshot string   // optional: the snapshot the ref came from; default the session's latest
	Paths    []string // the files' paths, absolute; one a call for now
	Element  string   // optional: the agent's own words for the element, kept in the audit row
}

// UploadResult says what an upload did and what the page shows of it.
type UploadResult struct {
	Done  string `json:"done"`
	Audit int64  `json:"audit"`
	// Received says what the next snapshot of the page shows of the file:
	// where the page names it, or that it does not (then nothing is known
	// of what the page got).
	Received string `json:"received"`
	// Confirmed: the page's next snapshot names the file.
	Confirmed bool `json:"confirmed"`
}

// MaxOpenedTabs is how many tabs one agent (in all its sessions) may have
// open, of those it opened.
const MaxOpenedTabs = 10

// OpenTabResult says what became of a tab an agent opened.
type OpenTabResult struct {
	Done   string `json:"done"`
	Audit  int64  `json:"audit"`
	Tab    string `json:"tab,omitempty"`  // the new tab's id, once Reins knows it
	Shared bool   `json:"shared"`         // shared with the agent at Control
	Note   string `json:"note,omitempty"` // what is left to do, when not shared
}

// ReadOptions says how an agent wants a tab read.
type ReadOptions struct {
	Tab      string // required
	Mode     string // optional: ModeAuto by default (the full tree while small, else the interactive view)
	MaxChars int    // optional: the most characters of text; 0 is DefaultBudget, NoBudget (negative) none
	Root     string // optional: only this ref's subtree
	Diff     bool   // optional: only what changed since the session's previous snapshot
}

// ReadResult is a rendered snapshot. Its id names the snapshot the refs in
// Text belong to.
type ReadResult struct {
	SnapshotResult
	Truncated bool   `json:"truncated,omitempty"`
	Hint      string `json:"hint,omitempty"`  // how to see the rest
	Diff      bool   `json:"diff,omitempty"`  // Text holds "+ " and "- " lines
	First     bool   `json:"first,omitempty"` // Diff was asked but there was nothing to compare with
	// NewPage: with Diff, the tab shows another page (document or
	// navigation) than the session's previous snapshot, whose refs are gone.
	NewPage bool `json:"newPage,omitempty"`
	// Filled is how many fields typed into since the last read now hold
	// exactly the text typed: they are left out of Text.
	Filled int `json:"filled,omitempty"`
}

// FindResult lists the lines of a fresh snapshot that match.
type FindResult struct {
	ID    string   `json:"snapshot"`
	Tab   string   `json:"tab"`
	Lines []string `json:"lines"`
}

// WaitOptions says what an agent waits for. With Text, Gone or Ref, the tab
// is read until the condition holds or Timeout passes; with none, the wait is
// just Time.
type WaitOptions struct {
	Tab   string // required with Text, Gone, Ref, Role or Loaded
	Text  string // optional: wait until this text is on the page
	Gone  string // optional: wait until this text is no longer on the page
	Ref   string // optional: wait until this element is in State
	State string // with Ref: one of RefStates
	// Role and Name: wait until an element of that role whose name holds
	// Name (any case) is on the page, with a ref to act on. Name may be
	// empty: any element of the role.
	Role, Name string
	// Loaded: wait until the tab has finished loading its page: no
	// navigation pending, the document read.
	Loaded  bool
	Time    time.Duration // optional: wait this long (at most MaxWait)
	Timeout time.Duration // optional: give up on Text or Gone after this; default and limit MaxWait
	// Handoff is a hand-off's id, for Session.WaitHandoff: wait until the
	// person ends it, at most Timeout.
	Handoff string // optional
}

// WaitResult says how the wait ended.
type WaitResult struct {
	Met     bool          `json:"met"`
	Waited  time.Duration `json:"waited"`
	ID      string        `json:"snapshot,omitempty"` // the last snapshot read; its refs are the session's latest
	Matched string        `json:"matched,omitempty"`  // a line with Text
	// HandoffState is, for a wait on a hand-off, how it stands: one of
	// HandoffWithPerson, HandoffDone, HandoffStopped, HandoffClosed.
	// Met is true once it is not HandoffWithPerson.
	HandoffState string `json:"handoff,omitempty"`
	// Origin is, for a hand-off the person ended with Done on another site
	// than the tab was shared on, the site they confirmed: the share is
	// bound to it now.
	Origin string `json:"origin,omitempty"`
}

// DesktopActRequest is real input outside any tab: a click at a point on
// screen (in points, as DesktopView reports windows), text typed into
// whatever has focus, or a key chord.
type DesktopActRequest struct {
	Act  vocab.Act // Click, DoubleClick, RightClick, Type or Key
	X, Y float64   // Click kinds: where, in points, when no Ref is given
	// Ref is a desktop ref from the session's latest desktop view: the
	// element to click, or to click and then type into. It is found again
	// right before the act.
	Ref string
	// Element is the agent's own words for what is there, optional. The
	// person sees them as the agent's claim, beside what Reins itself sees
	// there: the point, and the application and window under it.
	Element string
}

// DesktopOptions says how the elements of the window in front are shown.
type DesktopOptions struct {
	Boxes bool   // each element's box on screen
	Find  string // only the elements whose role or name holds these words
	// MaxChars bounds the elements' and tabs' text as [ReadOptions.MaxChars]
	// does: 0 is DefaultBudget less AnswerRoom, NoBudget none.
	MaxChars int
}

// DesktopView is what an agent may see of the desktop: the application in
// front and the top-level windows, front to back where known.
type DesktopView struct {
	Frontmost App      `json:"frontmost"`
	Windows   []Window `json:"windows"`
	// Elements are the elements of the window in front, when they were
	// read: an application's with desktop refs ("d7") from desktop snapshot
	// Snapshot, or, for a web browser, the tab it shows, from the page, with
	// its tab refs. Note says why there are none.
	Snapshot string `json:"snapshot,omitempty"`
	Elements string `json:"elements,omitempty"`
	Note     string `json:"note,omitempty"`
	// Tabs are the tabs open to the agent that browser windows behind the
	// window in front show on screen, each from its page with its tab refs.
	Tabs string `json:"tabs,omitempty"`
	// Ages say how long before the answer each part of it was read.
	Ages []Age `json:"ages,omitempty"`
}

// Age is how long before an answer one part of it was read; Stale marks one
// read longer ago than the desktop reads as fresh (2 s), which may have
// changed since.
type Age struct {
	Part  string        `json:"part"`
	Age   time.Duration `json:"age"`
	Stale bool          `json:"stale,omitempty"`
}

// RefStates are the states a wait on a ref can ask for. "hidden" also holds
// once the element is gone or the page has navigated, since its ref then
// names nothing on the page.
var RefStates = []string{"visible", "hidden", "enabled", "disabled", "checked", "unchecked", "expanded", "collapsed"}

// MaxWait bounds every wait, so an agent's call always comes back.
const MaxWait = 30 * time.Second

// MaxTypedText is the most characters one act may type: a long form
// field's worth, about two minutes of keystrokes. The person reads what is
// to be typed before allowing it, and the log keeps it.
const MaxTypedText = 10_000

// App is an application on the desktop, as an agent may see it: the one
// type every stage uses for it.
type App = vocab.App

// Window is one top-level window, in points.
type Window struct {
	App    App     `json:"app"`
	Title  string  `json:"title"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	W      float64 `json:"w"`
	H      float64 `json:"h"`
	Active bool    `json:"active"`
}

// MaxPlanSteps is the most steps one plan may hold: a long form and its
// submit button, few enough for a person to read in one popup.
const MaxPlanSteps = 30

// PlanRequest is a plan for one tab and one document: steps the agent
// means to take, put to the person in one popup. Each step fires only if
// it still matches the plan when its turn comes; anything else is asked on
// its own.
type PlanRequest struct {
	Tab      string
	Snapshot string // optional: the snapshot the steps' refs come from; default the session's latest
	Summary  string // optional: the agent's own words for the whole plan
	Steps    []PlanStepRequest
}

// PlanStepRequest is one step of a plan: an act on an element by its ref,
// or a key press in the tab.
type PlanStepRequest struct {
	Ref     string // the element; "" only for a key press
	Act     vocab.Act
	Element string // optional: the agent's own words for the target
	Reason  string // optional: why, in the agent's own words
}

// PlanResult says how a plan went, step by step.
type PlanResult struct {
	Plan    string           `json:"plan"`    // the plan's id
	Allowed int              `json:"allowed"` // how many steps the person allowed, from the first
	Steps   []PlanStepResult `json:"steps"`
	// Ended says why the plan ended before its last step, or "" when every
	// step ran.
	Ended string `json:"ended,omitempty"`
}

// PlanStepResult is one step's end.
type PlanStepResult struct {
	Step  int    `json:"step"` // from 1
	Done  string `json:"done,omitempty"`
	Audit int64  `json:"audit,omitempty"` // the step's "about to fire" row, when it fired
	// Asked says the step was put to the person on its own: it falls
	// under the risk table, or it no longer matched the plan.
	Asked bool   `json:"asked,omitempty"`
	Code  string `json:"code,omitempty"` // why it did not fire, or vocab.CodeMissed: it fired but missed
	Error string `json:"error,omitempty"`
	// Effect is where the step's events arrived (ActResult.Effect).
	Effect string `json:"effect,omitempty"`
}

// MaxHandoffReason is the most characters a hand-off's reason may have: a
// few sentences, which the person reads in a small window.
const MaxHandoffReason = 500

// HandoffRequest hands a tab to the person for a step of their own.
type HandoffRequest struct {
	Tab    string // required
	Reason string // required: what the person should do, in the agent's words
}

// HandoffResult names a hand-off in progress.
type HandoffResult struct {
	ID     string `json:"handoff"`
	Tab    string `json:"tab"`
	Origin string `json:"origin"` // the site the tab is shared on
	Audit  int64  `json:"audit"`  // the hand-off's row
}

// How a hand-off stands, in [WaitResult.HandoffState].
const (
	HandoffWithPerson = "with_person" // not ended yet: wait again
	HandoffDone       = "done"        // the person pressed Done; acts go through again
	HandoffStopped    = "stopped"     // the person pressed Stop
	HandoffClosed     = "tab_closed"  // the tab was closed
)
