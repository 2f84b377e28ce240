package core

import (
	"errors"
	"fmt"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/grounding"
)

// Stable codes of refusals and failures, as agents and the activity strip
// see them.
const (
	CodeGrantRequired   = "grant_required"
	CodeControlRequired = "control_required"
	CodeStaleRef        = "stale_ref"
	CodeChanged         = "changed"
	CodeDenied          = "denied_by_user"
	CodeTimeout         = "approval_timeout"
	CodeDenyListed      = "deny_listed_app"
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
	CodeOffScreen       = "off_screen"
	CodeUnknownKey      = "unknown_key"
	CodeTextTooLong     = "text_too_long"
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
	CodeFailed         = "failed"
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

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Outcome words of the activity strip and the audit log.
const (
	OutcomeDone    = audit.OutcomeDone
	OutcomeRead    = audit.OutcomeRead
	OutcomeRefused = audit.OutcomeRefused
	OutcomeDenied  = audit.OutcomeDenied
	OutcomeTimeout = audit.OutcomeTimeout
	OutcomeFailed  = audit.OutcomeFailed
)

// classify turns any stage's error into an *Error and its outcome word.
func classify(err error) (*Error, string) {
	var ce *Error
	if errors.As(err, &ce) {
		return ce, outcomeOf(ce.Code)
	}
	var re *protocol.Error
	switch {
	case errors.Is(err, approvals.ErrNotShared):
		ce = &Error{Code: CodeGrantRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrDesktopNotShared):
		ce = &Error{Code: CodeGrantRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrOriginChanged):
		ce = &Error{Code: CodeGrantRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrProgramChanged):
		ce = &Error{Code: CodeProgramChanged, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrNoDisplay):
		ce = &Error{Code: CodeNoDisplay, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrOffScreen):
		ce = &Error{Code: CodeOffScreen, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrUnknownKey):
		ce = &Error{Code: CodeUnknownKey, Message: err.Error() + "; nothing was pressed", Err: err}
	case errors.Is(err, approvals.ErrReadOnly):
		ce = &Error{Code: CodeControlRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrTimeout):
		ce = &Error{Code: CodeTimeout, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrDenied), errors.Is(err, approvals.ErrShutdown), errors.Is(err, approvals.ErrNoAnswerer):
		ce = &Error{Code: CodeDenied, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrStaleRef):
		ce = &Error{Code: CodeStaleRef, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrNoFrame):
		ce = &Error{Code: CodeNotVisible, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrNotVisible):
		ce = &Error{Code: CodeNotVisible, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrDenyListed):
		ce = &Error{Code: CodeDenyListed, Message: err.Error() + "; nothing was done", Err: err}
	case errors.Is(err, executor.ErrPersonActive):
		ce = &Error{Code: CodePersonActive, Message: "held: the person used the mouse or keyboard after the act was approved, so nothing was fired; " + err.Error(), Err: err}
	case errors.Is(err, audit.ErrAnchorUnreachable):
		ce = &Error{Code: CodeAnchorUnreachable, Message: err.Error() + "; nothing was done", Err: err}
	case errors.Is(err, audit.ErrWrite):
		ce = &Error{Code: CodeAuditFailed, Message: err.Error(), Err: err}
	case errors.Is(err, bridge.ErrNotConnected), errors.Is(err, bridge.ErrDisconnected), errors.Is(err, bridge.ErrTimeout):
		ce = &Error{Code: CodeDisconnected, Message: err.Error(), Err: err}
	case errors.As(err, &re):
		ce = &Error{Code: remoteCode(re.Code), Message: remoteMessage(re), Err: err}
	default:
		ce = &Error{Code: CodeFailed, Message: err.Error(), Err: err}
	}
	return ce, outcomeOf(ce.Code)
}

func remoteCode(c string) string {
	switch c {
	case protocol.CodeStale:
		return CodeStaleRef
	case protocol.CodeChanged:
		return CodeChanged
	case protocol.CodeObscured:
		return CodeObscured
	case protocol.CodeNotVisible:
		return CodeNotVisible
	case protocol.CodeDisabled:
		return CodeDisabled
	case protocol.CodeNoTab, protocol.CodeNoFrame:
		return CodeNoTab
	}
	return CodeFailed
}

func remoteMessage(re *protocol.Error) string {
	switch re.Code {
	case protocol.CodeStale:
		return re.Message + "; take a new snapshot and use a ref from it"
	case protocol.CodeChanged:
		return re.Message + "; take a new snapshot and check it is still what you want"
	case protocol.CodeObscured:
		return re.Message + "; nothing was clicked"
	}
	return re.Message
}

func outcomeOf(code string) string {
	switch code {
	case CodeDenied:
		return OutcomeDenied
	case CodeTimeout:
		return OutcomeTimeout
	case CodeFailed, CodeAuditFailed, CodeDisconnected:
		return OutcomeFailed
	}
	return OutcomeRefused
}
