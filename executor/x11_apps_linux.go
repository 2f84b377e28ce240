package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/denylist"
)

type x11Atoms struct {
	activeWindow   xproto.Atom // _NET_ACTIVE_WINDOW
	clientStacking xproto.Atom // _NET_CLIENT_LIST_STACKING
	wmPID          xproto.Atom // _NET_WM_PID
	netWMName      xproto.Atom // _NET_WM_NAME
	utf8String     xproto.Atom // UTF8_STRING
	clientMachine  xproto.Atom // WM_CLIENT_MACHINE
	windowType     xproto.Atom // _NET_WM_WINDOW_TYPE
	typeDND        xproto.Atom // _NET_WM_WINDOW_TYPE_DND
}

func (a *x11Atoms) intern(c *xgb.Conn) error {
	for _, x := range []struct {
		name string
		atom *xproto.Atom
	}{
		{"_NET_ACTIVE_WINDOW", &a.activeWindow},
		{"_NET_CLIENT_LIST_STACKING", &a.clientStacking},
		{"_NET_WM_PID", &a.wmPID},
		{"_NET_WM_NAME", &a.netWMName},
		{"UTF8_STRING", &a.utf8String},
		{"WM_CLIENT_MACHINE", &a.clientMachine},
		{"_NET_WM_WINDOW_TYPE", &a.windowType},
		{"_NET_WM_WINDOW_TYPE_DND", &a.typeDND},
	} {
		r, err := xproto.InternAtom(c, false, uint16(len(x.name)), x.name).Reply()
		if err != nil {
			return fmt.Errorf("intern %s: %w", x.name, err)
		}
		*x.atom = r.Atom
	}
	return nil
}

// Windows deeper than this below a top-level window are not searched for the
// application's own window: real window managers nest one or two levels.
const x11MaxDepth = 8

// isGone reports whether err says a window no longer exists: windows come
// and go between two requests.
func isGone(err error) bool {
	var w xproto.WindowError
	return errors.As(err, &w)
}

// prop reads a whole property; nil when the window lacks it.
func (x *X11) prop(w xproto.Window, atom xproto.Atom) (*xproto.GetPropertyReply, error) {
	return propReply(x.askProp(w, atom))
}

// askProp sends the request for w's property atom; propReply waits for its
// answer. Several asked before the first is awaited share one round trip.
func (x *X11) askProp(w xproto.Window, atom xproto.Atom) xproto.GetPropertyCookie {
	return xproto.GetProperty(x.conn, false, w, atom, xproto.GetPropertyTypeAny, 0, math.MaxUint32/4)
}

// propReply is the property c asked for; nil when w has none.
func propReply(c xproto.GetPropertyCookie) (*xproto.GetPropertyReply, error) {
	r, err := c.Reply()
	if err != nil {
		return nil, err
	}
	if r.Type == xproto.AtomNone {
		return nil, nil
	}
	return r, nil
}

func (x *X11) propWindow(w xproto.Window, atom xproto.Atom) (xproto.Window, error) {
	r, err := x.prop(w, atom)
	if err != nil || r == nil || r.Format != 32 || len(r.Value) < 4 {
		return 0, err
	}
	return xproto.Window(xgb.Get32(r.Value)), nil
}

// identity reads who made w: WM_CLASS, _NET_WM_PID and the pid's program.
// ok is false when w carries neither property, as window-manager frames and
// a toolkit's inner windows do not.
func (x *X11) identity(w xproto.Window) (app App, ok bool, err error) {
	// Asked together: one round trip for the three.
	classC, pidC, machineC := x.askProp(w, xproto.AtomWmClass), x.askProp(w, x.atoms.wmPID), x.askProp(w, x.atoms.clientMachine)
	class, err := propReply(classC)
	if err != nil {
		return App{}, false, err
	}
	pidProp, err := propReply(pidC)
	if err != nil {
		return App{}, false, err
	}
	machine, merr := propReply(machineC)
	if class != nil && class.Format == 8 {
		// Two NUL-terminated strings: the instance, then the class.
		parts := strings.SplitN(strings.TrimRight(string(class.Value), "\x00"), "\x00", 2)
		instance, cls := parts[0], ""
		if len(parts) == 2 {
			cls = parts[1]
		}
		app.Class = instance + "." + cls
		app.Name = cls
		if app.Name == "" {
			app.Name = instance
		}
		ok = true
	}
	if pidProp != nil && pidProp.Format == 32 && len(pidProp.Value) >= 4 {
		ok = true
		pid := int(xgb.Get32(pidProp.Value))
		if merr != nil {
			return App{}, false, merr
		}
		local := isLocalMachine(machine)
		// Another machine's pid names some unrelated process here.
		if pid > 0 && local {
			app.PID = pid
			if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
				app.Exe = exe
			}
		}
	}
	if app.Name == "" {
		app.Name = denylist.ExeName(app.Exe)
	}
	return app, ok, nil
}

// isLocalMachine reports whether a window's WM_CLIENT_MACHINE (r; nil when
// the window has none) names this machine, or names none.
func isLocalMachine(r *xproto.GetPropertyReply) bool {
	if r == nil || r.Format != 8 {
		return true
	}
	host, err := os.Hostname()
	if err != nil {
		return true
	}
	// One side may be fully qualified and the other not.
	short := func(h string) string {
		h, _, _ = strings.Cut(strings.TrimRight(h, "\x00"), ".")
		return h
	}
	claimed := short(string(r.Value))
	return strings.EqualFold(claimed, short(host)) || strings.EqualFold(claimed, "localhost")
}

// client finds the window under top that carries the application's
// identity: top itself, or the first such window breadth-first (a window
// manager's frame holds the client a level or two down).
func (x *X11) client(top xproto.Window) (xproto.Window, App, bool, error) {
	level := []xproto.Window{top}
	for range x11MaxDepth {
		var next []xproto.Window
		for _, w := range level {
			app, ok, err := x.identity(w)
			if isGone(err) {
				continue
			}
			if err != nil {
				return 0, App{}, false, err
			}
			if ok {
				return w, app, true, nil
			}
			tree, err := xproto.QueryTree(x.conn, w).Reply()
			if isGone(err) {
				continue
			}
			if err != nil {
				return 0, App{}, false, err
			}
			next = append(next, tree.Children...)
		}
		if len(next) == 0 {
			break
		}
		level = next
	}
	return 0, App{}, false, nil
}

// unknown owns a window that says nothing about who made it. It matches no
// deny-list rule: password managers and settings apps all name themselves.
var unknown = App{Name: "unknown"}

// windowAt returns the client window under the pixel and its application;
// 0 and the desktop when no window covers it.
func (x *X11) windowAt(p pixel) (xproto.Window, App, error) {
	r, err := xproto.TranslateCoordinates(x.conn, x.root, x.root, p.X, p.Y).Reply()
	if err != nil {
		return 0, App{}, err
	}
	top := r.Child
	if top == 0 {
		return 0, desktop, nil
	}
	// Descend along the point first: the window actually hit is the best
	// witness of whose it is.
	w := top
	for range x11MaxDepth {
		app, ok, err := x.identity(w)
		if err != nil {
			return 0, App{}, err
		}
		if ok {
			return w, app, nil
		}
		r, err := xproto.TranslateCoordinates(x.conn, x.root, w, p.X, p.Y).Reply()
		if err != nil {
			return 0, App{}, err
		}
		if r.Child == 0 {
			break
		}
		w = r.Child
	}
	// A frame's title bar: the client is inside the frame, beside the point.
	cw, app, ok, err := x.client(top)
	if err != nil {
		return 0, App{}, err
	}
	if ok {
		return cw, app, nil
	}
	return top, unknown, nil
}

func (x *X11) appAtPixel(p pixel) (App, error) {
	_, app, err := x.windowAt(p)
	return app, err
}

// AppAt returns the application owning the window under (x, y) in DIP,
// converted with X11Options.Scale; the desktop when no window is there.
func (x *X11) AppAt(ctx context.Context, px, py float64) (App, error) {
	if x.isClosed() {
		return App{}, errClosed
	}
	return x.appAtPixel(toPixel(point{px, py}, x.scale()))
}

// Screens is the X screen (the root window, which spans every monitor), in
// DIP converted with X11Options.Scale: the area Fire sends input to.
func (x *X11) Screens(ctx context.Context) ([]Screen, error) {
	if x.isClosed() {
		return nil, errClosed
	}
	geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(x.root)).Reply()
	if err != nil {
		return nil, fmt.Errorf("cannot read the screen size: %w", err)
	}
	s := x.scale()
	return []Screen{{X: 0, Y: 0, W: float64(geo.Width) / s, H: float64(geo.Height) / s}}, nil
}

func (x *X11) scale() float64 {
	if x.opts.Scale == nil {
		return 1
	}
	return scale(x.opts.Scale())
}

// frontWindow returns the client window in front and its application: the
// window manager's _NET_ACTIVE_WINDOW when it keeps one, else the input
// focus, else (focus follows the pointer, as with no window manager) the
// window under the pointer.
func (x *X11) frontWindow() (xproto.Window, App, error) {
	active, err := x.propWindow(x.root, x.atoms.activeWindow)
	if err != nil {
		return 0, App{}, err
	}
	if active != 0 {
		w, app, err := x.around(active)
		if !isGone(err) {
			return w, app, err
		}
		// A stale property names a destroyed window: ask the server.
	}
	focus, err := xproto.GetInputFocus(x.conn).Reply()
	if err != nil {
		return 0, App{}, err
	}
	if focus.Focus != xproto.InputFocusNone && focus.Focus != xproto.InputFocusPointerRoot && focus.Focus != x.root {
		return x.around(focus.Focus)
	}
	ptr, err := xproto.QueryPointer(x.conn, x.root).Reply()
	if err != nil {
		return 0, App{}, err
	}
	if !ptr.SameScreen || focus.Focus == xproto.InputFocusNone {
		return 0, desktop, nil
	}
	return x.windowAt(pixel{ptr.RootX, ptr.RootY})
}

// around returns the client window that w belongs to: w or its nearest
// ancestor carrying an identity, else the client inside w's top-level
// window (focus may sit on a frame).
func (x *X11) around(w xproto.Window) (xproto.Window, App, error) {
	top := w
	for cur := w; cur != x.root && cur != 0; {
		app, ok, err := x.identity(cur)
		if err != nil {
			return 0, App{}, err
		}
		if ok {
			return cur, app, nil
		}
		tree, err := xproto.QueryTree(x.conn, cur).Reply()
		if err != nil {
			return 0, App{}, err
		}
		top, cur = cur, tree.Parent
	}
	cw, app, ok, err := x.client(top)
	if err != nil {
		return 0, App{}, err
	}
	if ok {
		return cw, app, nil
	}
	return top, unknown, nil
}

// Frontmost returns the application in front; the desktop when nothing is.
func (x *X11) Frontmost(ctx context.Context) (App, error) {
	if x.isClosed() {
		return App{}, errClosed
	}
	_, app, err := x.frontWindow()
	return app, err
}

// Windows lists the visible top-level windows, front to back: from the
// window manager's _NET_CLIENT_LIST_STACKING when it keeps one, else from
// the root's children that name an application or carry a title.
// Geometry is in DIP, converted with X11Options.Scale.
func (x *X11) Windows(ctx context.Context) ([]Window, error) {
	if x.isClosed() {
		return nil, errClosed
	}
	var tops []xproto.Window
	stacking, err := x.prop(x.root, x.atoms.clientStacking)
	if err != nil {
		return nil, err
	}
	if stacking != nil && stacking.Format == 32 {
		for i := 0; i+4 <= len(stacking.Value); i += 4 {
			tops = append(tops, xproto.Window(xgb.Get32(stacking.Value[i:])))
		}
	} else {
		tree, err := xproto.QueryTree(x.conn, x.root).Reply()
		if err != nil {
			return nil, err
		}
		tops = tree.Children
	}
	slices.Reverse(tops) // both lists run bottom to top

	front, _, err := x.frontWindow()
	if err != nil {
		return nil, err
	}
	s := x.scale()
	var out []Window
	for _, top := range tops {
		w, err := x.describe(top, s)
		if isGone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if w == nil {
			continue
		}
		w.Active = w.id == front
		out = append(out, w.Window)
	}
	return out, nil
}

type x11Window struct {
	Window
	id xproto.Window // the client window
}

// describe returns top's client window, or nil when top is not shown or is
// no application's window.
func (x *X11) describe(top xproto.Window, s float64) (*x11Window, error) {
	attrs, err := xproto.GetWindowAttributes(x.conn, top).Reply()
	if err != nil {
		return nil, err
	}
	if attrs.MapState != xproto.MapStateViewable || attrs.Class == xproto.WindowClassInputOnly {
		return nil, nil
	}
	cw, app, ok, err := x.client(top)
	if err != nil {
		return nil, err
	}
	if !ok {
		cw = top
	}
	title, err := x.title(cw)
	if err != nil {
		return nil, err
	}
	if !ok && title == "" {
		return nil, nil
	}
	if !ok {
		app = unknown
	}
	geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(cw)).Reply()
	if err != nil {
		return nil, err
	}
	pos, err := xproto.TranslateCoordinates(x.conn, cw, x.root, 0, 0).Reply()
	if err != nil {
		return nil, err
	}
	return &x11Window{
		Window: Window{
			ID:    uint64(cw),
			App:   app,
			Title: title,
			X:     float64(pos.DstX) / s,
			Y:     float64(pos.DstY) / s,
			W:     float64(geo.Width) / s,
			H:     float64(geo.Height) / s,
		},
		id: cw,
	}, nil
}

// title is _NET_WM_NAME (UTF-8), else WM_NAME (Latin-1 when typed STRING).
func (x *X11) title(w xproto.Window) (string, error) {
	r, err := x.prop(w, x.atoms.netWMName)
	if err != nil {
		return "", err
	}
	if r != nil && r.Format == 8 && r.Type == x.atoms.utf8String {
		return strings.ToValidUTF8(string(r.Value), "\uFFFD"), nil
	}
	r, err = x.prop(w, xproto.AtomWmName)
	if err != nil || r == nil || r.Format != 8 {
		return "", err
	}
	if r.Type == xproto.AtomString {
		rs := make([]rune, len(r.Value))
		for i, b := range r.Value {
			rs[i] = rune(b)
		}
		return string(rs), nil
	}
	return strings.ToValidUTF8(string(r.Value), "\uFFFD"), nil
}

// TabWindow finds the tab's window among the shown top-level windows: the
// client window, or the window manager's frame around it, must lie where
// the browser says (q.Bounds, turned into device pixels by q.Scale), and
// the process the X server says made it (X-Resource; the window's own
// _NET_WM_PID where the server cannot say) must be a web browser's.
func (x *X11) TabWindow(ctx context.Context, q TabWindowQuery) (TabWindow, error) {
	if x.isClosed() {
		return TabWindow{}, errClosed
	}
	s := scale(q.Scale)
	tree, err := xproto.QueryTree(x.conn, x.root).Reply()
	if err != nil {
		return TabWindow{}, err
	}
	front, _, err := x.frontWindow()
	if err != nil {
		return TabWindow{}, err
	}
	var cands []tabCandidate
	for _, top := range tree.Children {
		c, ok, err := x.tabCandidate(top, q.Bounds, s)
		if isGone(err) {
			continue
		}
		if err != nil {
			return TabWindow{}, err
		}
		if ok {
			c.front = c.id == uint64(front)
			cands = append(cands, c)
		}
	}
	c, err := pickTabWindow(cands, q)
	if err != nil {
		return TabWindow{}, err
	}
	tw := TabWindow{ID: c.id, App: c.app}
	in, there, err := x.focusIn(ctx, c.id)
	if err != nil {
		return TabWindow{}, err
	}
	tw.Focus, tw.FocusApp = in, there
	return tw, nil
}

// tabCandidate reads top as a window that may show the tab: shown, with a
// client that names its application, at b (DIP at scale s) by the client's
// box or the frame's.
func (x *X11) tabCandidate(top xproto.Window, b Bounds, s float64) (tabCandidate, bool, error) {
	attrs, err := xproto.GetWindowAttributes(x.conn, top).Reply()
	if err != nil {
		return tabCandidate{}, false, err
	}
	if attrs.MapState != xproto.MapStateViewable || attrs.Class == xproto.WindowClassInputOnly {
		return tabCandidate{}, false, nil
	}
	fits := func(w xproto.Window) (bool, error) {
		geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(w)).Reply()
		if err != nil {
			return false, err
		}
		pos, err := xproto.TranslateCoordinates(x.conn, w, x.root, 0, 0).Reply()
		if err != nil {
			return false, err
		}
		return b.Fits(float64(pos.DstX)/s, float64(pos.DstY)/s, float64(geo.Width)/s, float64(geo.Height)/s), nil
	}
	framed, err := fits(top)
	if err != nil {
		return tabCandidate{}, false, err
	}
	cw, app, ok, err := x.client(top)
	if err != nil || !ok {
		return tabCandidate{}, false, err
	}
	if !framed && cw != top {
		if framed, err = fits(cw); err != nil {
			return tabCandidate{}, false, err
		}
	}
	if !framed {
		return tabCandidate{}, false, nil
	}
	if pid, ok := x.serverPID(cw); ok && pid != app.PID {
		// The server's word on who made the window, not the window's own.
		app.PID, app.Exe = pid, ""
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil {
			app.Exe = exe
		}
	}
	title, err := x.title(cw)
	if err != nil {
		return tabCandidate{}, false, err
	}
	return tabCandidate{id: uint64(cw), app: app, title: title}, true, nil
}
