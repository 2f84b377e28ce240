// Package vocab holds the words every layer of Reins speaks: who asks (an
// [Agent]), what they ask for (an [Act] of some [ActKind] on a [Target]),
// how it is put to the person (a [Request]), how far a tab is shared (a
// [Level]), the person's answer (a [Decision]), and how an attempt ended
// (an outcome word, and an [Error] with a stable code).
//
// It is a leaf: it imports nothing of Reins but the text renderer, so the
// stages, core and both doors can share it.
package vocab

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
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
	// Terminal is, for a desktop act, that App is a terminal emulator,
	// where a line break or Enter runs the command on its line.
	Terminal bool `json:"terminal,omitempty"`
	// Leads is, for an element that takes the page somewhere when it is
	// activated (a link, a form's submit control; for a key act, the
	// element with the keyboard focus), where, as an absolute address the
	// page wrote; "" otherwise.
	Leads string `json:"leads,omitempty"`
	// Form is, for a text field or a form's submit control, what its form
	// submits; nil otherwise.
	Form *Form `json:"form,omitempty"`
}

// Form is what a form submits, through its submit control or through Enter
// pressed in one of its fields, as the page's own markup says. For a field
// outside any form it names only the button beside the field (Beside).
type Form struct {
	Action string `json:"action,omitempty"` // where it submits, an absolute address; "" when unknown
	Method string `json:"method,omitempty"` // get, post or dialog
	// Submit is the name of the control that submits it: the target itself
	// when Control, else the form's default button, the one Enter in a
	// field presses; for a field outside any form, the button beside it.
	Submit  string `json:"submit,omitempty"`
	Control bool   `json:"control,omitempty"` // the target is the form's submit control
	Beside  bool   `json:"beside,omitempty"`  // no form: Submit is the button beside the field
	// Fields are the kinds of field the form holds that say what it does:
	// "amount", "card", "iban", "account".
	Fields  []string `json:"fields,omitempty"`
	Payment bool     `json:"payment,omitempty"` // it holds a payment card's field
}

// SameMotion reports whether t sets in motion what u does: it leads to
// the same address and submits the same form.
func (t Target) SameMotion(u Target) bool {
	if t.Leads != u.Leads {
		return false
	}
	a, b := t.Form, u.Form
	if a == nil || b == nil {
		return a == b
	}
	return a.Action == b.Action && a.Method == b.Method && a.Submit == b.Submit && a.Control == b.Control &&
		a.Beside == b.Beside && slices.Equal(a.Fields, b.Fields) && a.Payment == b.Payment
}

// PressesEnter reports whether a presses Enter: a key chord whose key is
// Enter (or Control+J or Control+M, which terminals and some fields read
// as Enter), or typing that ends with Enter or holds a line break (which
// is typed as Enter).
func PressesEnter(a Act) bool {
	switch a.Kind {
	case Key:
		return chordPressesEnter(a.Keys)
	case Type:
		return a.Enters() > 0
	}
	return false
}

func chordPressesEnter(chord string) bool {
	parts := strings.Split(strings.ToLower(strings.ReplaceAll(chord, " ", "")), "+")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		return false // "Control++": the plus key
	}
	switch parts[len(parts)-1] {
	case "enter", "return", "kp_enter", "numpadenter", "linefeed":
		return true
	case "j", "m":
		for _, m := range parts[:len(parts)-1] {
			if m == "control" || m == "ctrl" || m == "controlormeta" {
				return true
			}
		}
	}
	return false
}

// Destination is where a sets the page off to, as the page's markup says: a
// click's target's link or form, or for Enter, the focused link or button's,
// else the form of the field it is pressed in. "" when it goes nowhere Reins
// knows of.
func Destination(a Act, t Target) string {
	switch a.Kind {
	case Click, DoubleClick:
		return t.Leads
	}
	if !PressesEnter(a) {
		return ""
	}
	if t.Leads != "" {
		return t.Leads
	}
	if t.Form != nil && !t.Form.Beside {
		return t.Form.Action
	}
	return ""
}

// OriginOf is the origin (scheme://host[:port], default ports dropped) of an
// http or https address, or "".
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Host)
	switch u.Scheme {
	case "http":
		host = strings.TrimSuffix(host, ":80")
	case "https":
		host = strings.TrimSuffix(host, ":443")
	default:
		return ""
	}
	return u.Scheme + "://" + host
}

// LeavesOrigin reports whether a sends the page to another origin than the
// tab's: its Destination has another origin, or none Reins can read (a
// data: or file: address).
func LeavesOrigin(a Act, t Target) bool {
	d := Destination(a, t)
	return d != "" && (t.Origin == "" || OriginOf(d) != t.Origin)
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
	// Busy counts the times this act was approved and then held back,
	// because the person was using the mouse or keyboard when it was about
	// to fire. An act held back so is always put to the person: a remembered
	// "allow on this tab" does not cover it.
	Busy int `json:"held,omitempty"`
	// Remember reports whether "allow on this tab for a while" may be offered:
	// never for secret fields or for navigation to another origin.
	Rememberable bool `json:"rememberable"`
	// Risk is, for an act Reins always asks about on its own (typing into
	// a password or payment field, taking the tab to another site, an
	// element whose label says it buys, pays, sends or deletes), the
	// warning the person reads with it, in Reins' own words; "" for any
	// other act. The approvals broker sets it from its risk table.
	Risk string `json:"risk,omitempty"`
	// Plan is, for a plan (Act.Kind Plan), its steps in order; the person
	// allows it whole, up to a step, or not at all. Act.Text holds the
	// agent's own summary of it.
	Plan []PlanStep `json:"plan,omitempty"`
}

// PlanStep is one step of a plan as the person reads it.
type PlanStep struct {
	Act    Act    `json:"act"`
	Target Target `json:"target"`
	// Reason is the agent's own words for the step; Reins has not
	// checked them.
	Reason string `json:"reason,omitempty"`
	// Box is the step's target within the plan's Picture, in its pixels,
	// or within its Sketch; nil when it is not in view.
	Box *Box `json:"box,omitempty"`
	// Risk is the warning of the risk table's rule the step falls under:
	// such a step is asked again on its own when its turn comes. The
	// approvals broker sets it.
	Risk string `json:"risk,omitempty"`
}

// Sentence is the step as the person reads it, in the words of a single
// prompt.
func (s PlanStep) Sentence() string { return SentenceOf(s.Act, s.Target) }

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

// StepSentence is an act as the person reads it in an activity strip: a
// step of a plan says which one it is ("Step 3 of 20: Click “Email”").
func StepSentence(a Act, t Target) string {
	if a.Step > 0 && a.Kind != Plan {
		return fmt.Sprintf("Step %d of %d: %s", a.Step, a.Steps, SentenceOf(a, t))
	}
	return SentenceOf(a, t)
}

// SentenceOf is an act on a target as the person reads it; a desktop act
// says where it lands as Reins sees it.
func SentenceOf(a Act, t Target) string {
	if t.Desktop {
		return a.desktopSentence(t)
	}
	s := a.Sentence(t.Name)
	if LeavesOrigin(a, t) {
		// Where it goes is what the person must check, so it is shown whole.
		return s + ", which opens " + plain.Text(Destination(a, t), 0)
	}
	// What Enter presses, as the page's markup says.
	if f := t.Form; f != nil && f.Submit != "" && !f.Control && PressesEnter(a) {
		if f.Beside {
			return s + ", next to " + plain.Quote(f.Submit, plain.NameMax)
		}
		return s + ", which presses " + plain.Quote(f.Submit, plain.NameMax)
	}
	return s
}

// Decision is the person's answer.
type Decision int

const (
	Deny      Decision = iota // the default, and what silence means
	AllowOnce                 //
	AllowTab                  // allow this kind of act on this tab for a while
	// Remembered is how an act a remembered AllowTab covered was approved;
	// only the approvals broker gives it, never a person.
	Remembered
	// AllowPlan is how a step of a plan the person allowed was approved;
	// only the approvals broker gives it, for a step that matched the plan.
	AllowPlan
)

func (d Decision) String() string {
	switch d {
	case AllowOnce:
		return "allowed once"
	case AllowTab:
		return "allowed on this tab"
	case Remembered:
		return "allowed (remembered)"
	case AllowPlan:
		return "allowed in a plan"
	}
	return "denied"
}

// Level is how far a tab (or the desktop) is shared.
type Level int

const (
	None     Level = iota // nothing may be read or done
	ReadOnly              // snapshots and screenshots, no acts
	Control               // acts, each approved by the person
)

func (l Level) String() string {
	switch l {
	case ReadOnly:
		return "read"
	case Control:
		return "control"
	}
	return "none"
}

// ParseLevel reads "none", "read" or "control".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "none", "not shared", "off":
		return None, nil
	case "read", "readonly", "read-only":
		return ReadOnly, nil
	case "control":
		return Control, nil
	}
	return None, fmt.Errorf("unknown share level %q: use none, read or control", s)
}

// DesktopKey is the share key of the desktop tools.
const DesktopKey = "desktop"
