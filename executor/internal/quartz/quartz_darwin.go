package quartz

import (
	"sync"

	"github.com/reins-app/reins/internal/macos"
)

// Bindings to CoreGraphics' events and windows through purego,
// on internal/macos's CoreFoundation and Objective-C: no cgo, so
// `GOOS=darwin CGO_ENABLED=0 go vet` checks this package on any machine.

// Point and Rect are CGPoint and CGRect, as internal/macos has them.
type (
	Point = macos.Point
	Rect  = macos.Rect
)

var (
	EventCreate                          func(source uintptr) uintptr
	EventGetLocation                     func(event uintptr) Point
	EventCreateMouseEvent                func(source uintptr, typ uint32, at Point, button uint32) uintptr
	EventCreateKeyboardEvent             func(source uintptr, code uint16, down bool) uintptr
	EventKeyboardSetUnicodeString        func(event uintptr, n uint64, chars *uint16)
	EventCreateScrollWheelEvent2         func(source uintptr, units uint32, wheels uint32, w1, w2, w3 int32) uintptr
	EventSetIntegerValueField            func(event uintptr, field uint32, value int64)
	EventSetFlags                        func(event uintptr, flags uint64)
	eventPostUnmarked                    func(tap uint32, event uintptr)
	EventSourceSecondsSinceLastEventType func(state int32, typ uint32) float64
	EventSourceKeyState                  func(state int32, code uint16) bool
	EventSourceButtonState               func(state int32, button uint32) bool
	WindowListCopyWindowInfo             func(option uint32, relativeTo uint32) uintptr
	RectMakeWithDictionaryRepresentation func(dict uintptr, rect *Rect) bool
	GetDisplaysWithPoint                 func(at Point, max uint32, displays *uint32, count *uint32) int32

	// Keys of the dictionaries CGWindowListCopyWindowInfo returns.
	KCGWindowOwnerPID  uintptr
	KCGWindowOwnerName uintptr
	KCGWindowName      uintptr
	KCGWindowBounds    uintptr
	KCGWindowLayer     uintptr
	KCGWindowAlpha     uintptr
	KCGWindowNumber    uintptr
)

var (
	quartzOnce sync.Once
	quartzErr  error
)

// Load binds every function above, once, after
// the CoreFoundation and Objective-C basics of internal/macos. A missing
// symbol is an error rather than purego's panic.
func Load() error {
	quartzOnce.Do(func() { quartzErr = bindQuartz() })
	return quartzErr
}

func bindQuartz() error {
	if err := macos.Load(); err != nil {
		return err
	}
	var b macos.Binder
	cg := b.Open(macos.CoreGraphics)
	b.Func(cg, "CGEventCreate", &EventCreate)
	b.Func(cg, "CGEventGetLocation", &EventGetLocation)
	b.Func(cg, "CGEventCreateMouseEvent", &EventCreateMouseEvent)
	b.Func(cg, "CGEventCreateKeyboardEvent", &EventCreateKeyboardEvent)
	b.Func(cg, "CGEventKeyboardSetUnicodeString", &EventKeyboardSetUnicodeString)
	b.Func(cg, "CGEventCreateScrollWheelEvent2", &EventCreateScrollWheelEvent2)
	b.Func(cg, "CGEventSetIntegerValueField", &EventSetIntegerValueField)
	b.Func(cg, "CGEventSetFlags", &EventSetFlags)
	b.Func(cg, "CGEventPost", &eventPostUnmarked)
	b.Func(cg, "CGEventSourceSecondsSinceLastEventType", &EventSourceSecondsSinceLastEventType)
	b.Func(cg, "CGEventSourceKeyState", &EventSourceKeyState)
	b.Func(cg, "CGEventSourceButtonState", &EventSourceButtonState)
	b.Func(cg, "CGWindowListCopyWindowInfo", &WindowListCopyWindowInfo)
	b.Func(cg, "CGRectMakeWithDictionaryRepresentation", &RectMakeWithDictionaryRepresentation)
	b.Func(cg, "CGGetDisplaysWithPoint", &GetDisplaysWithPoint)
	b.Global(cg, "kCGWindowOwnerPID", &KCGWindowOwnerPID)
	b.Global(cg, "kCGWindowOwnerName", &KCGWindowOwnerName)
	b.Global(cg, "kCGWindowName", &KCGWindowName)
	b.Global(cg, "kCGWindowBounds", &KCGWindowBounds)
	b.Global(cg, "kCGWindowLayer", &KCGWindowLayer)
	b.Global(cg, "kCGWindowAlpha", &KCGWindowAlpha)
	b.Global(cg, "kCGWindowNumber", &KCGWindowNumber)
	return b.Err()
}

// EventPost posts event at tap (void CGEventPost(CGEventTapLocation,
// CGEventRef)) marked as Reins' own: its kCGEventSourceUserData is
// ReinsEventMark, which the hand watch reads to leave Reins' input out of
// the person's, the release guard's too once its parent is gone and its
// pid no longer Reins'. Every event Reins posts goes through here.
func EventPost(tap uint32, event uintptr) {
	EventSetIntegerValueField(event, EventSourceUserData, ReinsEventMark)
	eventPostUnmarked(tap, event)
}
