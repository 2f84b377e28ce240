package executor

import (
	"sync"

	"github.com/reins-app/reins/internal/macos"
)

// Bindings to CoreGraphics and ApplicationServices through purego, the
// Accessibility ones in ax_darwin.go, on internal/macos's CoreFoundation
// and Objective-C: no cgo, so `GOOS=darwin CGO_ENABLED=0 go vet` checks this
// package on any machine.

type cgPoint struct{ X, Y float64 }

type cgSize struct{ W, H float64 }

type cgRect struct {
	Origin cgPoint
	Size   cgSize
}

var (
	cgEventCreate                          func(source uintptr) uintptr
	cgEventGetLocation                     func(event uintptr) cgPoint
	cgEventCreateMouseEvent                func(source uintptr, typ uint32, at cgPoint, button uint32) uintptr
	cgEventCreateKeyboardEvent             func(source uintptr, code uint16, down bool) uintptr
	cgEventKeyboardSetUnicodeString        func(event uintptr, n uint64, chars *uint16)
	cgEventCreateScrollWheelEvent2         func(source uintptr, units uint32, wheels uint32, w1, w2, w3 int32) uintptr
	cgEventSetIntegerValueField            func(event uintptr, field uint32, value int64)
	cgEventSetFlags                        func(event uintptr, flags uint64)
	cgEventPostUnmarked                    func(tap uint32, event uintptr)
	cgEventSourceSecondsSinceLastEventType func(state int32, typ uint32) float64
	cgEventSourceKeyState                  func(state int32, code uint16) bool
	cgEventSourceButtonState               func(state int32, button uint32) bool
	cgWindowListCopyWindowInfo             func(option uint32, relativeTo uint32) uintptr
	cgRectMakeWithDictionaryRepresentation func(dict uintptr, rect *cgRect) bool
	cgGetDisplaysWithPoint                 func(at cgPoint, max uint32, displays *uint32, count *uint32) int32
	cgGetActiveDisplayList                 func(max uint32, displays *uint32, count *uint32) int32
	cgDisplayBounds                        func(display uint32) cgRect
	axIsProcessTrusted                     func() bool

	// Keys of the dictionaries CGWindowListCopyWindowInfo returns.
	kCGWindowOwnerPID  uintptr
	kCGWindowOwnerName uintptr
	kCGWindowName      uintptr
	kCGWindowBounds    uintptr
	kCGWindowLayer     uintptr
	kCGWindowAlpha     uintptr
	kCGWindowNumber    uintptr
)

var (
	quartzOnce sync.Once
	quartzErr  error
)

// loadQuartz binds every function the macOS executor calls, once, after
// the CoreFoundation and Objective-C basics of internal/macos. A missing
// symbol is an error rather than purego's panic.
func loadQuartz() error {
	quartzOnce.Do(func() { quartzErr = bindQuartz() })
	return quartzErr
}

func bindQuartz() error {
	if err := macos.Load(); err != nil {
		return err
	}
	var b macos.Binder
	cg, as := b.Open(macos.CoreGraphics), b.Open(macos.ApplicationServices)
	b.Func(cg, "CGEventCreate", &cgEventCreate)
	b.Func(cg, "CGEventGetLocation", &cgEventGetLocation)
	b.Func(cg, "CGEventCreateMouseEvent", &cgEventCreateMouseEvent)
	b.Func(cg, "CGEventCreateKeyboardEvent", &cgEventCreateKeyboardEvent)
	b.Func(cg, "CGEventKeyboardSetUnicodeString", &cgEventKeyboardSetUnicodeString)
	b.Func(cg, "CGEventCreateScrollWheelEvent2", &cgEventCreateScrollWheelEvent2)
	b.Func(cg, "CGEventSetIntegerValueField", &cgEventSetIntegerValueField)
	b.Func(cg, "CGEventSetFlags", &cgEventSetFlags)
	b.Func(cg, "CGEventPost", &cgEventPostUnmarked)
	b.Func(cg, "CGEventSourceSecondsSinceLastEventType", &cgEventSourceSecondsSinceLastEventType)
	b.Func(cg, "CGEventSourceKeyState", &cgEventSourceKeyState)
	b.Func(cg, "CGEventSourceButtonState", &cgEventSourceButtonState)
	b.Func(cg, "CGWindowListCopyWindowInfo", &cgWindowListCopyWindowInfo)
	b.Func(cg, "CGRectMakeWithDictionaryRepresentation", &cgRectMakeWithDictionaryRepresentation)
	b.Func(cg, "CGGetDisplaysWithPoint", &cgGetDisplaysWithPoint)
	b.Func(cg, "CGGetActiveDisplayList", &cgGetActiveDisplayList)
	b.Func(cg, "CGDisplayBounds", &cgDisplayBounds)
	b.Func(as, "AXIsProcessTrusted", &axIsProcessTrusted)
	b.Global(cg, "kCGWindowOwnerPID", &kCGWindowOwnerPID)
	b.Global(cg, "kCGWindowOwnerName", &kCGWindowOwnerName)
	b.Global(cg, "kCGWindowName", &kCGWindowName)
	b.Global(cg, "kCGWindowBounds", &kCGWindowBounds)
	b.Global(cg, "kCGWindowLayer", &kCGWindowLayer)
	b.Global(cg, "kCGWindowAlpha", &kCGWindowAlpha)
	b.Global(cg, "kCGWindowNumber", &kCGWindowNumber)
	bindAX(&b, cg, as)
	return b.Err()
}

// cgEventPost posts event at tap (void CGEventPost(CGEventTapLocation,
// CGEventRef)) marked as Reins' own: its kCGEventSourceUserData is
// reinsEventMark, which the hand watch reads to leave Reins' input out of
// the person's, the release guard's too once its parent is gone and its
// pid no longer Reins'. Every event Reins posts goes through here.
func cgEventPost(tap uint32, event uintptr) {
	cgEventSetIntegerValueField(event, cgEventSourceUserData, reinsEventMark)
	cgEventPostUnmarked(tap, event)
}

// appOf describes an NSRunningApplication.
func appOf(app macos.App) App {
	return App{Name: app.Name(), ID: app.BundleID(), PID: app.PID(), Exe: app.Executable()}
}
