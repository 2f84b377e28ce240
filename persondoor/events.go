package persondoor

import (
	"strings"
	"time"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// EventKind names what changed.
type EventKind string

const (
	EventTabs        EventKind = "tabs"          // the tab list changed
	EventShare       EventKind = "share"         // a tab's share level changed
	EventActivity    EventKind = "activity"      // an attempt, with its outcome
	EventApproval    EventKind = "approval"      // an act waits for the person
	EventApprovalEnd EventKind = "approval_done" // it was answered, timed out or withdrawn
	EventActDone     EventKind = "act_done"      // an allowed act is over: fired, failed, refused or held
	EventConnection  EventKind = "connection"    // an extension connected or left
	EventPause       EventKind = "pause"         //
	EventZoom        EventKind = "zoom"          //
)

// EventAgents says the list of agents changed: one connected or left, or the
// person allowed or forgot one. The door re-reads [Engine.Agents].
const EventAgents EventKind = "agents"

// EventSettings says the person changed a setting; Event.Detail says which,
// as the audit row does.
const EventSettings EventKind = "settings"

// Event is one change, for the person's door.
type Event struct {
	Kind      EventKind
	Tab       string
	Level     vocab.Level
	Activity  *Activity
	Request   *vocab.Request // EventApproval, EventApprovalEnd, EventActDone
	Decision  vocab.Decision // EventApprovalEnd
	Connected bool
	Profile   string
	Paused    bool
	Zoom      float64
	Detail    string
}

// Activity is one line of a tab's activity strip. Its texts are already
// rendered for a person (see internal/plain): Agent names the real process
// first, and nothing a page or an agent wrote reaches them raw.
type Activity struct {
	Time    time.Time `json:"time"`
	Agent   string    `json:"agent"`
	Act     string    `json:"act"` // the act as a sentence
	Kind    string    `json:"kind"`
	Outcome string    `json:"outcome"` // done, read, refused, denied, timeout, failed, unknown
	Code    string    `json:"code,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

// StoppedWords say the outcome of an act that was firing when Reins
// stopped without a word (vocab.OutcomeUnknown).
const StoppedWords = "outcome unknown (Reins stopped)"

// OutcomeWords says an attempt's outcome the way the person reads it in an
// activity strip, Reins' own and Chrome's ("done", "refused — tab not
// shared", "denied by you"), and whether Reins refused it, which a strip
// marks in amber so that a tab probed while unshared stands out. What the
// words quote of the error's detail is rendered for a person.
func OutcomeWords(a Activity) (words string, refused bool) {
	switch a.Outcome {
	case vocab.OutcomeDone:
		return "done", false
	case vocab.OutcomeRead:
		return "read", false
	case vocab.OutcomeDenied:
		if a.Code == vocab.CodeAgentNotAllowed {
			return "not allowed by you", false
		}
		return "denied by you", false
	case vocab.OutcomeTimeout:
		return "timed out — no answer", false
	case vocab.OutcomeFailed:
		if d := plain.Text(firstClause(a.Detail), plain.DetailMax); d != "" {
			return "failed: " + d, false
		}
		return "failed", false
	case vocab.OutcomeUnknown:
		return StoppedWords, false
	case vocab.OutcomeRefused:
		switch a.Code {
		case vocab.CodePersonActive:
			return "held — you were using the mouse or keyboard", true
		case vocab.CodeStoppedByPerson:
			if strings.Contains(a.Detail, "pressed a key") {
				return "stopped — you took the keyboard", false
			}
			return "stopped — you took the mouse", false
		case vocab.CodeFocusMoved:
			return "stopped — another window took the keys", true
		case vocab.CodeNotInTabWindow:
			return "stopped — another window was under the pointer", true
		}
		return "refused — " + refusalWords(a), true
	}
	return plain.Text(a.Outcome, plain.NameMax), false
}

func refusalWords(a Activity) string {
	switch a.Code {
	case vocab.CodeShareRequired:
		if strings.Contains(a.Detail, "desktop") {
			return "desktop not shared"
		}
		if strings.Contains(a.Detail, "left the site") {
			return "tab left the site it was shared on"
		}
		return "tab not shared"
	case vocab.CodeControlRequired:
		return "read only"
	case vocab.CodeStaleRef:
		return "page changed, new snapshot needed"
	case vocab.CodeChanged:
		return "the element changed since the snapshot"
	case vocab.CodeDenyListed:
		app := "a protected app"
		if _, rest, ok := strings.Cut(a.Detail, "(deny list: "); ok {
			if name, _, ok := strings.Cut(rest, ")"); ok && plain.Text(name, plain.NameMax) != "" {
				app = plain.Text(name, plain.NameMax)
			}
		}
		if strings.Contains(a.Detail, "under the pointer") {
			return app + " is under the pointer"
		}
		return app + " is in front"
	case vocab.CodeBrowserWindow:
		return "a web browser is there: tabs are shared one by one"
	case vocab.CodeObscured:
		return "something covers the target"
	case vocab.CodeNotVisible:
		return "the target is not visible"
	case vocab.CodeDisabled:
		return "the control is disabled"
	case vocab.CodeDisconnected:
		return "Chrome extension not connected"
	case vocab.CodePaused:
		return "agents paused"
	case vocab.CodeAgentNotAllowed:
		return "agent not allowed yet"
	case vocab.CodeNoTab:
		return "no such tab"
	case vocab.CodeAuditFailed:
		return "the audit log could not be written"
	case vocab.CodeBadRequest:
		return "the request made no sense"
	case vocab.CodeNoDisplay:
		return "no display, so Reins cannot click or type here"
	case vocab.CodeOwnWindow:
		return "it would land on Reins' own window"
	case vocab.CodePersonTerminalHidden:
		return "Reins cannot see the terminal running reins serve"
	case vocab.CodeHandedOff:
		return "the tab is handed to you"
	case vocab.CodePlanEnded:
		return "the plan had ended"
	case vocab.CodeHiddenKey:
		return "the text held a key you would not have seen"
	case vocab.CodeTabWindowUnknown:
		return "Reins cannot tell which window shows the tab"
	case vocab.CodePolicy:
		return "not allowed by your organisation's policy"
	case vocab.CodeNoInputWatch:
		return "Reins cannot tell your mouse and keyboard from its own here"
	}
	if code := plain.Text(strings.ReplaceAll(a.Code, "_", " "), plain.NameMax); code != "" {
		return code
	}
	return "not allowed"
}

// firstClause keeps an error's first clause, which says what happened.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ";\n"); i > 0 {
		s = s[:i]
	}
	return s
}
