//go:build darwin && cgo

package macwin

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/progrium/darwinkit/macos/appkit"
	"github.com/progrium/darwinkit/macos/foundation"
	"github.com/progrium/darwinkit/objc"

	"github.com/reins-app/reins/internal/macos"
)

// AppKit through darwinkit: typed calls, which `make vet`'s darwin + cgo
// type check holds against darwinkit's declarations, where a misspelt
// selector string would only fail on a Mac, at run time.

// Accessory makes Reins an accessory app: no Dock icon and no app menu,
// even when the binary runs outside its bundle (the bundle's Info.plist
// sets LSUIElement). GLFW, under fyne, would make the app a regular one when
// launching finishes; the main tells it not to (GLFW's Cocoa menu bar init
// hint) before fyne starts it.
func Accessory() error {
	var ok bool
	objc.WithAutoreleasePool(func() {
		ok = appkit.Application_SharedApplication().SetActivationPolicy(appkit.ApplicationActivationPolicyAccessory)
	})
	if !ok {
		return errors.New("macOS refused the accessory activation policy")
	}
	return nil
}

// popupLevel is NSStatusWindowLevel (kCGStatusWindowLevel, 25): the level of
// the menu bar's status items. It is above ordinary and floating windows (0
// and 3), the Dock (20) and the menu bar (24), so no app's window can cover
// the question; and below pop-up menus (101), so a menu the person opens,
// the Reins menu among them, draws over the popup rather than under it,
// which NSPopUpMenuWindowLevel would not allow.
const popupLevel = appkit.StatusWindowLevel

// popupBehavior shows the popup on every Space and over full-screen apps,
// and leaves it out of Mission Control and ⌘` cycling.
const popupBehavior = appkit.WindowCollectionBehaviorCanJoinAllSpaces |
	appkit.WindowCollectionBehaviorTransient |
	appkit.WindowCollectionBehaviorIgnoresCycle |
	appkit.WindowCollectionBehaviorFullScreenAuxiliary

// Float lifts the window above every other app's windows, shows it on
// every Space and over full-screen apps, keeps it out of the Window menu,
// Mission Control and ⌘` cycling, and puts its top-right corner just under
// the menu bar at the right of the screen the person is using: the one
// under the mouse, else the main screen (which holds the window taking the
// keyboard), else the first screen, which holds the menu bar. nsWindow is an
// NSWindow *.
//
// The window stays an NSWindow, not a non-activating NSPanel: fyne's window
// is GLFW's NSWindow subclass, and AppKit documents the non-activating
// style for NSPanel and its subclasses only. So answering the popup
// activates Reins, and GiveBackFront hands the keyboard back.
//
// For the self-test to confirm on macOS 14 and later, whose activation is
// cooperative: an app's own request to become active is only a request,
// which the system may refuse while another app is the person's. Showing
// the popup asks for nothing (it must not take the keys the person is
// typing elsewhere); the person's click on it is theirs, and activates
// Reins, so clicks always answer it. Its keys reach it only once Reins is
// active, and they only deny (Esc and Return both press Deny): were
// activation refused, the person still answers with a click, and no key
// gone astray allows anything. So it fails safe; what only a Mac can say
// is whether the first click both activates Reins and presses the button
// it lands on.
func Float(nsWindow uintptr) error {
	if nsWindow == 0 {
		return nil // fyne has not made the window yet
	}
	objc.WithAutoreleasePool(func() {
		// Going through &nsWindow keeps vet's uintptr rule satisfied: the
		// window is AppKit's memory, never moved by Go.
		w := appkit.WindowFrom(*(*unsafe.Pointer)(unsafe.Pointer(&nsWindow)))
		w.SetLevel(popupLevel)
		w.SetCollectionBehavior(popupBehavior)
		w.SetExcludedFromWindowsMenu(true)
		screen, ok := personsScreen()
		if !ok {
			return // no screen: leave the window where it is
		}
		visible := screen.VisibleFrame()
		at := topRight(rect{X: visible.Origin.X, Y: visible.Origin.Y, W: visible.Size.Width, H: visible.Size.Height}, w.Frame().Size.Width)
		w.SetFrameTopLeftPoint(foundation.Point{X: at.X, Y: at.Y})
	})
	return nil
}

// personsScreen is the screen under the mouse, else the main screen, else
// the first; false when there is none. NSEvent's mouseLocation and
// NSScreen's frame share AppKit's screen coordinates.
func personsScreen() (appkit.Screen, bool) {
	screens := appkit.Screen_Screens()
	frames := make([]rect, len(screens))
	for i, s := range screens {
		f := s.Frame()
		frames[i] = rect{X: f.Origin.X, Y: f.Origin.Y, W: f.Size.Width, H: f.Size.Height}
	}
	mouse := appkit.Event_MouseLocation()
	if i := screenAt(frames, point{X: mouse.X, Y: mouse.Y}); i >= 0 {
		return screens[i], true
	}
	if main := appkit.Screen_MainScreen(); !main.IsNil() {
		return main, true
	}
	if len(screens) > 0 {
		return screens[0], true
	}
	return appkit.Screen{}, false
}

// front is the application to hand the keyboard back to; on the main
// thread only, as AppKit is.
var front = frontMemory[appkit.RunningApplication]{
	hold: func(a appkit.RunningApplication) { a.Retain() },
	drop: func(a appkit.RunningApplication) { a.Release() },
}

var (
	watchOnce sync.Once
	watchErr  error
	// activations is NSWorkspace's observer of applications coming to the
	// front, kept so that the observation lasts for the process.
	activations objc.Object
)

// isReins reports whether app is this process.
func isReins(app appkit.RunningApplication) bool {
	return int(app.ProcessIdentifier()) == os.Getpid()
}

// RememberFront notes the application the person is using, unless it is
// Reins itself, so that GiveBackFront can return to it once the popup has
// been answered; until then, each other application the person brings to
// the front replaces it. The first call starts following NSWorkspace's
// activation notifications.
func RememberFront() error {
	watchOnce.Do(func() { watchErr = watchActivations() })
	objc.WithAutoreleasePool(func() {
		app := appkit.Workspace_SharedWorkspace().FrontmostApplication()
		if !app.IsNil() {
			front.remember(app, isReins(app))
		}
	})
	return watchErr
}

// watchActivations follows NSWorkspaceDidActivateApplicationNotification
// on the main queue. The notification's name and the userInfo key of the
// application are AppKit's constants, read from AppKit: darwinkit v0.5.0
// does not declare them.
func watchActivations() error {
	if err := macos.Load(); err != nil {
		return err
	}
	name, err := macos.AppKitString("NSWorkspaceDidActivateApplicationNotification")
	if err != nil {
		return fmt.Errorf("cannot follow the applications the person brings to the front: %w", err)
	}
	key, err := macos.AppKitString("NSWorkspaceApplicationKey")
	if err != nil {
		return fmt.Errorf("cannot follow the applications the person brings to the front: %w", err)
	}
	objc.WithAutoreleasePool(func() {
		appKey := foundation.String_StringWithString(key)
		appKey.Retain() // for the process: the observer's block reads it
		center := appkit.Workspace_SharedWorkspace().NotificationCenter()
		activations = center.AddObserverForNameObjectQueueUsingBlock(foundation.NotificationName(name), nil, foundation.OperationQueue_MainQueue(),
			func(n foundation.Notification) {
				info := n.UserInfo()
				if info.IsNil() {
					return
				}
				obj := info.ObjectForKey(appKey)
				if obj.IsNil() {
					return
				}
				app := appkit.RunningApplicationFrom(obj.Ptr())
				front.activated(app, isReins(app))
			})
		activations.Retain()
	})
	return nil
}

// GiveBackFront makes the application RememberFront noted (or the one the
// person moved to since) the active one again. Answering the popup made
// Reins the active app, and a hidden window does not hand that back on
// macOS: without this, the keyboard would stay with Reins and every act
// approved a moment ago would find Reins, which is on its own deny list, in
// front.
func GiveBackFront() error {
	app, ok := front.take()
	if !ok {
		return nil
	}
	defer front.drop(app)
	if err := macos.Load(); err != nil {
		objc.WithAutoreleasePool(func() { app.ActivateWithOptions(appkit.ApplicationActivateAllWindows) })
		return err
	}
	objc.WithAutoreleasePool(func() {
		// macOS 14 and later: cooperative activation, where
		// activateWithOptions: alone is ignored when Reins is not the one
		// in front; darwinkit has neither call, so internal/macos makes them.
		if macos.HandActivationTo(uintptr(app.Ptr())) {
			return
		}
		app.ActivateWithOptions(appkit.ApplicationActivateAllWindows)
	})
	return nil
}
