package core

import (
	"errors"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

func errorf(code, format string, args ...any) *vocab.Error {
	return vocab.Errorf(code, format, args...)
}

// classify turns any stage's error into an *Error and its outcome word.
func classify(err error) (*vocab.Error, string) {
	var ce *vocab.Error
	if errors.As(err, &ce) {
		return ce, outcomeOf(ce.Code)
	}
	var re *protocol.Error
	switch {
	case errors.Is(err, approvals.ErrNotShared):
		ce = &vocab.Error{Code: vocab.CodeShareRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrDesktopNotShared):
		ce = &vocab.Error{Code: vocab.CodeShareRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrOriginChanged):
		ce = &vocab.Error{Code: vocab.CodeShareRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrProgramChanged):
		ce = &vocab.Error{Code: vocab.CodeProgramChanged, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrNoDisplay):
		ce = &vocab.Error{Code: vocab.CodeNoDisplay, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrOffScreen):
		ce = &vocab.Error{Code: vocab.CodeOffScreen, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrUnknownKey):
		ce = &vocab.Error{Code: vocab.CodeUnknownKey, Message: err.Error() + "; nothing was pressed", Err: err}
	case errors.Is(err, approvals.ErrReadOnly):
		ce = &vocab.Error{Code: vocab.CodeControlRequired, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrTimeout):
		ce = &vocab.Error{Code: vocab.CodeTimeout, Message: err.Error(), Err: err}
	case errors.Is(err, approvals.ErrDenied), errors.Is(err, approvals.ErrShutdown), errors.Is(err, approvals.ErrNoAnswerer):
		ce = &vocab.Error{Code: vocab.CodeDenied, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrStaleRef):
		ce = &vocab.Error{Code: vocab.CodeStaleRef, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrTurned):
		ce = &vocab.Error{Code: vocab.CodeUnmapped, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrNoFrame):
		ce = &vocab.Error{Code: vocab.CodeNotVisible, Message: err.Error(), Err: err}
	case errors.Is(err, grounding.ErrNotVisible):
		ce = &vocab.Error{Code: vocab.CodeNotVisible, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrOwnWindow):
		ce = &vocab.Error{Code: vocab.CodeOwnWindow, Message: err.Error(), Err: err}
	case errors.Is(err, executor.ErrBrowser):
		ce = &vocab.Error{Code: vocab.CodeBrowserWindow, Message: err.Error(), Err: err}
	case errors.Is(err, hand.ErrPersonsHand):
		ce = &vocab.Error{Code: vocab.CodeStoppedByPerson, Message: err.Error() + "; the person has the controls: the next act on this tab is asked afresh, whatever was allowed before", Err: err}
	case errors.Is(err, hand.ErrNoWatch):
		ce = &vocab.Error{Code: vocab.CodeNoInputWatch, Message: err.Error() + "; nothing more was fired", Err: err}
	case errors.Is(err, executor.ErrFocusMoved):
		ce = &vocab.Error{Code: vocab.CodeFocusMoved, Message: err.Error() + "; bring the tab's window to the front and try again", Err: err}
	case errors.Is(err, executor.ErrNotInTabWindow):
		ce = &vocab.Error{Code: vocab.CodeNotInTabWindow, Message: err.Error() + "; take a new snapshot once that window is out of the way", Err: err}
	case errors.Is(err, executor.ErrNoTabWindow):
		ce = &vocab.Error{Code: vocab.CodeTabWindowUnknown, Message: err.Error() + "; nothing was done", Err: err}
	case errors.Is(err, executor.ErrDenyListed):
		ce = &vocab.Error{Code: vocab.CodeDenyListed, Message: err.Error() + "; nothing was done", Err: err}
	case errors.Is(err, executor.ErrPersonActive):
		ce = &vocab.Error{Code: vocab.CodePersonActive, Message: "held: the person used the mouse or keyboard after the act was approved, so nothing was fired; " + err.Error(), Err: err}
	case errors.Is(err, audit.ErrAnchorUnreachable):
		ce = &vocab.Error{Code: vocab.CodeAnchorUnreachable, Message: err.Error() + "; nothing was done", Err: err}
	case errors.Is(err, audit.ErrWrite):
		ce = &vocab.Error{Code: vocab.CodeAuditFailed, Message: err.Error(), Err: err}
	case errors.Is(err, bridge.ErrNotConnected), errors.Is(err, bridge.ErrDisconnected), errors.Is(err, bridge.ErrTimeout):
		ce = &vocab.Error{Code: vocab.CodeDisconnected, Message: err.Error(), Err: err}
	case errors.As(err, &re):
		ce = &vocab.Error{Code: remoteCode(re.Code), Message: remoteMessage(re), Err: err}
	default:
		ce = &vocab.Error{Code: vocab.CodeFailed, Message: err.Error(), Err: err}
	}
	return ce, outcomeOf(ce.Code)
}

func remoteCode(c string) string {
	switch c {
	case protocol.CodeStale:
		return vocab.CodeStaleRef
	case protocol.CodeChanged:
		return vocab.CodeChanged
	case protocol.CodeObscured:
		return vocab.CodeObscured
	case protocol.CodeNotVisible:
		return vocab.CodeNotVisible
	case protocol.CodeDisabled:
		return vocab.CodeDisabled
	case protocol.CodeNoTab, protocol.CodeNoFrame:
		return vocab.CodeNoTab
	case protocol.CodeUnmapped:
		return vocab.CodeUnmapped
	}
	return vocab.CodeFailed
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
	case vocab.CodeDenied:
		return vocab.OutcomeDenied
	case vocab.CodeTimeout:
		return vocab.OutcomeTimeout
	case vocab.CodeFailed, vocab.CodeAuditFailed, vocab.CodeDisconnected:
		return vocab.OutcomeFailed
	}
	return vocab.OutcomeRefused
}

// quoteIf quotes agent or page text for a sentence a person may read, or
// gives "" for none.
func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return plain.Quote(s, plain.ClaimMax)
}
