package executor

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/audit"
)

// The file dialog on X11 is Chromium's GTK 3 file chooser, which the
// browser's own process shows when no desktop portal offers one: a new
// top-level window of that process, marked as a dialog for the browser
// window clicked (WM_TRANSIENT_FOR) and as GTK's file chooser by its role
// (WM_WINDOW_ROLE GtkFileChooserDialog, as read from Chromium 156 under
// Xvfb). A popup window the page opens is of the same process, but names
// no window it is for and has a role of its own ("pop-up"). GTK gives the
// chooser the keyboard focus itself, with or without a window manager.
// Its keys: Control+L opens its location field with the text selected, so
// the path typed replaces it; Alt+O is its Open button. Return in the
// location field closes Chromium's dialog without a file in Chromium 156
// with GTK 3.24, so it is not used; Alt+O is the mnemonic of GTK's English
// "_Open", and where GTK speaks another language the dialog stays open,
// and the upload ends cancelled with Escape and says so.
//
// _NET_WM_PID is what a window's client says of itself, so a dialog's
// process is taken from the X server where it can say: the X-Resource
// extension's pid of the client that made the window, for a local client.
// Where the server has no X-Resource, the window's own word is taken.

var _ chooserDesk = (*X11)(nil)

// FireUpload fires t's upload: see [Upload].
func (x *X11) FireUpload(ctx context.Context, t audit.Ticket) error {
	return x.seq.upload(ctx, x, t)
}

// gtkChooserRole is the WM_WINDOW_ROLE GTK gives its file chooser dialog.
const gtkChooserRole = "GtkFileChooserDialog"

func (x *X11) chooserRole() string { return gtkChooserRole }

func (x *X11) chooserKeys() chooserKeys {
	return chooserKeys{
		location: chord{mods: modControl, char: 'l'},
		accept:   []chord{{mods: modAlt, char: 'o'}},
	}
}

// shownWindows lists every top-level window that exists now, mapped or
// not: a dialog must be one made after the click. (With a window manager,
// a new dialog's frame is new too.)
func (x *X11) chooserWait() time.Duration { return chooserDeadline }

func (x *X11) shownWindows() (windowSet, error) {
	tree, err := xproto.QueryTree(x.conn, x.root).Reply()
	if err != nil {
		return nil, err
	}
	set := windowSet{}
	for _, w := range tree.Children {
		set[uint64(w)] = true
	}
	return set, nil
}

func (x *X11) clickedWindow(p point) (uint64, error) {
	w, _, err := x.windowAt(asPixel(p))
	return uint64(w), err
}

// newDialogs lists the shown top-level windows made since before: each by
// its client window (the one carrying the application's identity, inside
// a window manager's frame), with the window it is transient for.
func (x *X11) newDialogs(before windowSet) ([]newDialog, error) {
	tree, err := xproto.QueryTree(x.conn, x.root).Reply()
	if err != nil {
		return nil, err
	}
	var out []newDialog
	for _, top := range tree.Children {
		if before[uint64(top)] {
			continue
		}
		attrs, err := xproto.GetWindowAttributes(x.conn, top).Reply()
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if attrs.MapState != xproto.MapStateViewable || attrs.Class == xproto.WindowClassInputOnly {
			continue
		}
		cw, app, ok, err := x.client(top)
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // a frame whose client is not in it yet
		}
		title, err := x.title(cw)
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if pid, ok := x.serverPID(cw); ok && pid != app.PID {
			// The window claims another process than the one that made it.
			app = App{Name: app.Name + " (claiming pid " + strconv.Itoa(app.PID) + ")", PID: pid}
			if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
				app.Exe = exe
			}
		}
		owner, err := x.propWindow(cw, xproto.AtomWmTransientFor)
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		role, err := x.windowRole(cw)
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, newDialog{chooser: chooser{id: uint64(cw), app: app, title: title, forWindow: uint64(owner)}, role: role})
	}
	return out, nil
}

// chooserFocused reports whether the X input focus is on c's window or a
// window inside it. A focus that follows the pointer (PointerRoot) or is
// on the window manager's frame around it does not count: only an
// explicit focus says where keys go.
func (x *X11) chooserFocused(c chooser) (bool, error) {
	focus, err := xproto.GetInputFocus(x.conn).Reply()
	if err != nil {
		return false, err
	}
	for w := focus.Focus; w != xproto.InputFocusNone && w != xproto.InputFocusPointerRoot && w != x.root; {
		if uint64(w) == c.id {
			return true, nil
		}
		tree, err := xproto.QueryTree(x.conn, w).Reply()
		if isGone(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		w = tree.Parent
	}
	return false, nil
}

// chooserShown reports whether c's window still exists and is mapped.
func (x *X11) chooserShown(c chooser) (bool, error) {
	attrs, err := xproto.GetWindowAttributes(x.conn, xproto.Window(c.id)).Reply()
	if isGone(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return attrs.MapState == xproto.MapStateViewable, nil
}

// roleAtoms holds, per X connection, the atom WM_WINDOW_ROLE:
// *xgb.Conn → xproto.Atom.
var roleAtoms sync.Map

// windowRole is w's WM_WINDOW_ROLE; "" when it has none.
func (x *X11) windowRole(w xproto.Window) (string, error) {
	atom, ok := roleAtoms.Load(x.conn)
	if !ok {
		const name = "WM_WINDOW_ROLE"
		r, err := xproto.InternAtom(x.conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			return "", err
		}
		atom, _ = roleAtoms.LoadOrStore(x.conn, r.Atom)
	}
	p, err := x.prop(w, atom.(xproto.Atom))
	if err != nil || p == nil || p.Format != 8 {
		return "", err
	}
	return strings.TrimRight(string(p.Value), "\x00"), nil
}

// xres holds, per X connection, whether the X-Resource extension is ready
// on it: *xgb.Conn → error.
var xres sync.Map

// serverPID is the process id of the local client that made w, as the X
// server knows it (X-Resource); false when the server cannot say.
func (x *X11) serverPID(w xproto.Window) (int, bool) {
	ready, ok := xres.Load(x.conn)
	if !ok {
		ready, _ = xres.LoadOrStore(x.conn, res.Init(x.conn))
	}
	if ready != nil {
		return 0, false
	}
	r, err := res.QueryClientIds(x.conn, 1, []res.ClientIdSpec{{Client: uint32(w), Mask: res.ClientIdMaskLocalClientPID}}).Reply()
	if err != nil {
		return 0, false
	}
	for _, id := range r.Ids {
		if id.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(id.Value) > 0 && id.Value[0] > 0 {
			return int(id.Value[0]), true
		}
	}
	return 0, false
}
