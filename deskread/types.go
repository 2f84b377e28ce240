package deskread

import (
	"errors"
	"image"
)

// Picture is a capture of the screen: Image in device pixels, its origin
// at DIP (0, 0), Scale device pixels per DIP.
type Picture struct {
	Image *image.RGBA
	Scale float64
}

// JSDialog is a JavaScript dialog (alert, confirm, prompt, or a page's
// "leave site?" question) that a browser shows as its active window, as the
// browser's own accessibility tree describes it. Everything in it but the
// IDs is the page's or the browser's text.
type JSDialog struct {
	// ID names the dialog for as long as it is up (on Linux, its AT-SPI
	// object path with the application's bus name): a dialog raised after
	// this one is answered has another.
	ID string
	// Title is the dialog's heading, such as "example.com says" or
	// "Leave site?".
	Title string
	// Message is the page's text in the dialog; "" when it shows none.
	Message string
	// Buttons are the dialog's buttons' names, in the order it lists them.
	Buttons []string
	// Field reports whether the dialog has a text field: a prompt.
	Field bool
	// Focused reports whether the keyboard focus is inside the dialog, so
	// that keys pressed now go to it.
	Focused bool
	// FieldFocused reports whether the focus is on the text field itself,
	// where a prompt's answer is typed.
	FieldFocused bool
	// Secret reports a password field in the dialog: not a page's dialog
	// (a page's prompt has none), but the browser's own sign-in.
	Secret bool
	// TitleOnly reports that the browser showed only the dialog's window
	// and its title ("example.com says"), not what is in it: its message,
	// buttons and focus are unknown. (Chromium does so while its
	// accessibility is only partly on.)
	TitleOnly bool
}

// Bounds of a dialog's read: Chromium's has a few dozen elements.
const (
	maxDialogElements = 200
	maxDialogDepth    = 24
)

// ErrNoDialog: the application's active window is not a JavaScript dialog.
var ErrNoDialog = errors.New("the browser shows no JavaScript dialog in its active window")

// Errors of pictures, for errors.Is.
var (
	// ErrNoScreenRecording: macOS has not given Reins the Screen Recording
	// permission, without which a picture shows no other application's
	// windows; so none is taken rather than one passed off as the desktop.
	// Its text, the fix-it step included, fits a refusal's detail.
	ErrNoScreenRecording = errors.New("no picture was taken: macOS has not given Reins the Screen Recording permission; in System Settings › Privacy & Security › Screen & System Audio Recording turn Reins on, then quit and reopen Reins")
)
