package executor

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// Bindings to CoreGraphics, CoreFoundation, ApplicationServices and AppKit
// through purego, the Accessibility ones in ax_darwin.go: no cgo, so
// `GOOS=darwin CGO_ENABLED=0 go vet` checks this package on any machine.

type cgPoint struct{ X, Y float64 }

type cgSize struct{ W, H float64 }

type cgRect struct {
	Origin cgPoint
	Size   cgSize
}

// CGEventType, CGMouseButton and friends, from the CoreGraphics headers.
const (
	cgEventLeftMouseDown    = 1
	cgEventLeftMouseUp      = 2
	cgEventRightMouseDown   = 3
	cgEventRightMouseUp     = 4
	cgEventMouseMoved       = 5
	cgEventLeftMouseDragged = 6

	cgMouseButtonLeft  = 0
	cgMouseButtonRight = 1

	cgHIDEventTap                    = 0          // kCGHIDEventTap: as if from the hardware
	cgEventSourceStateHIDSystemState = 1          // kCGEventSourceStateHIDSystemState
	cgAnyInputEventType              = 0xFFFFFFFF // kCGAnyInputEventType, ~0
	cgMouseEventClickState           = 1          // kCGMouseEventClickState
	cgScrollEventUnitLine            = 1
	cgWindowListOnScreen             = 1 << 0 // kCGWindowListOptionOnScreenOnly
	cgWindowListNoDesktop            = 1 << 4 // kCGWindowListExcludeDesktopElements
	cgEventFlagMaskShift             = 0x00020000
	cgEventFlagMaskControl           = 0x00040000
	cgEventFlagMaskAlternate         = 0x00080000
	cgEventFlagMaskCommand           = 0x00100000
)

var (
	cgEventCreate                          func(source uintptr) uintptr
	cgEventGetLocation                     func(event uintptr) cgPoint
	cgEventCreateMouseEvent                func(source uintptr, typ uint32, at cgPoint, button uint32) uintptr
	cgEventCreateKeyboardEvent             func(source uintptr, code uint16, down bool) uintptr
	cgEventKeyboardSetUnicodeString        func(event uintptr, n uint64, chars *uint16)
	cgEventCreateScrollWheelEvent2         func(source uintptr, units uint32, wheels uint32, w1, w2, w3 int32) uintptr
	cgEventSetIntegerValueField            func(event uintptr, field uint32, value int64)
	cgEventSetFlags                        func(event uintptr, flags uint64)
	cgEventPost                            func(tap uint32, event uintptr)
	cgEventSourceSecondsSinceLastEventType func(state int32, typ uint32) float64
	cgEventSourceKeyState                  func(state int32, code uint16) bool
	cgEventSourceButtonState               func(state int32, button uint32) bool
	cgWindowListCopyWindowInfo             func(option uint32, relativeTo uint32) uintptr
	cgRectMakeWithDictionaryRepresentation func(dict uintptr, rect *cgRect) bool
	cgGetDisplaysWithPoint                 func(at cgPoint, max uint32, displays *uint32, count *uint32) int32
	cgGetActiveDisplayList                 func(max uint32, displays *uint32, count *uint32) int32
	cgDisplayBounds                        func(display uint32) cgRect
	cfRelease                              func(ref uintptr)
	cfArrayGetCount                        func(array uintptr) int
	cfArrayGetValueAtIndex                 func(array uintptr, i int) uintptr
	cfDictionaryGetValue                   func(dict uintptr, key uintptr) uintptr
	axIsProcessTrusted                     func() bool

	// Keys of the dictionaries CGWindowListCopyWindowInfo returns.
	kCGWindowOwnerPID  uintptr
	kCGWindowOwnerName uintptr
	kCGWindowName      uintptr
	kCGWindowBounds    uintptr
	kCGWindowLayer     uintptr
	kCGWindowAlpha     uintptr
	kCGWindowNumber    uintptr

	clsNSWorkspace          objc.Class
	clsNSRunningApplication objc.Class
	clsNSAutoreleasePool    objc.Class

	selSharedWorkspace      objc.SEL
	selFrontmostApplication objc.SEL
	selRunningAppWithPID    objc.SEL
	selLocalizedName        objc.SEL
	selBundleIdentifier     objc.SEL
	selProcessIdentifier    objc.SEL
	selExecutableURL        objc.SEL
	selPath                 objc.SEL
	selUTF8String           objc.SEL
	selLongLongValue        objc.SEL
	selDoubleValue          objc.SEL
	selNew                  objc.SEL
	selDrain                objc.SEL
)

var (
	quartzOnce sync.Once
	quartzErr  error
)

const (
	frameworkCoreGraphics = "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics"
	frameworkCoreFound    = "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
	frameworkAppServices  = "/System/Library/Frameworks/ApplicationServices.framework/ApplicationServices"
	frameworkAppKit       = "/System/Library/Frameworks/AppKit.framework/AppKit"
)

// loadQuartz binds every function the macOS executor calls, once. A missing
// symbol is an error rather than purego's panic.
func loadQuartz() error {
	quartzOnce.Do(func() { quartzErr = bindQuartz() })
	return quartzErr
}

func bindQuartz() error {
	libs := map[string]uintptr{}
	for _, path := range []string{frameworkCoreGraphics, frameworkCoreFound, frameworkAppServices, frameworkAppKit} {
		h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			return fmt.Errorf("cannot load %s: %w", path, err)
		}
		libs[path] = h
	}
	cg, cf, as := libs[frameworkCoreGraphics], libs[frameworkCoreFound], libs[frameworkAppServices]
	if err := bindFuncs([]cfunc{
		{cg, "CGEventCreate", &cgEventCreate},
		{cg, "CGEventGetLocation", &cgEventGetLocation},
		{cg, "CGEventCreateMouseEvent", &cgEventCreateMouseEvent},
		{cg, "CGEventCreateKeyboardEvent", &cgEventCreateKeyboardEvent},
		{cg, "CGEventKeyboardSetUnicodeString", &cgEventKeyboardSetUnicodeString},
		{cg, "CGEventCreateScrollWheelEvent2", &cgEventCreateScrollWheelEvent2},
		{cg, "CGEventSetIntegerValueField", &cgEventSetIntegerValueField},
		{cg, "CGEventSetFlags", &cgEventSetFlags},
		{cg, "CGEventPost", &cgEventPost},
		{cg, "CGEventSourceSecondsSinceLastEventType", &cgEventSourceSecondsSinceLastEventType},
		{cg, "CGEventSourceKeyState", &cgEventSourceKeyState},
		{cg, "CGEventSourceButtonState", &cgEventSourceButtonState},
		{cg, "CGWindowListCopyWindowInfo", &cgWindowListCopyWindowInfo},
		{cg, "CGRectMakeWithDictionaryRepresentation", &cgRectMakeWithDictionaryRepresentation},
		{cg, "CGGetDisplaysWithPoint", &cgGetDisplaysWithPoint},
		{cg, "CGGetActiveDisplayList", &cgGetActiveDisplayList},
		{cg, "CGDisplayBounds", &cgDisplayBounds},
		{cf, "CFRelease", &cfRelease},
		{cf, "CFArrayGetCount", &cfArrayGetCount},
		{cf, "CFArrayGetValueAtIndex", &cfArrayGetValueAtIndex},
		{cf, "CFDictionaryGetValue", &cfDictionaryGetValue},
		{as, "AXIsProcessTrusted", &axIsProcessTrusted},
	}); err != nil {
		return err
	}
	if err := bindGlobals(cg, []cglobal{
		{"kCGWindowOwnerPID", &kCGWindowOwnerPID},
		{"kCGWindowOwnerName", &kCGWindowOwnerName},
		{"kCGWindowName", &kCGWindowName},
		{"kCGWindowBounds", &kCGWindowBounds},
		{"kCGWindowLayer", &kCGWindowLayer},
		{"kCGWindowAlpha", &kCGWindowAlpha},
		{"kCGWindowNumber", &kCGWindowNumber},
	}); err != nil {
		return err
	}
	if err := bindAX(cg, cf, as); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		cls  *objc.Class
	}{
		{"NSWorkspace", &clsNSWorkspace},
		{"NSRunningApplication", &clsNSRunningApplication},
		{"NSAutoreleasePool", &clsNSAutoreleasePool},
	} {
		if *c.cls = objc.GetClass(c.name); *c.cls == 0 {
			return fmt.Errorf("cannot find the Objective-C class %s", c.name)
		}
	}
	for _, s := range []struct {
		name string
		sel  *objc.SEL
	}{
		{"sharedWorkspace", &selSharedWorkspace},
		{"frontmostApplication", &selFrontmostApplication},
		{"runningApplicationWithProcessIdentifier:", &selRunningAppWithPID},
		{"localizedName", &selLocalizedName},
		{"bundleIdentifier", &selBundleIdentifier},
		{"processIdentifier", &selProcessIdentifier},
		{"executableURL", &selExecutableURL},
		{"path", &selPath},
		{"UTF8String", &selUTF8String},
		{"longLongValue", &selLongLongValue},
		{"doubleValue", &selDoubleValue},
		{"new", &selNew},
		{"drain", &selDrain},
	} {
		*s.sel = objc.RegisterName(s.name)
	}
	return nil
}

// nsString copies an NSString (or a toll-free bridged CFString); "" for nil.
func nsString(s objc.ID) string {
	if s == 0 {
		return ""
	}
	return objc.Send[string](s, selUTF8String)
}

// nsInt reads an NSNumber (or CFNumber); 0 for nil.
func nsInt(n objc.ID) int64 {
	if n == 0 {
		return 0
	}
	return objc.Send[int64](n, selLongLongValue)
}

// nsFloat reads an NSNumber (or CFNumber) as a double; def for nil.
func nsFloat(n objc.ID, def float64) float64 {
	if n == 0 {
		return def
	}
	return objc.Send[float64](n, selDoubleValue)
}

// appOf describes an NSRunningApplication.
func appOf(app objc.ID) App {
	return App{
		Name: nsString(app.Send(selLocalizedName)),
		ID:   nsString(app.Send(selBundleIdentifier)),
		PID:  int(objc.Send[int32](app, selProcessIdentifier)),
		Exe:  nsString(app.Send(selExecutableURL).Send(selPath)),
	}
}

// withPool runs f inside an autorelease pool on one OS thread: the
// Objective-C objects the calls return are autoreleased, and no run loop
// drains them for us.
func withPool(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool := objc.ID(clsNSAutoreleasePool).Send(selNew)
	defer pool.Send(selDrain)
	f()
}

// cfunc is a C function to bind: the library it is in, its name, and the
// Go function variable purego fills.
type cfunc struct {
	lib  uintptr
	name string
	fn   any
}

// bindFuncs binds every function, or says which one is missing rather than
// letting purego panic.
func bindFuncs(fs []cfunc) error {
	for _, f := range fs {
		sym, err := purego.Dlsym(f.lib, f.name)
		if err != nil {
			return fmt.Errorf("cannot find %s: %w", f.name, err)
		}
		purego.RegisterFunc(f.fn, sym)
	}
	return nil
}

// cglobal is a global CFStringRef variable of a framework's, and where its
// value goes.
type cglobal struct {
	name string
	val  *uintptr
}

// bindGlobals reads every global variable of lib: the pointer each holds.
// Going through &sym keeps vet's uintptr rule satisfied; the memory is the
// framework's, never moved by Go.
func bindGlobals(lib uintptr, gs []cglobal) error {
	for _, g := range gs {
		sym, err := purego.Dlsym(lib, g.name)
		if err != nil {
			return fmt.Errorf("cannot find %s: %w", g.name, err)
		}
		*g.val = **(**uintptr)(unsafe.Pointer(&sym))
	}
	return nil
}
