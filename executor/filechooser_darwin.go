package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reins-app/reins/audit"
)

// The file dialog on macOS is the browser's open panel: a sheet on the
// browser window clicked, a new window on screen of the browser's own
// process (Chrome is not sandboxed, so the panel is not a separate
// service's). Its keys: Command+Shift+G opens "Go to the folder" over it,
// the path typed there and Return select the file in the panel, and a
// second Return is its Open button. Which window is a sheet, and on which
// window, is read from Accessibility by the reader of the desktop (SheetFocus): the sheet the
// application's keyboard focus is in, matched to the windows on screen by
// frame. A window the page opens is not a sheet, so it is never taken for
// the panel, nor typed into.
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

func (m *Mac) chooserRole() string { return macSheetRole }

// focusSheet is the sheet the keyboard focus of pid's application is in,
// and the window it is on, by frame, as MacOptions.SheetFocus reads it;
// ok is false when the focus is in no sheet. Without a reader to ask, no
// window is taken for the panel.
func (m *Mac) focusSheet(pid int) (sheet, window macBounds, ok bool, err error) {
	if m.sheets == nil {
		return macBounds{}, macBounds{}, false, fmt.Errorf("%w: nothing reads where the keyboard focus is", ErrUnsupported)
	}
	s, w, ok, err := m.sheets(pid)
	return macBoundsOf(s), macBoundsOf(w), ok, err
}

func macBoundsOf(b Bounds) macBounds { return macBounds{X: b.X, Y: b.Y, Width: b.W, Height: b.H} }

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

// newDialogs lists the windows on screen that were not before. The one
// whose frame is that of the sheet its application's keyboard focus is in
// is a sheet (role AXSheet), for the window of that application whose
// frame is the sheet's window's; the others say nothing.
func (m *Mac) newDialogs(before windowSet) ([]newDialog, error) {
	ws, err := onScreenWindows()
	if err != nil {
		return nil, err
	}
	type focus struct {
		sheet, window macBounds
		ok            bool
	}
	focuses := map[int]focus{} // by pid, read once a call
	var out []newDialog
	for _, w := range ws {
		if before[uint64(w.Number)] || w.Alpha <= 0 || w.Bounds.Width <= 0 || w.Bounds.Height <= 0 {
			continue
		}
		d := newDialog{chooser: chooser{id: uint64(w.Number), app: appOfWindow(w), title: w.Name}}
		f, read := focuses[w.OwnerPID]
		if !read {
			sheet, window, ok, err := m.focusSheet(w.OwnerPID)
			switch {
			case errors.Is(err, ErrPermission), errors.Is(err, ErrUnsupported):
				return nil, err
			}
			// Otherwise an application that does not answer says nothing
			// of its windows, and none of them is taken for the dialog.
			f = focus{sheet, window, ok}
			focuses[w.OwnerPID] = f
		}
		if f.ok && sameBounds(f.sheet, w.Bounds) {
			d.role = macSheetRole
			for _, host := range ws {
				if host.OwnerPID == w.OwnerPID && host.Number != w.Number && sameBounds(f.window, host.Bounds) {
					d.forWindow = uint64(host.Number)
					break
				}
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// chooserFocused reports whether c's process has the keyboard focus, in a
// sheet whose frame is c's, on the window clicked.
func (m *Mac) chooserFocused(c chooser) (bool, error) {
	pid, err := focusedAppPID()
	if err != nil {
		return false, err
	}
	if pid != c.app.PID {
		return false, nil
	}
	sheet, window, ok, err := m.focusSheet(pid)
	if err != nil || !ok {
		return false, err
	}
	ws, err := onScreenWindows()
	if err != nil {
		return false, err
	}
	var inSheet, onWindow bool
	for _, w := range ws {
		switch uint64(w.Number) {
		case c.id:
			inSheet = sameBounds(sheet, w.Bounds)
		case c.forWindow:
			onWindow = sameBounds(window, w.Bounds)
		}
	}
	return inSheet && onWindow, nil
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
