package ui

import (
	"fyne.io/fyne/v2/driver"

	"github.com/reins-app/reins/app/macwin"
)

// floatPopup puts the approval popup where the person will see it: on
// macOS above every other app's window, on every Space, just under the menu
// bar at the right of the screen. It must run after each Show: fyne makes
// the native window on the first Show, and the person may be on another
// screen since the last question. Elsewhere it does nothing.
func (u *UI) floatPopup() {
	nw, ok := u.popupWin.(driver.NativeWindow)
	if !ok {
		return // fyne's test driver, for one
	}
	// RunNative calls back at once, on this, fyne's main goroutine, as
	// AppKit requires.
	nw.RunNative(func(ctx any) {
		m, ok := ctx.(driver.MacWindowContext)
		if !ok {
			return
		}
		if err := macwin.Float(m.NSWindow); err != nil {
			u.opts.Logf("the approval popup cannot float above other windows: %v", err)
		}
	})
}

// rememberFront notes, before the popup takes the keyboard, which
// application the person was using; on macOS only.
func (u *UI) rememberFront() {
	if err := macwin.RememberFront(); err != nil {
		u.opts.Logf("cannot tell which application is in front: %v", err)
	}
}

// giveBackFront returns the keyboard to that application once nothing waits
// in the popup, so that the act just approved meets the person's app, not
// Reins, in front; on macOS only (an X window manager does it by itself).
func (u *UI) giveBackFront() {
	if err := macwin.GiveBackFront(); err != nil {
		u.opts.Logf("cannot give the keyboard back: %v", err)
	}
}
