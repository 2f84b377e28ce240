package executor

import (
	"errors"

	"github.com/reins-app/reins/vocab"
)

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

// dialogKeys is the input that answers a dialog (vocab.Dialog), as the fire
// sequence knows it: Escape to dismiss; to accept, Enter, or for a prompt
// given text, the field's text replaced by it and then Enter. Any other
// act is returned unchanged.
func dialogKeys(a vocab.Act) vocab.Act {
	if a.Kind != vocab.Dialog {
		return a
	}
	switch {
	case !a.Accept:
		return vocab.Act{Kind: vocab.Key, Keys: "Escape"}
	case a.Text != "":
		return vocab.Act{Kind: vocab.Type, Text: a.Text, Clear: true, Submit: true}
	}
	return vocab.Act{Kind: vocab.Key, Keys: "Enter"}
}
