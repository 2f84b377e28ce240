package macwin

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// AppKit through purego and its objc package: no cgo, so
// `GOOS=darwin CGO_ENABLED=0 go vet` checks this file on any machine.

const (
	frameworkAppKit = "/System/Library/Frameworks/AppKit.framework/AppKit"
	libSystem       = "/usr/lib/libSystem.B.dylib"
)

// popupLevel is NSStatusWindowLevel, which AppKit/NSWindow.h defines as
// kCGStatusWindowLevel, 25 in CoreGraphics/CGWindowLevel.h: the level of the
// menu bar's status items. It is above ordinary and floating windows (0 and
// 3), the Dock (20) and the menu bar (24), so no app's window can cover the
// question; and below pop-up menus (kCGPopUpMenuWindowLevel, 101), so a menu
// the person opens, the Reins menu among them, draws over the popup rather
// than under it, which NSPopUpMenuWindowLevel would not allow.
const popupLevel = 25

// NSWindowCollectionBehavior bits, from AppKit/NSWindow.h.
const (
	canJoinAllSpaces    = 1 << 0 // NSWindowCollectionBehaviorCanJoinAllSpaces: on every Space
	transient           = 1 << 3 // NSWindowCollectionBehaviorTransient: left out of Mission Control
	ignoresCycle        = 1 << 6 // NSWindowCollectionBehaviorIgnoresCycle: left out of ⌘` cycling
	fullScreenAuxiliary = 1 << 8 // NSWindowCollectionBehaviorFullScreenAuxiliary: shown over a full-screen app
)

// activationPolicyAccessory is NSApplicationActivationPolicyAccessory, from
// AppKit/NSRunningApplication.h: no Dock icon and no menu bar of its own,
// while its windows can still take the keyboard.
const activationPolicyAccessory = 1

var (
	bindOnce sync.Once
	bindErr  error

	dispatchAsyncF func(queue, context, work uintptr)
	mainQueue      uintptr // &_dispatch_main_q, which dispatch_get_main_queue() returns
	reassertEntry  uintptr // the C entry of reassertAccessory

	didFinishLaunching objc.ID // NSApplicationDidFinishLaunchingNotification

	clsApplication        objc.Class
	clsScreen             objc.Class
	clsEvent              objc.Class
	clsAutoreleasePool    objc.Class
	clsNotificationCenter objc.Class

	selSharedApplication          = objc.RegisterName("sharedApplication")
	selSetActivationPolicy        = objc.RegisterName("setActivationPolicy:")
	selDefaultCenter              = objc.RegisterName("defaultCenter")
	selAddObserver                = objc.RegisterName("addObserverForName:object:queue:usingBlock:")
	selSetLevel                   = objc.RegisterName("setLevel:")
	selSetCollectionBehavior      = objc.RegisterName("setCollectionBehavior:")
	selSetExcludedFromWindowsMenu = objc.RegisterName("setExcludedFromWindowsMenu:")
	selFrame                      = objc.RegisterName("frame")
	selSetFrameTopLeftPoint       = objc.RegisterName("setFrameTopLeftPoint:")
	selMainScreen                 = objc.RegisterName("mainScreen")
	selScreens                    = objc.RegisterName("screens")
	selCount                      = objc.RegisterName("count")
	selObjectAtIndex              = objc.RegisterName("objectAtIndex:")
	selVisibleFrame               = objc.RegisterName("visibleFrame")
	selMouseLocation              = objc.RegisterName("mouseLocation")
	selNew                        = objc.RegisterName("new")
	selDrain                      = objc.RegisterName("drain")
)

// load binds AppKit and libdispatch once; a missing symbol is an error
// rather than purego's panic.
func load() error {
	bindOnce.Do(func() { bindErr = bind() })
	return bindErr
}

func bind() error {
	appKit, err := purego.Dlopen(frameworkAppKit, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("cannot load %s: %w", frameworkAppKit, err)
	}
	sys, err := purego.Dlopen(libSystem, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("cannot load %s: %w", libSystem, err)
	}
	sym, err := purego.Dlsym(sys, "dispatch_async_f")
	if err != nil {
		return fmt.Errorf("cannot find dispatch_async_f: %w", err)
	}
	purego.RegisterFunc(&dispatchAsyncF, sym)
	// dispatch_get_main_queue() is a macro for &_dispatch_main_q: the
	// symbol's address is the queue itself.
	if mainQueue, err = purego.Dlsym(sys, "_dispatch_main_q"); err != nil {
		return fmt.Errorf("cannot find the main dispatch queue: %w", err)
	}
	sym, err = purego.Dlsym(appKit, "NSApplicationDidFinishLaunchingNotification")
	if err != nil {
		return fmt.Errorf("cannot find NSApplicationDidFinishLaunchingNotification: %w", err)
	}
	// The symbol is a global NSString * variable: read the pointer it holds.
	// Going through &sym keeps vet's uintptr rule satisfied; the memory is
	// the framework's, never moved by Go.
	didFinishLaunching = objc.ID(**(**uintptr)(unsafe.Pointer(&sym)))
	for _, c := range []struct {
		name string
		cls  *objc.Class
	}{
		{"NSApplication", &clsApplication},
		{"NSScreen", &clsScreen},
		{"NSEvent", &clsEvent},
		{"NSAutoreleasePool", &clsAutoreleasePool},
		{"NSNotificationCenter", &clsNotificationCenter},
	} {
		if *c.cls = objc.GetClass(c.name); *c.cls == 0 {
			return fmt.Errorf("cannot find the Objective-C class %s", c.name)
		}
	}
	reassertEntry = purego.NewCallback(reassertAccessory) // made once: callbacks are never freed
	return nil
}

// withPool runs f inside an autorelease pool, for the objects AppKit's
// getters return autoreleased, on one OS thread: a pool belongs to the
// thread that pushed it.
func withPool(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool := objc.ID(clsAutoreleasePool).Send(selNew)
	defer pool.Send(selDrain)
	f()
}

func setAccessory() {
	withPool(func() {
		objc.ID(clsApplication).Send(selSharedApplication).Send(selSetActivationPolicy, activationPolicyAccessory)
	})
}

// reassertAccessory is the dispatch_function_t queued once launching has
// finished.
func reassertAccessory(uintptr) { setAccessory() }

var (
	observeOnce    sync.Once
	launchObserver objc.ID // kept so the observation lasts for the process
)

// Accessory makes Reins an accessory app: no Dock icon and no app menu,
// even when the binary runs outside its bundle (the bundle's Info.plist
// sets LSUIElement). GLFW, under fyne, makes the app a regular one when
// launching finishes, on the first pass of the event loop after fyne's
// OnStarted hook has run; so the policy is set now and again just after
// launching finishes.
func Accessory() error {
	if err := load(); err != nil {
		return err
	}
	setAccessory()
	observeOnce.Do(func() {
		// The block queues the work rather than doing it: observers of the
		// same notification, GLFW's among them, may run after this one, and
		// the main queue runs it once they all have.
		block := objc.NewBlock(func(objc.Block, objc.ID) {
			dispatchAsyncF(mainQueue, 0, reassertEntry)
		})
		withPool(func() {
			center := objc.ID(clsNotificationCenter).Send(selDefaultCenter)
			launchObserver = center.Send(selAddObserver, didFinishLaunching, objc.ID(0), objc.ID(0), block)
		})
	})
	return nil
}

// Float lifts the window above every other app's windows, shows it on
// every Space and over full-screen apps, keeps it out of the Window menu,
// Mission Control and ⌘` cycling, and puts its top-right corner just under
// the menu bar at the right of the screen the person is using: the one
// under the mouse, else the main screen (which holds the window taking the
// keyboard), else the first screen, which holds the menu bar. nsWindow is an
// NSWindow *.
func Float(nsWindow uintptr) error {
	if nsWindow == 0 {
		return nil // fyne has not made the window yet
	}
	if err := load(); err != nil {
		return err
	}
	withPool(func() {
		w := objc.ID(nsWindow)
		w.Send(selSetLevel, popupLevel)
		w.Send(selSetCollectionBehavior, uint(canJoinAllSpaces|transient|ignoresCycle|fullScreenAuxiliary))
		w.Send(selSetExcludedFromWindowsMenu, true)

		screen := screenUnderMouse()
		if screen == 0 {
			screen = objc.ID(clsScreen).Send(selMainScreen)
		}
		if screen == 0 {
			screens := objc.ID(clsScreen).Send(selScreens)
			if objc.Send[uint](screens, selCount) == 0 {
				return // no screen: leave the window where it is
			}
			screen = screens.Send(selObjectAtIndex, uint(0))
		}
		visible := objc.Send[nsRect](screen, selVisibleFrame)
		frame := objc.Send[nsRect](w, selFrame)
		w.Send(selSetFrameTopLeftPoint, topRight(visible, frame.Size.W))
	})
	return nil
}

// screenUnderMouse is the NSScreen the mouse is on, or 0. NSEvent's
// mouseLocation and NSScreen's frame share AppKit's screen coordinates.
func screenUnderMouse() objc.ID {
	at := objc.Send[nsPoint](objc.ID(clsEvent), selMouseLocation)
	screens := objc.ID(clsScreen).Send(selScreens)
	n := objc.Send[uint](screens, selCount)
	frames := make([]nsRect, n)
	for i := range n {
		frames[i] = objc.Send[nsRect](screens.Send(selObjectAtIndex, i), selFrame)
	}
	i := screenAt(frames, at)
	if i < 0 {
		return 0
	}
	return screens.Send(selObjectAtIndex, uint(i))
}
