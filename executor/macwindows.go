package executor

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The macOS executor's decisions about windows and the login session, kept
// apart from the CoreGraphics calls that gather their input so they can be
// tested on any OS against recorded data.

// macWindowInfo is one dictionary of CGWindowListCopyWindowInfo, under the
// names of its CFString keys.
type macWindowInfo struct {
	OwnerPID  int       `json:"kCGWindowOwnerPID"`
	Layer     int       `json:"kCGWindowLayer"`
	Bounds    macBounds `json:"kCGWindowBounds"`
	Alpha     float64   `json:"kCGWindowAlpha"`
	OwnerName string    `json:"kCGWindowOwnerName,omitempty"` // optional key
	Number    int       `json:"kCGWindowNumber"`
	Name      string    `json:"kCGWindowName,omitempty"` // optional; needs Screen Recording
}

// macBounds is the kCGWindowBounds dictionary: global points, origin at
// the main display's top left, y down.
type macBounds struct {
	X, Y, Width, Height float64
}

func (b macBounds) contains(x, y float64) bool {
	return x >= b.X && x < b.X+b.Width && y >= b.Y && y < b.Y+b.Height
}

// macSystemUI are the owners (kCGWindowOwnerName, the process name) of
// system prompts that float above the normal layer and take the clicks that
// land on them: alerts and banners, the permission and "downloaded from the
// internet" prompts, the lock screen and login prompts, password dialogs.
// The built-in deny list on macOS (denylist.DefaultFor) refuses each of them.
var macSystemUI = []string{"UserNotificationCenter", "NotificationCenter", "Notification Center", "CoreServicesUIAgent", "loginwindow", "SecurityAgent"}

func isMacSystemUI(owner string) bool {
	return slices.ContainsFunc(macSystemUI, func(s string) bool { return strings.EqualFold(s, owner) })
}

// macWindowAt returns the window that takes a click at (x, y) among ws,
// listed front to back, and false when none does (the desktop).
//
// A window with alpha 0 is skipped: it draws nothing and is taken for
// click-through. On the normal layer (0) the front window under the point
// wins. Above it, the menu bar, the Dock, panels and overlays (some
// invisible to the eye but not transparent) are skipped unless their owner
// is system UI or denied says so: a deny-listed floating panel must stop
// the click, and an overlay must not hide the window the click lands on.
// The menu bar's menus belong to the frontmost application, which is
// checked apart.
func macWindowAt(ws []macWindowInfo, x, y float64, denied func(macWindowInfo) bool) (macWindowInfo, bool) {
	for _, w := range ws {
		if !w.Bounds.contains(x, y) || w.Alpha <= 0 {
			continue
		}
		if w.Layer == 0 {
			return w, true
		}
		if w.Layer > 0 && (isMacSystemUI(w.OwnerName) || denied != nil && denied(w)) {
			return w, true
		}
	}
	return macWindowInfo{}, false
}

// macFrontWindow is the front visible normal-layer window, whose owner is
// the application in front when Accessibility cannot say.
func macFrontWindow(ws []macWindowInfo) (macWindowInfo, bool) {
	for _, w := range ws {
		if w.Layer == 0 && w.Alpha > 0 && w.Bounds.Width > 0 && w.Bounds.Height > 0 {
			return w, true
		}
	}
	return macWindowInfo{}, false
}

// macSession is the part of CGSessionCopyCurrentDictionary's dictionary
// that decides whether input may be posted.
type macSession struct {
	// ScreenIsLocked is present (true) only while the lock screen is up.
	// The key is not in Apple's headers.
	ScreenIsLocked bool `json:"CGSSessionScreenIsLocked"`
	// OnConsole (kCGSessionOnConsoleKey) is false while another user's
	// session has the display (fast user switching).
	OnConsole *bool `json:"kCGSSessionOnConsoleKey"`
}

// macSessionRefusal says why no input may be posted in session s, or nil
// when it may. A nil s is the NULL CGSessionCopyCurrentDictionary returns
// outside a login session (over ssh, or as a launch daemon).
func macSessionRefusal(s *macSession) error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: Reins is running outside the person's login session on this Mac (over ssh, say), where macOS posts no input; start Reins from the person's desktop; nothing was fired", ErrNoDisplay)
	case s.ScreenIsLocked:
		return fmt.Errorf("%w: the screen is locked, so any click or key would go to the lock screen; unlock the Mac and ask again; nothing was fired", ErrDenyListed)
	case s.OnConsole != nil && !*s.OnConsole:
		return fmt.Errorf("%w: another user's session has the screen, so input would go to them; switch back and ask again; nothing was fired", ErrDenyListed)
	}
	return nil
}

// outsideAppBundle reports whether exe, the running program's path, is a
// bare binary rather than one inside an application bundle
// (".../Name.app/Contents/MacOS/name"). macOS then charges Accessibility
// and the other privacy permissions to the terminal that started it.
func outsideAppBundle(exe string) bool {
	dir := filepath.Dir(filepath.Clean(exe))
	if filepath.Base(dir) != "MacOS" {
		return true
	}
	contents := filepath.Dir(dir)
	if filepath.Base(contents) != "Contents" {
		return true
	}
	return !strings.HasSuffix(strings.ToLower(filepath.Base(filepath.Dir(contents))), ".app")
}
