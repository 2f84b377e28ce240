// Package deskread reads the desktop: the accessibility elements of a
// native application's window, the JavaScript dialog a browser shows, and
// pictures of the screen. It sends no input; what fires is the executor's
// (package executor), at the same stage, which this package may ask about
// windows but which never links it. Core holds a [Reader] beside the
// executor, and reads before it asks the person and fires.
//
//   - deskread.go: the [Reader] interface, its errors, [New].
//   - atspi_linux.go, accessible_linux.go: Linux's accessibility reader,
//     AT-SPI over D-Bus, and the application's own scale.
//   - jsdialog_linux.go: a browser's JavaScript dialog, from AT-SPI.
//   - capture_linux.go: pictures of the X screen, on a connection of the
//     reader's own.
//   - mac_darwin.go: [Mac], macOS's reader, and the framework calls it binds.
//   - axmap.go, axread_darwin.go: macOS's accessibility reader, the tree
//     built from AXUIElements (pure, tested everywhere on recorded
//     elements) and the AXUIElement calls; jsdialog_mac.go,
//     jsdialog_darwin.go: a browser's dialog from them.
//   - sheetfocus_mac.go: whether an application's keyboard focus is in a
//     sheet, which the executor asks of macOS's file dialog
//     ([executor.SheetFocus]).
//   - capture_darwin.go, capture_sck_darwin.go, capture_mac.go,
//     imageconv.go: pictures of macOS's displays, the Screen Recording
//     check and the CGImage's pixels into RGBA.
//   - fake.go: [Fake], a reader of a staged desktop for tests of core.
package deskread

import (
	"context"

	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// Reader reads the desktop. Implementations are safe for concurrent use.
type Reader interface {
	// Accessible reads the accessibility elements of the window of the
	// application with process id pid (Linux: AT-SPI; macOS: AXUIElement,
	// with the Linux reader's role names). It never reads a password
	// field's value. Where it is not built it returns an error wrapping
	// executor.ErrUnsupported.
	Accessible(ctx context.Context, pid int) (*gdesktop.Tree, error)
	// AccessibleAt asks the application with process id pid which of its
	// elements inside window (an element ID from Accessible) is at (x, y)
	// in DIP, the deepest one, and returns its ID.
	AccessibleAt(ctx context.Context, pid int, window string, x, y float64) (string, error)
	// JSDialog reads the JavaScript dialog that the browser with process id
	// pid shows as its active window (alert, confirm, prompt, a page's
	// leave question), from the browser's own accessibility tree. A window
	// that is no such dialog is not read past its top, and gives an error
	// wrapping ErrNoDialog. Where it is not built it returns an error
	// wrapping executor.ErrUnsupported.
	JSDialog(ctx context.Context, pid int) (JSDialog, error)
	// Capture takes a picture of the whole screen as it shows now: every
	// window, Reins' own and deny-listed ones included, so that callers
	// must hide what an agent may not see. Where it is not built it returns
	// an error wrapping executor.ErrUnsupported.
	Capture(ctx context.Context) (Picture, error)
	// Close releases the reader's connections.
	Close() error
}

// Options configures [New].
type Options struct {
	// Windows lists the desktop's top-level windows (the executor's
	// Windows): Linux's reader tells an application's own scale from its
	// window. Required on X11.
	Windows func(ctx context.Context) ([]executor.Window, error)
	Display string         // optional, X11: the display; default $DISPLAY
	Scale   func() float64 // optional, X11: device pixels per DIP; default 1
	// SessionBus, X11: the D-Bus session bus whose accessibility bus
	// Accessible reads; default $DBUS_SESSION_BUS_ADDRESS.
	SessionBus string // optional
	// AccessibleSource, X11: how Accessible reads an application; default
	// AccessibleAuto (its cache where it holds the whole tree). Benchmarks
	// set it to compare the two ways.
	AccessibleSource AccessibleSource // optional
}

// Unavailable is the [Reader] of a Reins that cannot see the desktop:
// every read is refused with the error it was made with.
type Unavailable struct{ err error }

var _ Reader = (*Unavailable)(nil)

// NewUnavailable returns a reader that refuses every read with why.
func NewUnavailable(why error) *Unavailable { return &Unavailable{err: why} }

// Accessible is refused.
func (u *Unavailable) Accessible(context.Context, int) (*gdesktop.Tree, error) { return nil, u.err }

// AccessibleAt is refused.
func (u *Unavailable) AccessibleAt(context.Context, int, string, float64, float64) (string, error) {
	return "", u.err
}

// JSDialog is refused.
func (u *Unavailable) JSDialog(context.Context, int) (JSDialog, error) { return JSDialog{}, u.err }

// Capture is refused.
func (u *Unavailable) Capture(context.Context) (Picture, error) { return Picture{}, u.err }

// Close does nothing.
func (u *Unavailable) Close() error { return nil }
