package executor

import (
	"context"
	"time"

	"github.com/reins-app/reins/audit"
)

// The file dialog on macOS is the browser's open panel: a new window on
// screen of the browser's own process (Chrome is not sandboxed, so the
// panel is not a separate service's). Its keys: Command+Shift+G opens "Go
// to the folder" over it, the path typed there and Return select the file
// in the panel, and a second Return is its Open button. Which window has
// the keyboard focus is read as the application with the focus
// (Accessibility) and its front window on screen; which window the panel
// is for is not known here, so only the process is checked.
//
// Not run on a Mac yet: built from the same sequence as Linux's and
// checked by go vet only.

var _ chooserDesk = (*Mac)(nil)

// FireUpload fires t's upload: see [Upload].
func (m *Mac) FireUpload(ctx context.Context, t audit.Ticket) error {
	return m.seq.upload(ctx, m, t)
}

func (m *Mac) chooserKeys() chooserKeys {
	return chooserKeys{
		location: chord{mods: modMeta | modShift, char: 'g'},
		accept:   []chord{{name: keyEnter}, {name: keyEnter}},
	}
}

func (m *Mac) chooserWait() time.Duration { return chooserDeadline }

func (m *Mac) shownWindows() (windowSet, error) {
	ws, err := onScreenWindows()
	if err != nil {
		return nil, err
	}
	set := windowSet{}
	for _, w := range ws {
		set[uint64(w.Number)] = true
	}
	return set, nil
}

func (m *Mac) clickedWindow(p point) (uint64, error) {
	ws, err := onScreenWindows()
	if err != nil {
		return 0, err
	}
	deny := m.deny.get()
	w, ok := macWindowAt(ws, p.X, p.Y, func(w macWindowInfo) bool {
		_, denied := deny.Match(appOfWindow(w))
		return denied
	})
	if !ok {
		return 0, nil
	}
	return uint64(w.Number), nil
}

// newDialogs lists the windows on screen that were not before; none says
// which window it is for.
func (m *Mac) newDialogs(before windowSet) ([]newDialog, error) {
	ws, err := onScreenWindows()
	if err != nil {
		return nil, err
	}
	var out []newDialog
	for _, w := range ws {
		if before[uint64(w.Number)] || w.Alpha <= 0 || w.Bounds.Width <= 0 || w.Bounds.Height <= 0 {
			continue
		}
		out = append(out, newDialog{chooser: chooser{id: uint64(w.Number), app: appOfWindow(w), title: w.Name}})
	}
	return out, nil
}

// chooserFocused reports whether c's process has the keyboard focus and
// its front window on screen is c, or one that came up after the click
// with it (the "Go to the folder" sheet).
func (m *Mac) chooserFocused(c chooser) (bool, error) {
	pid, err := focusedAppPID()
	if err != nil {
		return false, err
	}
	if pid != c.app.PID {
		return false, nil
	}
	ws, err := onScreenWindows()
	if err != nil {
		return false, err
	}
	for _, w := range ws {
		if w.OwnerPID == pid && w.Alpha > 0 && w.Bounds.Width > 0 && w.Bounds.Height > 0 {
			return uint64(w.Number) == c.id || (c.before != nil && !c.before[uint64(w.Number)]), nil
		}
	}
	return false, nil
}

func (m *Mac) chooserShown(c chooser) (bool, error) {
	ws, err := onScreenWindows()
	if err != nil {
		return false, err
	}
	for _, w := range ws {
		if uint64(w.Number) == c.id {
			return true, nil
		}
	}
	return false, nil
}
