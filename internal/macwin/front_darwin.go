package macwin

import (
	"os"
	"sync"

	"github.com/ebitengine/purego/objc"
)

var (
	selSharedWorkspace      = objc.RegisterName("sharedWorkspace")
	selFrontmostApplication = objc.RegisterName("frontmostApplication")
	selProcessIdentifier    = objc.RegisterName("processIdentifier")
	selActivateWithOptions  = objc.RegisterName("activateWithOptions:")
	selRetain               = objc.RegisterName("retain")
	selRespondsToSelector   = objc.RegisterName("respondsToSelector:")
	selYieldActivation      = objc.RegisterName("yieldActivationToApplication:")
	selActivateFrom         = objc.RegisterName("activateFromApplication:options:")
	selCurrentApplication   = objc.RegisterName("currentApplication")
	selRelease              = objc.RegisterName("release")

	frontMu sync.Mutex
	front   objc.ID // the retained NSRunningApplication the person was using, or 0
)

// activateAllWindows is NSApplicationActivateAllWindows, from
// AppKit/NSRunningApplication.h.
const activateAllWindows = 1 << 0

// RememberFront notes the application the person is using, unless it is
// Reins itself, so that GiveBackFront can return to it once the popup has
// been answered.
func RememberFront() error {
	if err := load(); err != nil {
		return err
	}
	withPool(func() {
		ws := objc.ID(objc.GetClass("NSWorkspace")).Send(selSharedWorkspace)
		app := ws.Send(selFrontmostApplication)
		if app == 0 || int(objc.Send[int32](app, selProcessIdentifier)) == os.Getpid() {
			return
		}
		app.Send(selRetain)
		frontMu.Lock()
		old := front
		front = app
		frontMu.Unlock()
		if old != 0 {
			old.Send(selRelease)
		}
	})
	return nil
}

// GiveBackFront makes the application RememberFront noted the active one
// again. Answering the popup made Reins the active app, and a hidden window
// does not hand that back on macOS: without this, the keyboard would stay
// with Reins and every act approved a moment ago would find Reins, which is
// on its own deny list, in front.
func GiveBackFront() error {
	if err := load(); err != nil {
		return err
	}
	frontMu.Lock()
	app := front
	front = 0
	frontMu.Unlock()
	if app == 0 {
		return nil
	}
	withPool(func() {
		defer app.Send(selRelease)
		nsApp := objc.ID(clsApplication).Send(selSharedApplication)
		if objc.Send[bool](nsApp, selRespondsToSelector, selYieldActivation) && objc.Send[bool](app, selRespondsToSelector, selActivateFrom) {
			// macOS 14 and later: cooperative activation. Reins yields to
			// the app, which then takes the front from Reins; activateWithOptions:
			// alone is ignored there when Reins is not the one in front.
			nsApp.Send(selYieldActivation, app)
			self := objc.ID(objc.GetClass("NSRunningApplication")).Send(selCurrentApplication)
			app.Send(selActivateFrom, self, uint(activateAllWindows))
			return
		}
		app.Send(selActivateWithOptions, uint(activateAllWindows))
	})
	return nil
}
