package macos

import "github.com/ebitengine/purego/objc"

// macOS 14's cooperative activation, which darwinkit v0.5.0 does not
// declare: from NSApplication.h, - (void)yieldActivationToApplication:
// (NSRunningApplication *)application; from NSRunningApplication.h,
// - (BOOL)activateFromApplication:(NSRunningApplication *)application
// options:(NSApplicationActivationOptions)options. Both API_AVAILABLE(macos(14.0)).
var (
	selSharedApplication  = objc.RegisterName("sharedApplication")
	selCurrentApplication = objc.RegisterName("currentApplication")
	selRespondsToSelector = objc.RegisterName("respondsToSelector:")
	selYieldActivation    = objc.RegisterName("yieldActivationToApplication:")
	selActivateFrom       = objc.RegisterName("activateFromApplication:options:")
)

// activateAllWindows is NSApplicationActivateAllWindows, from
// AppKit/NSRunningApplication.h.
const activateAllWindows uint = 1 << 0

// HandActivationTo makes app (an NSRunningApplication *) the active
// application the way macOS 14 and later want it done: Reins, active now,
// yields activation to app, and app activates from Reins with all its
// windows. There, activating another app without yielding first is only a
// request, which macOS may ignore. It reports false, doing nothing, on a
// macOS without these calls (before 14), where the caller activates app the
// older way. Call it on the main thread, inside a [WithPool].
func HandActivationTo(app uintptr) bool {
	nsApp := objc.ID(cls.application).Send(selSharedApplication)
	target := objc.ID(app)
	if !objc.Send[bool](nsApp, selRespondsToSelector, selYieldActivation) || !objc.Send[bool](target, selRespondsToSelector, selActivateFrom) {
		return false
	}
	nsApp.Send(selYieldActivation, target)
	self := objc.ID(cls.runningApplication).Send(selCurrentApplication)
	objc.Send[bool](target, selActivateFrom, self, activateAllWindows)
	return true
}
