package executor

import (
	"context"
	"fmt"
	"time"
	"unicode/utf16"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/executor/internal/quartz"
	"github.com/reins-app/reins/internal/macos"
	"github.com/reins-app/reins/internal/macos/ax"
)

// MacOptions configures [NewMac].
type MacOptions struct {
	DenyList   denylist.List // optional: when empty, denylist.Default()
	SheetFocus SheetFocus    // optional: without it an upload is refused
}

// Mac fires input as CGEvents posted at the HID level, reads the focused
// application from Accessibility and window ownership from CGWindowList. CGEvent works in points,
// which are DIP, so a plan's scale is not needed here.
type Mac struct {
	deny   denyHolder
	seq    sequence
	hands  hand.Holder // the watch on the person's hand (package hand's event tap)
	sheets SheetFocus  // where an application's keyboard focus is, for the file dialog
}

var (
	_ Executor = (*Mac)(nil)
	_ backend  = (*Mac)(nil)
)

// NewMac loads the system frameworks. It succeeds without Accessibility
// permission, which the person may grant later; Fire checks it every time.
func NewMac(opts MacOptions) (*Mac, error) {
	if err := loadQuartz(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	m := &Mac{sheets: opts.SheetFocus}
	m.deny.set(opts.DenyList)
	return m, nil
}

// CheckPermission returns an error wrapping [ErrPermission] when macOS
// would silently drop the input Reins posts.
func (m *Mac) CheckPermission() error {
	if !ax.IsProcessTrusted() {
		return fmt.Errorf("%w: macOS has not given Reins Accessibility permission; in System Settings › Privacy & Security › Accessibility turn Reins on (or add it with +), then try again", ErrPermission)
	}
	return nil
}

// Close makes every later call fail. An act in flight stops at its next
// event and lets go of what it holds first.
func (m *Mac) Close() error { return m.seq.close(m, m.hands.Close) }

func (m *Mac) handUnwatched() error { return m.hands.Unwatched(hand.Options{}) }

// watchHand watches the person's hand for one act through a listen-only
// event tap, which needs the Input Monitoring permission.
func (m *Mac) watchHand(ctx context.Context) (*hand.Watch, error) {
	return m.hands.Watch(ctx, hand.Options{})
}

// Accessible and AccessibleAt are in axread_darwin.go, Capture in
// capture_darwin.go, JSDialog in jsdialog_darwin.go.

// SetDenyList replaces the deny list; empty means the default.
func (m *Mac) SetDenyList(d denylist.List) { m.deny.set(d) }

func (m *Mac) isClosed() bool { return m.seq.isClosed() }

// Fire performs t's act with CGEvents; see [sequence.fire]. Permission is
// checked before anything else.
func (m *Mac) Fire(ctx context.Context, t audit.Ticket) error {
	return m.seq.fire(ctx, m, t)
}

// macPostLag is how long after CGEventPost returns the HID system may still
// stamp the event.
const macPostLag = 20 * time.Millisecond

// macKeyPace holds each typed key 10 ms, one after the other: measured on
// X only, so the Mac keeps the pace it has always typed at.
var macKeyPace = KeyPace{Hold: 10 * time.Millisecond}

func (m *Mac) traits() traits {
	// CGEventPost is asynchronous: the HID system may stamp the last event
	// a moment after the act ends.
	return traits{postLag: macPostLag, keys: macKeyPace}
}

// ready refuses an act macOS would drop or send elsewhere. The first act
// refused for want of permission has macOS ask the person for it.
func (m *Mac) ready() error {
	if err := m.CheckPermission(); err != nil {
		if trusted, _ := RequestAccessibility(); !trusted {
			return err
		}
	}
	return macSessionRefusal(currentSession())
}

// currentSession reads CGSessionCopyCurrentDictionary; nil outside a login
// session.
func currentSession() *macSession {
	var s *macSession
	macos.WithPool(func() {
		d := cgSessionCopyCurrentDictionary()
		if d == 0 {
			return
		}
		defer macos.CFRelease(d)
		s = &macSession{ScreenIsLocked: macos.NumberInt(cfDictionaryValue(d, "CGSSessionScreenIsLocked")) != 0}
		if v := cfDictionaryValue(d, "kCGSSessionOnConsoleKey"); v != 0 {
			on := macos.NumberInt(v) != 0
			s.OnConsole = &on
		}
	})
	return s
}

// cfDictionaryValue looks up a key that is a CFSTR macro in the headers
// rather than an exported symbol. macos.NumberInt reads both CFBoolean and
// CFNumber values.
func cfDictionaryValue(d uintptr, key string) uintptr {
	k, err := macos.ConstString(key)
	if err != nil {
		return 0
	}
	return macos.CFDictionaryGetValue(d, k)
}

func (m *Mac) toDevice(pts []point, _ float64) ([]point, error) {
	for _, p := range pts {
		var n uint32
		if quartz.GetDisplaysWithPoint(macos.Point{X: p.X, Y: p.Y}, 0, nil, &n) != 0 || n == 0 {
			return nil, fmt.Errorf("%w: (%g, %g) is on no display", ErrOffScreen, p.X, p.Y)
		}
	}
	return pts, nil
}

func (m *Mac) pointer() (point, bool, error) {
	p := pointerLocation()
	return point{p.X, p.Y}, true, nil
}

// strokes resolves every key of an act before anything fires.
func (m *Mac) strokes(c checked) (*strokes, error) { return planStrokes(c, macChord) }

// lend is never asked for: typed characters carry their text.
func (m *Mac) lend(loan) error { return ErrUnsupported }

func (m *Mac) giveBack(uint16) error { return ErrUnsupported }

func (m *Mac) wait(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

func (m *Mac) frontmost(ctx context.Context) (App, error) { return m.Frontmost(ctx) }

func (m *Mac) appAt(ctx context.Context, p point) (App, error) { return m.AppAt(ctx, p.X, p.Y) }

func (m *Mac) lastInput() (inputAt, error) { return lastInput(), nil }

func (m *Mac) denyList() denylist.List { return m.deny.get() }

// focusIn: the keys go to the key window of the application with the
// keyboard focus (Accessibility), taken to be its front window.
// Unverified on a Mac.
func (m *Mac) focusIn(ctx context.Context, w uint64) (bool, App, error) {
	pid, err := focusedAppPID()
	if err != nil {
		return false, App{}, fmt.Errorf("the application with the keyboard focus cannot be read: %w", err)
	}
	ws, err := onScreenWindows()
	if err != nil {
		return false, App{}, err
	}
	key, ok := macKeyWindow(ws, pid)
	if ok && uint64(key.Number) == w {
		return true, App{}, nil
	}
	return false, appOfPID(pid, fmt.Sprintf("process %d", pid)), nil
}

// topIs: the window a click at p lands on ([macWindowAt]) must be window
// number w. Unverified on a Mac.
func (m *Mac) topIs(ctx context.Context, p point, w uint64) (bool, App, error) {
	ws, err := onScreenWindows()
	if err != nil {
		return false, App{}, err
	}
	deny := m.deny.get()
	at, ok := macWindowAt(ws, p.X, p.Y, func(w macWindowInfo) bool {
		_, denied := deny.Match(appOfWindow(w))
		return denied
	})
	if !ok {
		return false, desktop, nil
	}
	if uint64(at.Number) == w {
		return true, App{}, nil
	}
	return false, appOfWindow(at), nil
}

// TabWindow finds the tab's window in CGWindowList: a visible
// normal-layer window at q's bounds (points are DIP, so q.Scale is not
// needed) whose owning process is a web browser's. Unverified on a Mac.
func (m *Mac) TabWindow(ctx context.Context, q TabWindowQuery) (TabWindow, error) {
	if m.isClosed() {
		return TabWindow{}, errClosed
	}
	ws, err := onScreenWindows()
	if err != nil {
		return TabWindow{}, err
	}
	pid, err := focusedAppPID()
	if err != nil {
		pid = 0 // no window is taken for the one in front
	}
	c, err := pickTabWindow(macTabCandidates(ws, q.Bounds, pid, appOfWindow), q)
	if err != nil {
		return TabWindow{}, err
	}
	tw := TabWindow{ID: c.id, App: c.app}
	tw.Focus, tw.FocusApp, err = m.focusIn(ctx, c.id)
	if err != nil {
		return TabWindow{}, err
	}
	return tw, nil
}

// post makes one CGEvent, posts it at the HID level and releases it.
func (m *Mac) post(e event) error {
	var ev uintptr
	switch e.kind {
	case moveTo:
		ev = quartz.EventCreateMouseEvent(0, quartz.EventMouseMoved, macos.Point{X: e.at.X, Y: e.at.Y}, quartz.MouseButtonLeft)
	case dragTo:
		ev = quartz.EventCreateMouseEvent(0, quartz.EventLeftMouseDragged, macos.Point{X: e.at.X, Y: e.at.Y}, quartz.MouseButtonLeft)
	case buttonDown, buttonUp:
		typ, b := macButtonEvent(e.button, e.kind == buttonDown)
		ev = quartz.EventCreateMouseEvent(0, typ, macos.Point{X: e.at.X, Y: e.at.Y}, b)
		if ev != 0 && e.clicks > 0 {
			// The click state is what makes the second click a double click.
			quartz.EventSetIntegerValueField(ev, quartz.MouseEventClickState, int64(e.clicks))
		}
	case keyDown, keyUp:
		ev = quartz.EventCreateKeyboardEvent(0, e.key.code, e.kind == keyDown)
		if ev != 0 {
			// Explicit flags, so modifiers the person holds do not turn
			// typed text into shortcuts.
			quartz.EventSetFlags(ev, macFlags(e.mods))
			if e.key.text != 0 {
				text := utf16.Encode([]rune{e.key.text})
				quartz.EventKeyboardSetUnicodeString(ev, uint64(len(text)), &text[0])
			}
		}
	case wheel:
		// CoreGraphics counts up and left as positive.
		if e.dy != 0 {
			ev = quartz.EventCreateScrollWheelEvent2(0, quartz.ScrollEventUnitLine, 2, int32(-e.dy), 0, 0)
		} else {
			ev = quartz.EventCreateScrollWheelEvent2(0, quartz.ScrollEventUnitLine, 2, 0, int32(-e.dx), 0)
		}
	}
	if ev == 0 {
		return fmt.Errorf("macOS %w", errNoEvent)
	}
	quartz.EventPost(quartz.HIDEventTap, ev)
	macos.CFRelease(ev)
	return nil
}

// macButtonEvent is the event type and button number of a press or a
// release.
func macButtonEvent(b button, down bool) (uint32, uint32) {
	switch {
	case b == rightButton && down:
		return quartz.EventRightMouseDown, quartz.MouseButtonRight
	case b == rightButton:
		return quartz.EventRightMouseUp, quartz.MouseButtonRight
	case down:
		return quartz.EventLeftMouseDown, quartz.MouseButtonLeft
	}
	return quartz.EventLeftMouseUp, quartz.MouseButtonLeft
}

var macModFlags = map[mods]uint64{
	modShift:   quartz.EventFlagMaskShift,
	modControl: quartz.EventFlagMaskControl,
	modAlt:     quartz.EventFlagMaskAlternate,
	modMeta:    quartz.EventFlagMaskCommand,
}

// macFlags are the event flags of the modifiers held.
func macFlags(held mods) uint64 {
	var f uint64
	for m, flag := range macModFlags {
		if held&m != 0 {
			f |= flag
		}
	}
	return f
}

// macChord resolves a chord, or, in typed text, one character. Typed
// characters carry their text, which is what apps read, whatever the
// keyboard layout; the key is the layout's (the US one when the layout
// cannot be read), for apps that also look at which key it was. A chord's
// key is the layout's, with its modifiers, or the chord is refused.
func macChord(ch chord, typed bool) (stroke, error) {
	st := stroke{round: -1}
	m := ch.mods
	switch {
	case ch.name != keyNone:
		code, ok := macNamedCode(ch.name)
		if !ok {
			return st, fmt.Errorf("%w: Mac keyboards have no such key", ErrUnknownKey)
		}
		st.key.code = code
	case typed:
		code, shift, ok := macTextKey(ch.char)
		if ok && shift {
			m |= modShift
		}
		// A key no Mac has for what no key of the layout types; the text decides.
		st.key = key{code: code, text: ch.char}
	default:
		k, err := macChordKey(ch.char, ch.mods)
		if err != nil {
			return st, err
		}
		if k.shift {
			m |= modShift
		}
		st.key.code = k.code
	}
	for _, mod := range modOrder {
		if m&mod != 0 {
			code, _ := macNamedCode(mod.Key())
			st.mods = append(st.mods, key{code: code, mod: mod})
		}
	}
	return st, nil
}

// lastInput is when the HID system last saw input of any kind, events
// Reins posted included.
func lastInput() inputAt {
	before := time.Now()
	idle := time.Duration(quartz.EventSourceSecondsSinceLastEventType(quartz.EventSourceStateHIDSystemState, quartz.AnyInputEventType) * float64(time.Second))
	return inputAt{early: before.Add(-idle), late: time.Now().Add(-idle)}
}

// LastInput is when the person last used the mouse or keyboard, or zero
// when the latest input was an act of Reins'.
func (m *Mac) LastInput(ctx context.Context) (time.Time, error) {
	if err := loadQuartz(); err != nil {
		return time.Time{}, err
	}
	return m.seq.lastInput(m)
}

func pointerLocation() macos.Point {
	ev := quartz.EventCreate(0)
	if ev == 0 {
		return macos.Point{}
	}
	defer macos.CFRelease(ev)
	return quartz.EventGetLocation(ev)
}

// Frontmost returns the application with the keyboard focus now, read from
// Accessibility; without it, the owner of the front normal-layer window;
// failing that, NSWorkspace's frontmost application, which changes only as
// the main run loop turns and so is stale in a process whose main thread
// runs none (`reins serve`).
func (m *Mac) Frontmost(ctx context.Context) (App, error) {
	if m.isClosed() {
		return App{}, errClosed
	}
	if pid, err := focusedAppPID(); err == nil && pid > 0 {
		return appOfPID(pid, fmt.Sprintf("process %d", pid)), nil
	}
	if ws, err := onScreenWindows(); err == nil {
		if w, ok := macFrontWindow(ws); ok {
			return appOfWindow(w), nil
		}
	}
	app := desktop
	macos.WithPool(func() {
		if front := macos.FrontmostApp(); front != 0 {
			app = appOf(front)
		}
	})
	return app, nil
}

// onScreenWindows lists on-screen windows front to back, desktop icons and
// wallpaper left out, as [macWindowInfo] records.
func onScreenWindows() ([]macWindowInfo, error) {
	var out []macWindowInfo
	var err error
	macos.WithPool(func() {
		list := quartz.WindowListCopyWindowInfo(quartz.WindowListOnScreen|quartz.WindowListNoDesktop, 0)
		if list == 0 {
			err = fmt.Errorf("macOS did not list the windows on screen; is Reins running in the person's login session?")
			return
		}
		defer macos.CFRelease(list)
		n := macos.CFArrayGetCount(list)
		for i := range n {
			d := macos.CFArrayGetValueAtIndex(list, i)
			var r macos.Rect
			b := macos.CFDictionaryGetValue(d, quartz.KCGWindowBounds)
			if b == 0 || !quartz.RectMakeWithDictionaryRepresentation(b, &r) {
				continue
			}
			// A required key; were it missing, opaque, so that no window
			// is taken for click-through by mistake.
			alpha, ok := macos.NumberFloat(macos.CFDictionaryGetValue(d, quartz.KCGWindowAlpha))
			if !ok {
				alpha = 1
			}
			out = append(out, macWindowInfo{
				OwnerPID:  int(macos.NumberInt(macos.CFDictionaryGetValue(d, quartz.KCGWindowOwnerPID))),
				Layer:     int(macos.NumberInt(macos.CFDictionaryGetValue(d, quartz.KCGWindowLayer))),
				Bounds:    macBounds{X: r.Origin.X, Y: r.Origin.Y, Width: r.Size.W, Height: r.Size.H},
				Alpha:     alpha,
				OwnerName: macos.GoString(macos.CFDictionaryGetValue(d, quartz.KCGWindowOwnerName)),
				Number:    int(macos.NumberInt(macos.CFDictionaryGetValue(d, quartz.KCGWindowNumber))),
				Name:      macos.GoString(macos.CFDictionaryGetValue(d, quartz.KCGWindowName)),
			})
		}
	})
	return out, err
}

// appOfWindow names the application that owns w.
func appOfWindow(w macWindowInfo) App { return appOfPID(w.OwnerPID, w.OwnerName) }

// appOfPID names the application of process pid from NSRunningApplication;
// owner is the name to give when it has none.
func appOfPID(pid int, owner string) App {
	app := App{Name: owner, PID: pid}
	macos.WithPool(func() {
		ra := macos.AppWithPID(pid)
		if ra == 0 {
			return
		}
		a := appOf(ra)
		if a.Name == "" {
			a.Name = owner
		}
		app = a
	})
	return app
}

// AppAt returns the application owning the window a click at (x, y) lands
// on; see [macWindowAt] for which windows count. A window above the normal
// layer counts when it is system UI or deny-listed.
func (m *Mac) AppAt(ctx context.Context, x, y float64) (App, error) {
	if m.isClosed() {
		return App{}, errClosed
	}
	ws, err := onScreenWindows()
	if err != nil {
		return App{}, err
	}
	deny := m.deny.get()
	w, ok := macWindowAt(ws, x, y, func(w macWindowInfo) bool {
		_, denied := deny.Match(appOfWindow(w))
		return denied
	})
	if !ok {
		return desktop, nil
	}
	return appOfWindow(w), nil
}

// Screens lists the active displays in global points, the coordinates
// CGEvent and CGWindowList use, with the main display's top left at (0, 0).
func (m *Mac) Screens(ctx context.Context) ([]Screen, error) {
	if m.isClosed() {
		return nil, errClosed
	}
	ids, err := macos.ActiveDisplays()
	if err != nil {
		return nil, err
	}
	out := make([]Screen, 0, len(ids))
	for _, id := range ids {
		b := macos.DisplayBounds(id)
		out = append(out, Screen{X: b.Origin.X, Y: b.Origin.Y, W: b.Size.W, H: b.Size.H})
	}
	return out, nil
}

// Windows lists the on-screen normal-layer windows, front to back. Titles
// are empty unless Reins has Screen Recording permission.
func (m *Mac) Windows(ctx context.Context) ([]Window, error) {
	if m.isClosed() {
		return nil, errClosed
	}
	ws, err := onScreenWindows()
	if err != nil {
		return nil, err
	}
	front, _ := m.Frontmost(ctx)
	var out []Window
	seenFront := false
	for _, w := range ws {
		if w.Layer != 0 || w.Alpha <= 0 {
			continue
		}
		app := appOfWindow(w)
		active := !seenFront && front.PID != 0 && app.PID == front.PID
		seenFront = seenFront || active
		out = append(out, Window{
			ID:     uint64(w.Number),
			App:    app,
			Title:  w.Name,
			X:      w.Bounds.X,
			Y:      w.Bounds.Y,
			W:      w.Bounds.Width,
			H:      w.Bounds.Height,
			Active: active,
		})
	}
	return out, nil
}

// appOf describes an NSRunningApplication.
func appOf(app macos.App) App {
	return App{Name: app.Name(), ID: app.BundleID(), PID: app.PID(), Exe: app.Executable()}
}
