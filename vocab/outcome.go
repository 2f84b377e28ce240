package vocab

import "fmt"

// Outcome words: the short word each audit row and each line of the
// activity strip ends with.
const (
	OutcomeDone        = "done"
	OutcomeRead        = "read"
	OutcomeRefused     = "refused"
	OutcomeDenied      = "denied"
	OutcomeTimeout     = "timeout"
	OutcomeFailed      = "failed"
	OutcomeAboutToFire = "about_to_fire" // an act's row before it fires; written only by the audit's Commit
	// OutcomeUnknown ends an act whose row said "about to fire" when Reins
	// stopped (a crash, kill -9) before it could say what happened.
	OutcomeUnknown = "unknown"
)

// Stable codes of refusals and failures, as agents and the activity strip
// see them.
const (
	// CodeShareRequired: the tab or the desktop is not shared at the level
	// asked; agents know it as "grant_required", a wire word that stays.
	CodeShareRequired   = "grant_required"
	CodeControlRequired = "control_required"
	CodeStaleRef        = "stale_ref"
	CodeChanged         = "changed"
	CodeDenied          = "denied_by_user"
	CodeTimeout         = "approval_timeout"
	CodeDenyListed      = "deny_listed_app"
	// CodeBrowserWindow: a desktop act would land in a web browser's
	// window; tabs are acted on with the browser tools, under their share.
	CodeBrowserWindow   = "browser_window"
	CodeObscured        = "obscured"
	CodeNotVisible      = "not_visible"
	CodeDisabled        = "disabled"
	CodeDisconnected    = "extension_disconnected"
	CodePaused          = "paused"
	CodePersonActive    = "person_active"
	CodeAgentNotAllowed = "agent_not_allowed"
	CodeNoTab           = "no_tab"
	CodeAuditFailed     = "audit_failed"
	CodeBadRequest      = "bad_request"
	CodeNoDisplay       = "no_display"
	// CodePathRefused: a file the agent named is not one Reins gives a
	// page (missing, not a regular file, too large, or in a store of keys,
	// credentials, passwords or browser profiles, or in Reins' own data).
	CodePathRefused = "path_refused"
	// CodeNoFileDialog: the click opened no file dialog of the browser's
	// own that took the keyboard focus, so nothing was typed.
	CodeNoFileDialog = "no_file_dialog"
	// CodeDialogOpen refuses a read or act on a tab whose page is blocked
	// by a JavaScript dialog: the page cannot answer until the dialog is
	// answered (browser_handle_dialog).
	CodeDialogOpen = "dialog_open"
	// CodePermissionRequired: the operating system has not given Reins a
	// permission the request needs (macOS Screen Recording); the message
	// says where the person turns it on.
	CodePermissionRequired = "permission_required"
	CodeOffScreen          = "off_screen"
	CodeUnknownKey         = "unknown_key"
	// CodeHiddenKey: text to type holds a character that would press a
	// key the person cannot see in it (a tab, a stray carriage return,
	// another line or page break) or that no key types; a line break is
	// "\n" alone, shown to the person as Enter.
	CodeHiddenKey   = "hidden_key"
	CodeTextTooLong = "text_too_long"
	// CodeAnchorUnreachable: the remote audit receiver the person marked
	// required does not answer, so acts are refused; reads go on.
	CodeAnchorUnreachable = "audit_anchor_unreachable"
	// CodeProgramChanged: the tab was shared on a loopback address and
	// another program now listens there, so its share ended.
	CodeProgramChanged = "program_changed"
	// CodeProgramUnknown: Reins could not tell which program listens on a
	// loopback tab's address, so it would not share the tab, or read or
	// act on it.
	CodeProgramUnknown = "program_unknown"
	// CodeOwnWindow: the act would land on one of Reins' own windows (its
	// popup, its windows, the terminal running reins serve), found by
	// process, never by name.
	CodeOwnWindow = "reins_window"
	// CodePersonTerminalHidden: reins serve is the person's door and Reins
	// cannot tell which window shows it (tmux, screen, ssh), so it puts no
	// input on the desktop.
	CodePersonTerminalHidden = "person_terminal_hidden"
	// CodeHandedOff: the agent handed the tab to the person for a step of
	// their own (browser_handoff); acts on it wait for their Done or Stop.
	CodeHandedOff = "handed_off"
	// CodePlanEnded: a step of a plan was not run because the plan had
	// ended (a step refused, the tab navigated, agents paused, its time
	// up) or the person allowed the plan only up to an earlier step.
	CodePlanEnded = "plan_ended"
	// CodeStopped: Reins stopped while the act was firing.
	CodeStopped = "reins_stopped"
	// CodeUnmapped: the pointer, sent to the element's point, was not over
	// the element (its frame said so), or the element's frame is rotated or
	// skewed: nothing was pressed.
	CodeUnmapped = "unmapped"
	// CodeMissed ends an act that fired but whose events its target's
	// frame saw arrive elsewhere, or not at all: done, but not on the
	// element.
	CodeMissed = "missed"
	// CodeStoppedByPerson: the person pressed a key or button, turned the
	// wheel or moved the mouse while the act fired: it stopped before its
	// next event and let go of what it held, and the next act on that tab
	// is asked afresh.
	CodeStoppedByPerson = "stopped_by_person"
	// CodeNoInputWatch: this desktop cannot tell the person's own mouse and
	// keyboard from synthetic input (no XInput 2, macOS without Input
	// Monitoring), so no act fires: the person could not stop it by
	// reaching in.
	CodeNoInputWatch = "no_input_watch"
	// CodeFocusMoved: the keyboard focus was not in the tab's window (the
	// person clicked elsewhere, a page's popup took it), so a tab's act
	// pressed no more keys; the message says who holds it and how far the
	// act went.
	CodeFocusMoved = "focus_moved"
	// CodeNotInTabWindow: another window than the tab's was under the
	// point of a tab's press, release or wheel, so the act stopped there;
	// the message says whose.
	CodeNotInTabWindow = "not_in_tab_window"
	// CodeTabWindowUnknown: Reins could not tell which window shows the
	// tab (none lies where the browser says, or several alike do), so it
	// sent no input rather than guess.
	CodeTabWindowUnknown = "tab_window_unknown"
	// CodePolicy: the organisation's policy does not allow it (a site
	// never shared, a level above its cap, an agent it does not list, a
	// plan it does not offer), or a policy is there that cannot be
	// honoured, and Reins then allows nothing; the message names the
	// policy's source and the rule.
	CodePolicy = "policy"

	CodeFailed = "failed"
)

// Error is a refusal or failure with a stable code and a sentence saying what
// to do next.
type Error struct {
	Code    string
	Message string
	Err     error // the cause, if any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an [Error] with code and a message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
