package macos

import (
	"fmt"
	"runtime"

	"github.com/ebitengine/purego/objc"
)

// appKit is AppKit's handle, from Load.
var appKit uintptr

// AppKitString is the text of one of AppKit's exported NSString *
// constants, such as a notification's name or a key of its userInfo. The
// text a constant holds is AppKit's to choose; it is read, not assumed to
// be the constant's name.
func AppKitString(name string) (string, error) {
	var b Binder
	var s uintptr
	b.Global(appKit, name, &s)
	if err := b.Err(); err != nil {
		return "", err
	}
	if s == 0 {
		return "", fmt.Errorf("AppKit's %s is nil", name)
	}
	return GoString(s), nil
}

// The Objective-C classes Load finds.
var cls struct {
	autoreleasePool    objc.Class
	workspace          objc.Class
	runningApplication objc.Class
	application        objc.Class
}

var (
	selNew                  = objc.RegisterName("new")
	selDrain                = objc.RegisterName("drain")
	selSharedWorkspace      = objc.RegisterName("sharedWorkspace")
	selFrontmostApplication = objc.RegisterName("frontmostApplication")
	selRunningAppWithPID    = objc.RegisterName("runningApplicationWithProcessIdentifier:")
	selLocalizedName        = objc.RegisterName("localizedName")
	selBundleIdentifier     = objc.RegisterName("bundleIdentifier")
	selProcessIdentifier    = objc.RegisterName("processIdentifier")
	selExecutableURL        = objc.RegisterName("executableURL")
	selPath                 = objc.RegisterName("path")
)

// WithPool runs f inside an autorelease pool on one OS thread: the
// Objective-C objects the calls return are autoreleased, and no run loop
// drains them for us; a pool belongs to the thread that pushed it.
func WithPool(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool := objc.ID(cls.autoreleasePool).Send(selNew)
	defer pool.Send(selDrain)
	f()
}

// App is an NSRunningApplication *, autoreleased: use it inside the
// [WithPool] that got it.
type App uintptr

// FrontmostApp is NSWorkspace's frontmostApplication, or 0. It changes only
// as the main run loop turns, so it is stale in a process whose main
// thread runs none.
func FrontmostApp() App {
	ws := objc.ID(cls.workspace).Send(selSharedWorkspace)
	return App(ws.Send(selFrontmostApplication))
}

// AppWithPID is NSRunningApplication's application of process pid, or 0
// for a process that is no application.
func AppWithPID(pid int) App {
	return App(objc.ID(cls.runningApplication).Send(selRunningAppWithPID, int32(pid)))
}

// Name is the application's localizedName; "" for none.
func (a App) Name() string { return GoString(uintptr(objc.ID(a).Send(selLocalizedName))) }

// BundleID is the application's bundleIdentifier; "" for none.
func (a App) BundleID() string { return GoString(uintptr(objc.ID(a).Send(selBundleIdentifier))) }

// PID is the application's processIdentifier (a pid_t).
func (a App) PID() int { return int(objc.Send[int32](objc.ID(a), selProcessIdentifier)) }

// Executable is the path of the application's executableURL; "" for none.
func (a App) Executable() string {
	url := objc.ID(a).Send(selExecutableURL)
	if url == 0 {
		return ""
	}
	return GoString(uintptr(url.Send(selPath)))
}
