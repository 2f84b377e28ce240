package deskread

import (
	"context"
	"fmt"
	"strings"

	"github.com/reins-app/reins/internal/macos/ax"
)

// A browser's JavaScript dialog on macOS, read from the browser's own
// accessibility tree over [axDialogSource]: jsdialog_darwin.go gives
// AXUIElement calls, the tests recorded elements. Nothing here calls the
// OS, so it is built and tested on every system.
//
// Chrome on macOS draws a page's alert, confirm, prompt and its "Leave
// site?" question as a tab-modal dialog of its own views, not a sheet of
// AppKit's; its views reach Accessibility through the same mapping as web
// content (Chromium's ax_platform_node_cocoa: a dialog is an AXGroup whose
// subrole is AXApplicationDialog, an alert dialog AXApplicationAlertDialog;
// buttons are AXButton, text AXStaticText with its text as AXValue, a
// field AXTextField). Whether the dialog is a child window of its own
// (an AXWindow the browser reports as focused) or a group inside the
// browser window depends on Chrome's version; both are read. This is
// unverified on a Mac: the recorded trees under testdata/axrecorded are
// written from that structure, and the self-test checks it.
//
// The rules are Linux's (jsdialog_linux.go): only the browser's focused
// window is read; nothing inside a web area (the page's own content,
// where a page could draw a look-alike) is taken for the dialog; a text
// field's value is never asked for. Core then takes only a dialog whose
// title names the tab's site.

// axDialogSource is an axSource that can also name an element.
type axDialogSource interface {
	axSource
	// id names el for as long as it lives: equal elements have equal
	// names, and an element made later, for another dialog, another.
	id(el axRef) string
}

// The AX names the dialog reader looks for.
const (
	axRoleGroup         = "AXGroup"
	axRoleSheet         = "AXSheet"
	axRoleButton        = "AXButton"
	axRoleStaticText    = "AXStaticText"
	axRoleHeading       = "AXHeading"
	axRoleWebArea       = "AXWebArea"
	axSubAppDialog      = "AXApplicationDialog"
	axSubAppAlertDialog = "AXApplicationAlertDialog"
	axSubDialog         = "AXDialog"
	axSubSystemDialog   = "AXSystemDialog"
)

// axDialogAttrs are what the reader asks each element for, in one call.
var axDialogAttrs = []string{axAttrRole, axAttrSubrole, axAttrTitle, axAttrDescription, axAttrFocused, axAttrChildren}

const (
	adRole = iota
	adSubrole
	adTitle
	adDescription
	adFocused
	adChildren
)

// Bounds of the look for a dialog in the browser's focused window: its
// toolbars and tab strip, not its pages.
const (
	maxDialogSearch      = 300
	maxDialogSearchDepth = 16
)

// axDialogNode is one element as the dialog reader read it.
type axDialogNode struct {
	ref     axRef
	role    string
	subrole string
	name    string // AXTitle, else AXDescription
	focused bool
	kids    []axRef
}

// isDialog reports whether n is a dialog drawn inside a window.
func (n *axDialogNode) isDialog() bool {
	return n.role == axRoleSheet || n.role == axRoleGroup && (n.subrole == axSubAppDialog || n.subrole == axSubAppAlertDialog)
}

// isField reports whether n is a text field, whose text is the person's
// or the page's default answer, not the dialog's message.
func (n *axDialogNode) isField() bool {
	switch n.role {
	case "AXTextField", "AXTextArea", "AXComboBox", axSecureField:
		return true
	}
	return axSecret(n.role, n.subrole)
}

// axDialogReader reads one application's dialog, owning every reference
// it was handed and releasing them all at the end.
type axDialogReader struct {
	w   *axWalker
	src axDialogSource
}

func (r *axDialogReader) node(el axRef) (*axDialogNode, error) {
	vals, err := r.src.attrs(el, axDialogAttrs)
	if err != nil {
		if c := axCodeOf(err); c == ax.CannotComplete || c == ax.APIDisabled {
			return nil, r.w.app.fail("a dialog's element", err, r.w.opts.CallTimeout)
		}
		return nil, nil // gone, or unreadable on its own
	}
	r.w.own(vals...)
	n := &axDialogNode{ref: el, role: vals[adRole].str(), subrole: vals[adSubrole].str(), name: vals[adTitle].str()}
	if n.name == "" {
		n.name = vals[adDescription].str()
	}
	n.focused, _ = vals[adFocused].truth()
	if v := vals[adChildren]; v.Kind == axkElements {
		n.kids = v.Elems
	}
	return n, nil
}

// text is what a static text or heading says: its AXValue, else its name.
func (r *axDialogReader) text(n *axDialogNode) (string, error) {
	v, err := r.src.attr(n.ref, axAttrValue)
	switch {
	case err == nil:
		r.w.own(v)
		if s := v.str(); s != "" {
			return s, nil
		}
	case axCodeOf(err) == ax.CannotComplete || axCodeOf(err) == ax.APIDisabled:
		return "", r.w.app.fail("a dialog's text", err, r.w.opts.CallTimeout)
	}
	return n.name, nil
}

// axJSDialog reads the JavaScript dialog the application src is for shows
// in its focused window, or returns an error wrapping ErrNoDialog.
func axJSDialog(ctx context.Context, src axDialogSource, app axTarget, opts axReadOptions) (JSDialog, error) {
	opts.defaults()
	w := &axWalker{src: src, app: app, opts: opts}
	defer w.releaseAll()
	r := &axDialogReader{w: w, src: src}
	av, err := src.attrs(src.app(), []string{axAttrFocusedWin})
	if err != nil {
		return JSDialog{}, app.fail("its focused window", err, opts.CallTimeout)
	}
	w.own(av...)
	if av[0].Kind != axkElements || len(av[0].Elems) == 0 {
		return JSDialog{}, fmt.Errorf("%w: %v has no focused window", ErrNoDialog, app)
	}
	win, err := r.node(av[0].Elems[0])
	if err != nil {
		return JSDialog{}, err
	}
	if win == nil {
		return JSDialog{}, fmt.Errorf("%w: %v's focused window went away", ErrNoDialog, app)
	}
	dlg, err := r.find(ctx, win)
	if err != nil {
		return JSDialog{}, err
	}
	if dlg == nil {
		if win.role != axRoleWindow || (win.subrole != axSubDialog && win.subrole != axSubSystemDialog) {
			return JSDialog{}, ErrNoDialog
		}
		// A dialog window whose insides are no dialog group: the window
		// is the dialog.
		dlg = win
	}
	d := JSDialog{ID: src.id(dlg.ref), Title: dlg.name, Focused: dlg.focused}
	if d.Title == "" && dlg != win && (win.subrole == axSubDialog || win.subrole == axSubSystemDialog) {
		// The dialog's window carries its title.
		d.Title = win.name
	}
	if len(dlg.kids) == 0 {
		if strings.HasSuffix(d.Title, " says") {
			d.TitleOnly = true
			return d, nil
		}
		return JSDialog{}, ErrNoDialog
	}
	return r.read(ctx, dlg, d)
}

// find looks for a dialog inside win, breadth first and bounded, never
// inside a web area; nil when there is none.
func (r *axDialogReader) find(ctx context.Context, win *axDialogNode) (*axDialogNode, error) {
	level, count := []*axDialogNode{win}, 1
	for depth := 0; len(level) > 0 && depth < maxDialogSearchDepth; depth++ {
		var next []*axDialogNode
		for _, n := range level {
			if n.role == axRoleWebArea || n.isField() {
				continue
			}
			for _, kid := range n.kids {
				if count >= maxDialogSearch {
					return nil, nil
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				k, err := r.node(kid)
				if err != nil {
					return nil, err
				}
				if k == nil {
					continue
				}
				count++
				if k.isDialog() {
					return k, nil
				}
				next = append(next, k)
			}
		}
		level = next
	}
	return nil, nil
}

// read fills d from what is inside dlg, breadth first, in the dialog's own
// order, bounded as on Linux.
func (r *axDialogReader) read(ctx context.Context, dlg *axDialogNode, d JSDialog) (JSDialog, error) {
	var texts, headings []string
	var label string
	level, count := []*axDialogNode{dlg}, 1
	for depth := 0; len(level) > 0 && depth < maxDialogDepth; depth++ {
		var next []*axDialogNode
		for _, n := range level {
			if n.isField() || n.role == axRoleWebArea {
				continue // a field's children are its text; a web area is a page's
			}
			for _, kid := range n.kids {
				if count >= maxDialogElements {
					break
				}
				if err := ctx.Err(); err != nil {
					return JSDialog{}, err
				}
				k, err := r.node(kid)
				if err != nil {
					return JSDialog{}, err
				}
				if k == nil {
					continue
				}
				count++
				next = append(next, k)
			}
		}
		for _, n := range next {
			if n.focused {
				d.Focused = true
			}
			switch {
			case n.role == axRoleButton:
				d.Buttons = append(d.Buttons, n.name)
			case n.isField():
				d.Field = true
				d.FieldFocused = d.FieldFocused || n.focused
				d.Secret = d.Secret || axSecret(n.role, n.subrole)
				// A prompt's message is its field's label.
				if label == "" {
					label = n.name
				}
			case n.role == axRoleStaticText || n.role == axRoleHeading:
				s, err := r.text(n)
				if err != nil {
					return JSDialog{}, err
				}
				if strings.TrimSpace(s) == "" {
					continue
				}
				if n.role == axRoleHeading {
					headings = append(headings, s)
				} else {
					texts = append(texts, s)
				}
			}
		}
		level = next
	}
	if d.Title == "" && len(headings) > 0 {
		d.Title = headings[0]
	}
	if d.Title == "" {
		// The views dialog draws its title as a text of its own.
		for _, s := range texts {
			if strings.HasSuffix(s, " says") {
				d.Title = s
				break
			}
		}
	}
	var message []string
	for _, s := range append(headings, texts...) {
		if s != d.Title {
			message = append(message, s)
		}
	}
	d.Message = strings.Join(message, "\n")
	if d.Message == "" {
		d.Message = label
	}
	return d, nil
}
