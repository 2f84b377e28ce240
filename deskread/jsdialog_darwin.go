package deskread

import (
	"context"
	"fmt"

	"github.com/reins-app/reins/internal/macos"
)

// JSDialog implements Reader, through Accessibility: the dialog the
// browser with process id pid shows in its focused window, read as
// jsdialog_mac.go says, its text field's value never asked for.
func (m *Mac) JSDialog(ctx context.Context, pid int) (JSDialog, error) {
	src, target, opts, err := m.axBegin(ctx, pid)
	if err != nil {
		return JSDialog{}, err
	}
	defer src.close()
	return axJSDialog(ctx, axDialogApp{src, pid}, target, opts)
}

// axDialogApp is an axApp that names elements, for the dialog reader.
type axDialogApp struct {
	*axApp
	proc int // the application's pid
}

// id names el by its process and CFHash: an AXUIElement's hash follows
// the element it stands for, so the same dialog read again has the same
// name and a dialog raised later, another element, has (all but surely)
// another. Should two dialogs' names meet, core still compares their
// words before it answers.
func (a axDialogApp) id(el axRef) string {
	return fmt.Sprintf("ax:%d:%x", a.proc, macos.CFHash(uintptr(el)))
}
