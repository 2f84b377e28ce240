// Package quartz is the macOS executor's and hand watch's one binding of
// CoreGraphics' event API (purego, no cgo): the numbers of CGEventTypes.h,
// CGEventSource.h and CGWindow.h, the functions that make, post and read
// events, list windows and displays, and the mark every event Reins posts
// carries. The numbers live in a file every platform compiles so that the
// pure halves of the code that uses them, and their tests, build anywhere.
package quartz

// ReinsEventMark is the kCGEventSourceUserData every event Reins posts
// carries ("Reins" in ASCII, set in EventPost): with the pid, how the hand
// watch knows Reins' own input, and how the release guard's is known after
// its parent died. A program that writes the same value passes for Reins,
// as another XTEST user does on X.
const ReinsEventMark int64 = 0x5265696E73

// CGEventType values (the NX_ event numbers of IOKit/hidsystem/IOLLEvent.h).
const (
	EventLeftMouseDown          = 1
	EventLeftMouseUp            = 2
	EventRightMouseDown         = 3
	EventRightMouseUp           = 4
	EventMouseMoved             = 5
	EventLeftMouseDragged       = 6
	EventRightMouseDragged      = 7
	EventKeyDown                = 10
	EventKeyUp                  = 11
	EventFlagsChanged           = 12
	EventScrollWheel            = 22
	EventOtherMouseDown         = 25
	EventOtherMouseDragged      = 27
	EventTapDisabledByTimeout   = 0xFFFFFFFE
	EventTapDisabledByUserInput = 0xFFFFFFFF
	AnyInputEventType           = 0xFFFFFFFF // kCGAnyInputEventType, ~0
)

// CGEventField values.
const (
	MouseEventClickState            = 1
	MouseEventDeltaX                = 4
	MouseEventDeltaY                = 5
	KeyboardEventAutorepeat         = 8
	ScrollWheelEventDeltaAxis1      = 11
	ScrollWheelEventDeltaAxis2      = 12
	EventSourceUnixProcessID        = 41
	EventSourceUserData             = 42
	EventSourceStateID              = 45
	ScrollWheelEventPointDeltaAxis1 = 96
	ScrollWheelEventPointDeltaAxis2 = 97
	ScrollWheelEventMomentumPhase   = 123
)

// EventSourceStateHIDSystemState is kCGEventSourceStateHIDSystemState:
// the state table of the hardware's events.
const EventSourceStateHIDSystemState = 1

// CGEventFlags bits.
const (
	EventFlagMaskAlphaShift  = 0x00010000
	EventFlagMaskShift       = 0x00020000
	EventFlagMaskControl     = 0x00040000
	EventFlagMaskAlternate   = 0x00080000
	EventFlagMaskCommand     = 0x00100000
	EventFlagMaskSecondaryFn = 0x00800000
)

// CGMouseButton, CGScrollEventUnit, CGEventTapLocation and CGWindowListOption
// values.
const (
	MouseButtonLeft     = 0
	MouseButtonRight    = 1
	ScrollEventUnitLine = 1
	HIDEventTap         = 0      // kCGHIDEventTap: as if from the hardware
	SessionEventTap     = 1      // kCGSessionEventTap: where the login session's events enter
	WindowListOnScreen  = 1 << 0 // KCGWindowListOptionOnScreenOnly
	WindowListNoDesktop = 1 << 4 // KCGWindowListExcludeDesktopElements
)

// CGEventTapPlacement and CGEventTapOptions values.
const (
	HeadInsertEventTap       = 0
	EventTapOptionListenOnly = 1
)
