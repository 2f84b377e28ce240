package executor

// The numbers of CoreGraphics' event API (CGEventTypes.h, CGEventSource.h,
// CGWindow.h) that the macOS executor and hand watch use. They live in a
// file every platform compiles so that the pure halves of that code, and
// their tests, build anywhere.

// CGEventType values (the NX_ event numbers of IOKit/hidsystem/IOLLEvent.h).
const (
	cgEventLeftMouseDown          = 1
	cgEventLeftMouseUp            = 2
	cgEventRightMouseDown         = 3
	cgEventRightMouseUp           = 4
	cgEventMouseMoved             = 5
	cgEventLeftMouseDragged       = 6
	cgEventRightMouseDragged      = 7
	cgEventKeyDown                = 10
	cgEventKeyUp                  = 11
	cgEventFlagsChanged           = 12
	cgEventScrollWheel            = 22
	cgEventOtherMouseDown         = 25
	cgEventOtherMouseDragged      = 27
	cgEventTapDisabledByTimeout   = 0xFFFFFFFE
	cgEventTapDisabledByUserInput = 0xFFFFFFFF
	cgAnyInputEventType           = 0xFFFFFFFF // kCGAnyInputEventType, ~0
)

// CGEventField values.
const (
	cgMouseEventClickState            = 1
	cgMouseEventDeltaX                = 4
	cgMouseEventDeltaY                = 5
	cgKeyboardEventAutorepeat         = 8
	cgScrollWheelEventDeltaAxis1      = 11
	cgScrollWheelEventDeltaAxis2      = 12
	cgEventSourceUnixProcessID        = 41
	cgEventSourceUserData             = 42
	cgEventSourceStateID              = 45
	cgScrollWheelEventPointDeltaAxis1 = 96
	cgScrollWheelEventPointDeltaAxis2 = 97
	cgScrollWheelEventMomentumPhase   = 123
)

// cgEventSourceStateHIDSystemState is kCGEventSourceStateHIDSystemState:
// the state table of the hardware's events.
const cgEventSourceStateHIDSystemState = 1

// CGEventFlags bits.
const (
	cgEventFlagMaskAlphaShift  = 0x00010000
	cgEventFlagMaskShift       = 0x00020000
	cgEventFlagMaskControl     = 0x00040000
	cgEventFlagMaskAlternate   = 0x00080000
	cgEventFlagMaskCommand     = 0x00100000
	cgEventFlagMaskSecondaryFn = 0x00800000
)

// CGMouseButton, CGScrollEventUnit, CGEventTapLocation and CGWindowListOption
// values.
const (
	cgMouseButtonLeft     = 0
	cgMouseButtonRight    = 1
	cgScrollEventUnitLine = 1
	cgHIDEventTap         = 0      // kCGHIDEventTap: as if from the hardware
	cgSessionEventTap     = 1      // kCGSessionEventTap: where the login session's events enter
	cgWindowListOnScreen  = 1 << 0 // kCGWindowListOptionOnScreenOnly
	cgWindowListNoDesktop = 1 << 4 // kCGWindowListExcludeDesktopElements
)

// CGEventTapPlacement and CGEventTapOptions values.
const (
	cgHeadInsertEventTap       = 0
	cgEventTapOptionListenOnly = 1
)
