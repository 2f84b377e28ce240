package deskread

import (
	"context"
	"fmt"
	"strings"
)

// AT-SPI role names of what a browser's JavaScript dialog holds, as
// Chromium's views report them.
const (
	roleDialog  = "dialog"
	roleButton  = "push button"
	roleHeading = "heading"
	roleStatic  = "static"
	roleLabel   = "label"
	roleEntry   = "entry"
	roleText    = "text"
)

// JSDialog implements Reader, through AT-SPI: the browser's active window
// is read only when its one element below the window is a dialog; a
// browser window that is not one (its tab strip, its page) is not read
// past its own top. The text field's content is never read.
func (x *X11) JSDialog(ctx context.Context, pid int) (JSDialog, error) {
	if x.isClosed() {
		return JSDialog{}, errClosed
	}
	r, err := x.a11y.open(ctx, x.opts.SessionBus, x.opts.AccessibleSource)
	if err != nil {
		return JSDialog{}, err
	}
	return r.Dialog(ctx, pid)
}

// Dialog reads the JavaScript dialog the application with process id pid
// shows as its active window, or returns an error wrapping ErrNoDialog.
func (r *AccessibleReader) Dialog(ctx context.Context, pid int) (JSDialog, error) {
	a, err := r.find(ctx, pid)
	if err != nil {
		return JSDialog{}, err
	}
	roots, err := a.readNodes(ctx, []ref{a.root})
	if err != nil {
		return JSDialog{}, err
	}
	windows, err := a.readNodes(ctx, live(roots[0].children))
	if err != nil {
		return JSDialog{}, err
	}
	var win *node
	for _, w := range windows {
		if w.has(stateActive) {
			win = w
			break
		}
	}
	if win == nil {
		return JSDialog{}, fmt.Errorf("%w: %v has no active window", ErrNoDialog, a)
	}
	kids := live(win.children)
	if len(kids) == 0 && strings.HasSuffix(win.name, " says") {
		return JSDialog{ID: win.ref.Bus + string(win.ref.Path), Title: win.name, TitleOnly: true}, nil
	}
	if len(kids) != 1 {
		return JSDialog{}, ErrNoDialog
	}
	top, err := a.readNodes(ctx, kids)
	if err != nil {
		return JSDialog{}, err
	}
	dlg := top[0]
	if dlg.roleName != roleDialog {
		return JSDialog{}, ErrNoDialog
	}
	d := JSDialog{ID: dlg.ref.Bus + string(dlg.ref.Path), Title: dlg.name, Focused: dlg.has(stateFocused)}
	// Breadth first, in the dialog's own order, bounded.
	var message []string
	var label string
	seen := map[ref]bool{dlg.ref: true}
	level, count := []*node{dlg}, 1
	for depth := 0; len(level) > 0 && depth < maxDialogDepth; depth++ {
		var refs []ref
		for _, n := range level {
			if n.isField() {
				continue // a field's children are its text
			}
			for _, c := range live(n.children) {
				if !seen[c] && count < maxDialogElements {
					seen[c] = true
					refs = append(refs, c)
					count++
				}
			}
		}
		if len(refs) == 0 {
			break
		}
		if level, err = a.readNodes(ctx, refs); err != nil {
			return JSDialog{}, err
		}
		for _, n := range level {
			if n.has(stateFocused) {
				d.Focused = true
			}
			switch {
			case n.roleName == roleButton:
				d.Buttons = append(d.Buttons, n.name)
			case n.isField():
				d.Field = true
				d.FieldFocused = d.FieldFocused || n.has(stateFocused)
				d.Secret = d.Secret || n.secret()
				// A prompt's message is its field's label.
				if label == "" {
					label = n.name
				}
			case n.roleName == roleHeading:
				if d.Title == "" {
					d.Title = n.name
				}
			case (n.roleName == roleStatic || n.roleName == roleLabel) && strings.TrimSpace(n.name) != "":
				message = append(message, n.name)
			}
		}
	}
	d.Message = strings.Join(message, "\n")
	if d.Message == "" {
		d.Message = label
	}
	return d, nil
}

// isField reports whether n is a text field, whose text is the person's
// or the page's default answer, not the dialog's message.
func (n *node) isField() bool {
	return n.roleName == roleEntry || n.roleName == roleText || n.secret() || n.implements(ifaceEditableText)
}
