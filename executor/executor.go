// Package executor performs real OS input and answers the few questions about
// the screen that must be asked right before firing: which application is in
// front, which owns the window under a point, which windows and screens
// there are, which window shows a tab, when the person last used the mouse
// or keyboard. Reading the desktop (accessibility elements, dialogs,
// pictures) is package deskread's, beside it at the same stage.
//
// Every executor fires an act the same way, written once in sequence.go:
// check the ticket, find its points on a screen, resolve its keys, check the
// deny list and that the person is still, fire, let go of what is held and
// put the pointer back. It runs over a backend (backend.go): the few
// primitives one desktop offers, such as posting one event, where the
// pointer is, or which application is in front.
//
//   - executor.go: the [Executor] interface, what it reports, its errors.
//   - fire.go: the checks that need no event: the ticket, the deny list, the
//     person's own input.
//   - sequence.go, backend.go: the fire sequence and what a backend gives it.
//   - tabwindow.go: which window shows a tab ([Executor.TabWindow]), and the
//     checks that a tab's act lands only in it: the keyboard focus before
//     every key, the window under the point before every button and wheel
//     event (mactabwindow.go: macOS's side of it, over CGWindowList).
//   - x11_*.go: Linux, XTEST through the pure-Go X protocol (x11_keys_linux.go
//     resolves keys and lends spare keycodes; x11_apps_linux.go names the
//     application owning a window).
//   - mac_*.go: macOS, CGEvent, CGWindowList, NSWorkspace and AX through
//     purego (the CoreGraphics bindings in internal/quartz, shared with the
//     hand watch), so it is checked by `GOOS=darwin CGO_ENABLED=0 go vet` on
//     any machine.
//   - upload.go, filechooser_*.go: a file upload, the click and then the
//     file dialog it opened, told apart from every other window; on macOS
//     the reader of the desktop says where the keyboard focus is
//     ([SheetFocus]).
//   - fake.go, fake_backend.go: [Fake], the real sequence over a desktop that
//     records, for tests here and in other packages.
//   - keys.go, keys_mac.go: chords (as package keychord reads them) and
//     text, key by key; denylist.go: the deny list in force, which the
//     person may change while Reins runs (its rules are package denylist's);
//     chordkey*.go: which key a pause chord names on this keyboard, for
//     package hotkey, which takes the chord; nodisplay.go: a Reins without
//     a display.
//   - handact.go: every act fires under a watch on the person's own input
//     (package hand), and stops when they reach in ([HandStopped]).
//   - deadman*.go: the release guard, a helper process told of everything
//     the sequence holds, that lets go of it when Reins dies ([Guard],
//     [ServeGuard]); and what Reins lets go of as it starts
//     ([LetGoOfLeftovers]).
package executor

import (
	"context"
	"errors"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/keychord"
	"github.com/reins-app/reins/vocab"
)

// App identifies an application on screen. It is vocab's, so that the
// deny list and the person's settings, which name applications, need not
// link the executor.
type App = vocab.App

// Window is one top-level window, for desktop observation.
type Window struct {
	// ID is the window as the executor names it (X: the client window;
	// macOS: the window number); 0 when unknown.
	ID     uint64  `json:"id,omitempty"`
	App    App     `json:"app"`
	Title  string  `json:"title"`
	X      float64 `json:"x"` // DIP
	Y      float64 `json:"y"`
	W      float64 `json:"w"`
	H      float64 `json:"h"`
	Active bool    `json:"active"`
}

// Screen is one display's area, in DIP: the coordinates AppAt and Windows
// take and report.
type Screen struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Contains reports whether (x, y) lies on s: its left and top edges are on
// it, its right and bottom edges are not.
func (s Screen) Contains(x, y float64) bool {
	return x >= s.X && x < s.X+s.W && y >= s.Y && y < s.Y+s.H
}

// OnScreen reports whether (x, y) lies on one of screens.
func OnScreen(screens []Screen, x, y float64) bool {
	for _, s := range screens {
		if s.Contains(x, y) {
			return true
		}
	}
	return false
}

// Executor fires approved acts. Implementations are safe for concurrent use
// and fire one act at a time.
type Executor interface {
	// Fire performs t's act at t's plan. Right before the first event it checks
	// the frontmost application and the owner of the window under the point
	// against the deny list, and returns an error wrapping ErrDenyListed
	// without firing anything when either matches. Then it checks that the
	// person has not touched the mouse or keyboard since the plan's
	// QuietFrom (else the approval's moment), and returns an error wrapping
	// ErrPersonActive without firing anything when they have.
	Fire(ctx context.Context, t audit.Ticket) error
	// Frontmost returns the application in front.
	Frontmost(ctx context.Context) (App, error)
	// AppAt returns the application owning the window under (x, y) in DIP.
	AppAt(ctx context.Context, x, y float64) (App, error)
	// Windows lists top-level windows, front to back where known.
	Windows(ctx context.Context) ([]Window, error)
	// Screens lists the displays input can reach. Fire refuses a point on
	// none of them with an error wrapping ErrOffScreen; callers ask first,
	// so that no one is asked about an act that cannot happen.
	Screens(ctx context.Context) ([]Screen, error)
	// LastInput is when the person last used the mouse or keyboard, or the
	// zero time when the latest input was the executor's own (the person's
	// before it cannot be known then).
	LastInput(ctx context.Context) (time.Time, error)
	// SetDenyList replaces the deny list from the next check on, an act in
	// flight included; an empty list means denylist.Default().
	SetDenyList(d denylist.List)
	// TabWindow finds the window that shows a browser's tab, from where
	// the browser says the tab's window is (see [TabWindowQuery]): a web
	// browser's window, the one the display server says it is, never one
	// picked by its title alone. When none, or more than one, can be told
	// to be it, it returns an error wrapping ErrNoTabWindow.
	TabWindow(ctx context.Context, q TabWindowQuery) (TabWindow, error)
	// Close releases the connection to the display.
	Close() error
}

// Errors callers may test for with errors.Is.
var (
	ErrDenyListed = errors.New("a deny-listed application is in the way")
	// ErrBrowser: a desktop act would land in a web browser, whose tabs
	// agents act on with the browser tools, each under its own share.
	ErrBrowser     = errors.New("a web browser is in the way")
	ErrInvalid     = errors.New("the ticket is not valid: nothing fires without a committed audit row")
	ErrNoDisplay   = errors.New("no display to send input to")
	ErrUnsupported = errors.New("this act is not supported here")
	ErrUnknownKey  = keychord.ErrUnknownKey
	// ErrHiddenKey: typed text holds a character that would press a key
	// the person cannot see in it (a tab, a stray carriage return), or that
	// no key types; nothing is typed.
	ErrHiddenKey  = errors.New("the text holds a key the person would not see")
	ErrOffScreen  = errors.New("the point is off the screen, so nothing was fired; take a fresh snapshot")
	ErrPermission = errors.New("no permission to send input")
	// ErrPersonActive: the person used the mouse or keyboard after the act
	// was approved, so nothing fired; the act is theirs to ask about again.
	ErrPersonActive = errors.New("the person is using the mouse or keyboard")
	// ErrNotThere: the act's Witness said the pointer, at the act's point,
	// is not over its target, so no button or wheel moved.
	ErrNotThere = errors.New("the pointer is not over the act's target")
	// ErrPointerNotBack: after an act stopped by its Witness, the pointer
	// could not be put back where the person had it.
	ErrPointerNotBack = errors.New("the pointer could not be put back")
)

// Options configures [New].
type Options struct {
	DenyList denylist.List  // optional: when empty, denylist.Default()
	Display  string         // optional, X11: the display; default $DISPLAY
	Scale    func() float64 // optional, X11: device pixels per DIP for AppAt and Windows, which get no plan; default 1
	// SheetFocus, macOS: where an application's keyboard focus is, which
	// tells the file dialog of an upload; without it an upload is refused.
	SheetFocus SheetFocus // optional
}
