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
)

// IsInput reports whether the act is real OS input (fired by the executor),
// as opposed to a read or a browser-level call.
func (k ActKind) IsInput() bool {
	switch k {
	case Click, DoubleClick, RightClick, Hover, Type, Key, Scroll, Drag:
		return true
	}
	return false
}

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
	DX    int    `json:"dx,omitempty"`  // Scroll: wheel notches, right is positive
	DY    int    `json:"dy,omitempty"`  // Scroll: wheel notches, down is positive
	URL   string `json:"url,omitempty"` // Navigate
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
}

// Sentence renders the act the way the popup and the activity strip say it,
// without ever showing secret text. Whatever the page or the agent wrote
// (the target's name, the text to type, keys, a URL) goes through the
// renderer people read: quoted where it is page or agent text, cleaned and
// capped.
func (a Act) Sentence(target string) string {
	s := a.sentence(target)
	if a.Reach {
		switch a.Kind {
		case Click, DoubleClick, RightClick, Hover, Type:
			return "Scroll to and " + strings.ToLower(s[:1]) + s[1:]
		}
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
		s := "Type " + a.typed()
		if target != "" {
			s += " into " + plain.Quote(target, plain.NameMax)
		}
		if a.Submit {
			s += " and press Enter"
		}
		return s
	case Key:
		return "Press " + a.keys()
	case Scroll:
		return fmt.Sprintf("Scroll %s%s", scrollWords(a.DX, a.DY), on)
	case Drag:
		if a.To != "" {
			return "Drag" + on + " onto " + plain.Quote(a.To, plain.NameMax)
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
	case Handoff:
		if a.Text == "" {
			return "Hand the tab to you for a step of your own"
		}
		return "Hand the tab to you for a step of your own; the agent says " + plain.Quote(a.Text, plain.NameMax)
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
		s := "Type " + a.typed()
		switch {
		case t.Ref != "":
			s += " into " + what + in
		case t.App != "":
			s += " into " + plain.Text(t.App, 0)
		}
		if a.Submit {
			s += " and press Enter"
		}
		return s
	case Key:
		return "Press " + a.keys() + in
	case Read:
		return "Read the desktop"
	}
	return a.Sentence(t.Name) + in
}

// typed is the text of a Type act as the person reads it before it is
// typed: quoted, and its length said when the quote had to be cut; for a
// secret field only its length.
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
	q := plain.Quote(a.Text, plain.TypedMax)
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
