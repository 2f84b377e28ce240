// Package ax is Reins' one binding of macOS Accessibility (HIServices,
// in ApplicationServices) through purego, on the CoreFoundation basics of
// internal/macos: whether Reins is trusted, AXUIElement's attributes,
// processes and timeouts, and AXValue. No cgo, so `GOOS=darwin
// CGO_ENABLED=0 go vet` checks it on any machine.
//
// The executor asks it the few questions it needs right before firing
// (trust, the application with the keyboard focus); the desktop reader
// reads applications' elements through it. The AXError codes are in a
// file every platform compiles, so the pure halves of the reader, and
// their tests, build anywhere.
package ax

import "fmt"

// Error is an AXError other than kAXErrorSuccess (AXError.h).
type Error int32

const (
	Success              Error = 0
	Failure              Error = -25200
	IllegalArgument      Error = -25201
	InvalidUIElement     Error = -25202
	CannotComplete       Error = -25204
	AttributeUnsupported Error = -25205
	NotImplemented       Error = -25208
	APIDisabled          Error = -25211
	NoValue              Error = -25212
)

func (e Error) Error() string {
	switch e {
	case Failure:
		return "the Accessibility call failed (kAXErrorFailure)"
	case IllegalArgument:
		return "the Accessibility call was given a bad argument (kAXErrorIllegalArgument)"
	case InvalidUIElement:
		return "the element is gone (kAXErrorInvalidUIElement)"
	case CannotComplete:
		return "the application did not answer in time (kAXErrorCannotComplete)"
	case AttributeUnsupported:
		return "the element has no such attribute (kAXErrorAttributeUnsupported)"
	case NotImplemented:
		return "the application does not do Accessibility (kAXErrorNotImplemented)"
	case APIDisabled:
		return "Reins has no Accessibility permission (kAXErrorAPIDisabled)"
	case NoValue:
		return "the attribute has no value (kAXErrorNoValue)"
	}
	return fmt.Sprintf("AXError %d", int32(e))
}

// Err is nil for kAXErrorSuccess, else the Error rc.
func Err(rc int32) error {
	if Error(rc) == Success {
		return nil
	}
	return Error(rc)
}
