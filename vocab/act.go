package vocab

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reins-app/reins/internal/plain"
)

// ActKind names what an agent asks to do.
type ActKind string

const (
	Click       ActKind = "click"
	DoubleClick ActKind = "double_click"
	RightClick  ActKind = "right_click"
	Hover       ActKind = "hover"
	Type        ActKind = "type"
	Key         ActKind = "key"
	Scroll      ActKind = "scroll"
	Drag        ActKind = "drag"
	Navigate    ActKind = "navigate"
	Back        ActKind = "back"
	Forward     ActKind = "forward"
	Activate    ActKind = "activate" // select a tab and focus its window
	CloseTab    ActKind = "close_tab"
	NewTab      ActKind = "new_tab"  // open URL in a new tab beside the target tab
	Read        ActKind = "read"     // snapshots, screenshots: never asked, but audited
	Share       ActKind = "share"    // the person changed a tab's share level
	Settings    ActKind = "settings" // the person changed a setting
	Connect     ActKind = "connect"  // an agent's first connection, which the person allows once
	Plan        ActKind = "plan"     // an agent's plan of several steps, put to the person whole
	Handoff     ActKind = "handoff"  // an agent hands a step of the tab to the person
	// Policy is Reins' own row about the organisation's policy in force
	// and its own binary: at start, at each change, and as a heartbeat.
	Policy ActKind = "policy"
	// Dialog answers the JavaScript dialog (alert, confirm, prompt, a
	// leave question) a tab shows, with keys: accept or dismiss, and for a
	// prompt the text to answer.
	Dialog ActKind = "dialog"
	// Upload gives a page a file through its file chooser: a real click
	// on the element that opens it, then the path typed into the native
	// file dialog (Act.File).
	Upload ActKind = "upload"
)

// ActKinds lists every kind, in the order the audit viewer offers them.
var ActKinds = []ActKind{Click, DoubleClick, RightClick, Hover, Type, Key, Scroll, Drag, Navigate, Back, Forward,
	Activate, CloseTab, NewTab, Dialog, Upload, Plan, Handoff, Read, Connect, Share, Settings, Policy}

// Kinds of JavaScript dialog, as Act.Dialog names them.
const (
	DialogAlert   = "alert"
	DialogConfirm = "confirm"
	DialogPrompt  = "prompt"
	DialogLeave   = "beforeunload" // "Leave site?", from a page's beforeunload handler
)

// kindTraits is what every stage asks of a kind of act, in one place: a
// kind added here is known to the checks, the plan, the scroll into view
// and the executor's landing at once. A kind not in the table is none of
// these, which every stage refuses.
type kindTraits struct {
	input     bool // real OS input, fired by the executor
	onElement bool // done to an element a snapshot's ref names
	intoView  bool // scrolled into view first when its element is out of it
	atPoint   bool // lands at the one point of its element or the desktop
	inPlan    bool // may be a step of a plan
}

var traits = map[ActKind]kindTraits{
	Click:       {input: true, onElement: true, intoView: true, atPoint: true, inPlan: true},
	DoubleClick: {input: true, onElement: true, intoView: true, atPoint: true, inPlan: true},
	RightClick:  {input: true, onElement: true, intoView: true, atPoint: true, inPlan: true},
	Hover:       {input: true, onElement: true, intoView: true, atPoint: true, inPlan: true},
	Type:        {input: true, onElement: true, intoView: true, inPlan: true},
	Scroll:      {input: true, onElement: true, atPoint: true, inPlan: true},
	Drag:        {input: true, onElement: true},
	Key:         {input: true, inPlan: true},
	Dialog:      {input: true},
	Upload:      {input: true}, // on an element too, by its own way (core/upload.go)
}

// IsInput reports whether the act is real OS input (fired by the executor),
// as opposed to a read or a browser-level call.
func (k ActKind) IsInput() bool { return traits[k].input }

// OnElement reports whether the act is done to an element a snapshot's
// ref names, and so needs one.
func (k ActKind) OnElement() bool { return traits[k].onElement }

// IntoView reports whether the act scrolls its element into view first
// when the element is scrolled out of it.
func (k ActKind) IntoView() bool { return traits[k].intoView }

// AtPoint reports whether the act lands at one point: its element's, or
// the desktop's it names. A drag lands at two; keys where the focus is.
func (k ActKind) AtPoint() bool { return traits[k].atPoint }

// InPlan reports whether the act may be a step of a plan, which stays in
// one document: keys, and acts on an element by ref but a drag.
func (k ActKind) InPlan() bool { return traits[k].inPlan }

// Act is what an agent asks for, exactly as the person approves it.
type Act struct {
	Kind   ActKind `json:"kind"`
	Text   string  `json:"text,omitempty"`   // Type: the text
	Secret bool    `json:"secret,omitempty"` // Type: into a password or payment field
	Clear  bool    `json:"clear,omitempty"`  // Type: select all and delete first
	Submit bool    `json:"submit,omitempty"` // Type: press Enter after
	// Overlong is, for a Type act refused because its text was too long to
	// type, the text's length in characters, kept in place of the text.
	Overlong int `json:"overlong,omitempty"`
	// Withheld is, for a Type act refused before its field was found (a
	// stale ref, no Control, the extension gone), the text's length in
	// characters, kept in place of the text: the field may have been a
	// password's, which the record never holds.
	Withheld int    `json:"withheld,omitempty"`
	Keys     string `json:"keys,omitempty"` // Key: a chord such as "Control+Shift+K"
	// Plan, Step and Steps place an act that is a step of a plan: the
	// plan's id, the step's number from 1, and how many steps it has.
	Plan  string `json:"plan,omitempty"`
	Step  int    `json:"step,omitempty"`
	Steps int    `json:"steps,omitempty"`
	// DX and DY are, for a Scroll, wheel notches (right and down are
	// positive); for a Drag with no To, how far it moves, in screen points.
	DX  int    `json:"dx,omitempty"`
	DY  int    `json:"dy,omitempty"`
	URL string `json:"url,omitempty"` // Navigate
	// To is, for a Drag, the name of the element it drops on, as the page
	// shows it.
	To string `json:"to,omitempty"`
	// Shares is, for a NewTab, that the person's yes shares the new tab
	// with the agent at Control, as the target tab, on the same site, is.
	Shares bool `json:"shares,omitempty"`
	// Reach is, for an act on an element scrolled out of view, that Reins
	// turns the wheel over the box that hides it until it shows, then acts:
	// one act, asked about once.
	Reach bool `json:"reach,omitempty"`
	// Accept is, for a Dialog, that it is accepted (OK, Leave); else it is
	// dismissed (Cancel). Text is a prompt's answer.
	Accept bool `json:"accept,omitempty"`
	// Dialog is, for a Dialog, which kind the page raised (DialogConfirm…).
	Dialog string `json:"dialog,omitempty"`
	// File is, for an Upload, the file given to the page, as Reins found
	// it on disk before the person was asked. One act gives one file: a
	// file dialog's location field takes one path.
	File File `json:"file,omitzero"`
}

// File is a file an Upload gives a page: its path with every symbolic
// link resolved (what the person is shown and what is typed), and its size
// in bytes.
type File struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// Sentence renders the act the way the popup and the activity strip say it,
// without ever showing secret text. Whatever the page or the agent wrote
// (the target's name, the text to type, keys, a URL) goes through the
// renderer people read: quoted where it is page or agent text, cleaned and
// capped.
func (a Act) Sentence(target string) string {
	s := a.sentence(target)
	if a.Reach && a.Kind.IntoView() {
		return "Scroll to and " + strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

func (a Act) sentence(target string) string {
	on := ""
	if target != "" {
		on = " " + plain.Quote(target, plain.NameMax)
	}
	switch a.Kind {
	case Click:
		return "Click" + on
	case DoubleClick:
		return "Double-click" + on
	case RightClick:
		return "Right-click" + on
	case Hover:
		return "Hover over" + on
	case Type:
		into := ""
		if target != "" {
			into = plain.Quote(target, plain.NameMax)
		}
		return a.typeSentence(into)
	case Key:
		return "Press " + a.keys()
	case Scroll:
		return fmt.Sprintf("Scroll %s%s", scrollWords(a.DX, a.DY), on)
	case Drag:
		if a.To != "" {
			return "Drag" + on + " onto " + plain.Quote(a.To, plain.NameMax)
		}
		if a.DX != 0 || a.DY != 0 {
			return "Drag" + on + " " + scrollWords(a.DX, a.DY) + " points"
		}
		return "Drag" + on
	case Navigate:
		return "Open " + plain.Text(a.URL, plain.URLMax)
	case Back:
		return "Go back"
	case Forward:
		return "Go forward"
	case Activate:
		return "Bring the tab to the front"
	case CloseTab:
		return "Close the tab"
	case NewTab:
		s := "Open " + plain.Text(a.URL, plain.URLMax) + " in a new tab"
		if a.Shares {
			return s + ", shared with the agent at Control like" + on
		}
		return s + ", not shared with the agent"
	case Share:
		return "Change how the tab is shared"
	case Settings:
		return "Change a setting"
	case Policy:
		return "The organisation's policy in force"
	case Read:
		if target == "" {
			return "Read the page"
		}
		return "Read" + on
	case Connect:
		return "Connect to Reins for the first time"
	case Plan:
		plan := "Run a plan of several steps"
		if a.Steps > 0 {
			plan = fmt.Sprintf("Run a plan of %d steps", a.Steps)
		}
		if a.Text == "" {
			return plan
		}
		return plan + "; the agent says " + plain.Quote(a.Text, plain.NameMax)
	case Dialog:
		return a.dialogSentence(target)
	case Handoff:
		if a.Text == "" {
			return "Hand the tab to you for a step of your own"
		}
		return "Hand the tab to you for a step of your own; the agent says " + plain.Quote(a.Text, plain.NameMax)
	case Upload:
		return uploadSentence(a.File, on)
	}
	return plain.Text(string(a.Kind), plain.NameMax) + on
}

// desktopSentence says a desktop act with what Reins itself sees where it
// lands: t.Name is Reins' own words for the point, t.App the application
// there (or in front, for typing and keys). The agent's words for the
// target (t.Claim) are not part of it; front ends show them apart, as the
// agent's.
func (a Act) desktopSentence(t Target) string {
	in := ""
	if t.App != "" {
		in = " in " + plain.Text(t.App, 0)
	}
	// An element found by its desktop ref is named as Reins read it from
	// the application: its role, and its name, which is the application's
	// text, quoted. Without one the name is Reins' own words (a point).
	what := plain.Text(t.Name, plain.NameMax)
	if t.Ref != "" {
		what = plain.Text(t.Role, plain.NameMax) + " " + plain.Quote(t.Name, plain.NameMax)
	}
	switch a.Kind {
	case Click, DoubleClick, RightClick:
		verb := map[ActKind]string{Click: "Click", DoubleClick: "Double-click", RightClick: "Right-click"}[a.Kind]
		if t.Name == "" && t.Ref == "" {
			return verb + in
		}
		return verb + " " + what + in
	case Type:
		into := ""
		switch {
		case t.Ref != "":
			into = what + in
		case t.App != "":
			into = plain.Text(t.App, 0)
		}
		return a.typeSentence(into)
	case Key:
		return "Press " + a.keys() + in
	case Read:
		return "Read the desktop"
	}
	return a.Sentence(t.Name) + in
}

// typeSentence says a Type act into what (already rendered; "" for
// wherever the focus is): the clearing first when it clears, the text with
// each line break shown, and how many times Enter is pressed in all, which
// no cut of the text can hide.
func (a Act) typeSentence(into string) string {
	var s string
	switch {
	case a.Clear && into != "":
		s = "Clear " + into + " and type " + a.typed()
	case a.Clear:
		s = "Clear the focused field and type " + a.typed()
	case into != "":
		s = "Type " + a.typed() + " into " + into
	default:
		s = "Type " + a.typed()
	}
	switch n := a.Enters(); {
	case n == 0:
	case n == 1 && a.Submit:
		s += " and press Enter"
	case n == 1:
		s += " and press Enter once"
	default:
		s += fmt.Sprintf(" and press Enter %d times", n)
	}
	return s
}

// Enters is how many times a Type act presses Enter: once for each line
// break in its text ("\n", or "\r\n"), and once more after the text when
// it submits. An Enter sends or submits what it is typed into, so every
// rule that asks about Enter counts these. A withheld or overlong text
// is counted from nothing: it is never typed.
func (a Act) Enters() int {
	if a.Kind != Type {
		return 0
	}
	n := LineBreaks(a.Text)
	if a.Submit {
		n++
	}
	return n
}

// LineBreaks counts the line breaks of text as they are typed: each "\n",
// with "\r\n" counted once.
func LineBreaks(text string) int { return strings.Count(text, "\n") }

// typed is the text of a Type act as the person reads it before it is
// typed: quoted, each line break shown as ⏎, and its length said when the
// quote had to be cut; for a secret field only its length.
func (a Act) typed() string {
	n := utf8.RuneCountInString(a.Text)
	if a.Overlong > 0 {
		return fmt.Sprintf("%d characters (too long to type)", a.Overlong)
	}
	if a.Withheld > 0 {
		return fmt.Sprintf("%d characters (not kept: the field was never found)", a.Withheld)
	}
	if a.Secret {
		return fmt.Sprintf("%d characters", n)
	}
	q := plain.QuoteTyped(a.Text, plain.TypedMax)
	if strings.HasSuffix(q, plain.Ellipsis+"”") {
		q += fmt.Sprintf(" (%d characters in all)", n)
	}
	return q
}

func (a Act) keys() string {
	if k := plain.Text(a.Keys, plain.NameMax); k != "" {
		return k
	}
	return "no key"
}

func scrollWords(dx, dy int) string {
	var parts []string
	if dy > 0 {
		parts = append(parts, fmt.Sprintf("down %d", dy))
	} else if dy < 0 {
		parts = append(parts, fmt.Sprintf("up %d", -dy))
	}
	if dx > 0 {
		parts = append(parts, fmt.Sprintf("right %d", dx))
	} else if dx < 0 {
		parts = append(parts, fmt.Sprintf("left %d", -dx))
	}
	if len(parts) == 0 {
		return "by nothing"
	}
	return strings.Join(parts, ", ")
}

// dialogSentence says the answer to a JavaScript dialog; message is the
// dialog's text, the page's, quoted and labelled as the page's, or "" when
// Reins could not read it.
func (a Act) dialogSentence(message string) string {
	kind := a.Dialog
	if kind == "" || kind == DialogLeave {
		kind = "dialog"
	}
	var s string
	switch {
	case a.Dialog == DialogLeave && a.Accept:
		return "Leave the page, answering the browser's “Leave site?” question"
	case a.Dialog == DialogLeave:
		return "Stay on the page, answering the browser's “Leave site?” question"
	case a.Accept && a.Dialog == DialogPrompt && a.Text != "":
		s = "Answer the page's prompt with " + a.typed() + " and press OK"
	case a.Accept:
		s = "Press OK in the page's " + kind
	default:
		s = "Press Cancel in the page's " + kind
	}
	if message == "" {
		return s + " (Reins could not read its message)"
	}
	return s + "; the page's message says " + plain.Quote(message, plain.TypedMax)
}

// uploadSentence says an Upload with the file's name, size and folder:
// what the person checks before a file leaves the computer. The path came
// from the agent, so it is quoted and cleaned like any agent's text.
func uploadSentence(f File, on string) string {
	s := "Upload "
	if f.Path == "" {
		s += "no file"
	} else {
		s += FileWords(f)
	}
	if on != "" {
		s += " through" + on
	}
	return s
}

// FileWords names a file as the person reads it: its name quoted, its
// size, and the folder it is in.
func FileWords(f File) string {
	dir, name := f.Path, f.Path
	if i := strings.LastIndexByte(f.Path, '/'); i >= 0 {
		dir, name = f.Path[:i], f.Path[i+1:]
		if dir == "" {
			dir = "/"
		}
	}
	return fmt.Sprintf("%s (%s) from the folder %s", plain.Quote(name, plain.NameMax), SizeWords(f.Size), plain.Quote(dir, plain.URLMax))
}

// SizeWords says a number of bytes the way people read file sizes.
func SizeWords(n int64) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
}
