package executor

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/ebitengine/purego/objc"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

// MacOptions configures [NewMac].
type MacOptions struct {
	DenyList DenyList // optional: when empty, DefaultDenyList()
}

// Mac fires input as CGEvents posted at the HID level and reads window
// ownership from CGWindowList and NSWorkspace. CGEvent works in points,
// which are DIP, so a plan's scale is not needed here.
type Mac struct {
	deny denyHolder

	fireMu sync.Mutex // one act at a time
	own    time.Time  // guarded by fireMu: when the last act's last event was posted

	mu     sync.Mutex
	closed bool // guarded by mu
}

var _ Executor = (*Mac)(nil)

// NewMac loads the system frameworks. It succeeds without Accessibility
// permission, which the person may grant later; Fire checks it every time.
func NewMac(opts MacOptions) (*Mac, error) {
	if err := loadQuartz(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	m := &Mac{}
	m.deny.set(opts.DenyList)
	return m, nil
}

// CheckPermission returns an error wrapping [ErrPermission] when macOS
// would silently drop the input Reins posts.
func (m *Mac) CheckPermission() error {
	if !axIsProcessTrusted() {
		return fmt.Errorf("%w: macOS has not given Reins Accessibility permission; open System Settings › Privacy & Security › Accessibility, turn Reins on, then try again", ErrPermission)
	}
	return nil
}

// Close makes every later call fail. An act in flight stops at its next
// event and lets go of what it holds first.
func (m *Mac) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.fireMu.Lock()
	defer m.fireMu.Unlock()
	return nil
}

// SetDenyList replaces the deny list; empty means the default.
func (m *Mac) SetDenyList(d DenyList) { m.deny.set(d) }

func (m *Mac) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Fire performs t's act: check the ticket and resolve every key (nothing
// fires on an unknown key), check permission and the deny list, fire,
// release anything still held if the act stops half-way, and put the
// pointer back where the person had it (all but Hover). While typing, the
// frontmost application is checked again before every key.
func (m *Mac) Fire(ctx context.Context, t audit.Ticket) error {
	c, err := check(t)
	if err != nil {
		return err
	}
	m.fireMu.Lock()
	defer m.fireMu.Unlock()
	if m.isClosed() {
		return errClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.CheckPermission(); err != nil {
		return err
	}
	var pts []cgPoint
	for _, p := range c.points {
		pt := cgPoint{p.X, p.Y}
		var n uint32
		if cgGetDisplaysWithPoint(pt, 0, nil, &n) != 0 || n == 0 {
			return fmt.Errorf("%w: (%g, %g) is on no display", ErrOffScreen, p.X, p.Y)
		}
		pts = append(pts, pt)
	}
	keys, err := planMacKeys(c)
	if err != nil {
		return err
	}
	at := func(ctx context.Context, p point) (App, error) { return m.AppAt(ctx, p.X, p.Y) }
	if err := denyCheck(ctx, m.deny.get(), c.points, m.Frontmost, at); err != nil {
		return err
	}

	if err := personCheck(lastInput(), m.own, quietFrom(t)); err != nil {
		return err
	}

	home := pointerLocation()
	in := &macInput{m: m, ctx: ctx}
	defer func() { // after finish: the last event posted
		if in.sent {
			// CGEventPost is asynchronous: the HID system may stamp the
			// last event a moment after this.
			m.own = time.Now().Add(macPostLag)
		}
	}()
	defer in.finish()
	if err := m.perform(in, c, pts, keys); err != nil {
		return err
	}
	if returnsPointer(c.act.Kind) && len(pts) > 0 {
		if err := in.move(home); err != nil {
			return fmt.Errorf("the act was done, but the pointer could not be put back: %w", err)
		}
	}
	return nil
}

func (m *Mac) perform(in *macInput, c checked, pts []cgPoint, keys *macKeys) error {
	switch c.act.Kind {
	case vocab.Hover:
		return in.move(pts[0])
	case vocab.Click:
		return in.click(pts[0], false, 1)
	case vocab.DoubleClick:
		return in.click(pts[0], false, 2)
	case vocab.RightClick:
		return in.click(pts[0], true, 1)
	case vocab.Scroll:
		return in.scroll(pts[0], c.act.DX, c.act.DY)
	case vocab.Drag:
		return in.drag(pts[0], pts[1])
	case vocab.Key:
		return in.stroke(keys.chord)
	case vocab.Type:
		if len(pts) > 0 {
			if err := in.click(pts[0], false, 1); err != nil {
				return err
			}
			if err := sleep(in.ctx, focusWait); err != nil {
				return err
			}
		}
		for _, st := range keys.clear {
			if err := in.stroke(st); err != nil {
				return err
			}
		}
		// The click or the clearing may have brought something else to
		// the front, and so may anything while the text is typed.
		for i, st := range keys.text {
			if err := m.frontStillAllowed(in.ctx, i, len(keys.text)); err != nil {
				return err
			}
			if err := in.stroke(st); err != nil {
				return err
			}
		}
		if keys.submit != nil {
			if err := m.frontStillAllowed(in.ctx, len(keys.text), len(keys.text)); err != nil {
				return err
			}
			return in.stroke(*keys.submit)
		}
		return nil
	}
	return fmt.Errorf("%w: %q", ErrUnsupported, c.act.Kind)
}

// frontStillAllowed stops typing when a deny-listed application has come to
// the front since the act began.
func (m *Mac) frontStillAllowed(ctx context.Context, done, total int) error {
	app, err := m.Frontmost(ctx)
	if err != nil {
		return fmt.Errorf("typing stopped after %d of %d keys: cannot tell which application is in front: %w", done, total, err)
	}
	if rule, ok := m.deny.get().Match(app); ok {
		return fmt.Errorf("%w: %s came to the front (deny list: %s); typing stopped after %d of %d keys", ErrDenyListed, app.Name, rule, done, total)
	}
	return nil
}

// macStroke is one key press with modifiers held around it. Typed
// characters carry their text, which is what apps read, whatever the
// keyboard layout; the key is the US one for ASCII, for apps that also look
// at which key it was.
type macStroke struct {
	mods []mods
	code uint16
	text []uint16 // UTF-16
}

type macKeys struct {
	chord  macStroke
	clear  []macStroke
	text   []macStroke
	submit *macStroke
}

var macModFlags = map[mods]uint64{
	modShift:   cgEventFlagMaskShift,
	modControl: cgEventFlagMaskControl,
	modAlt:     cgEventFlagMaskAlternate,
	modMeta:    cgEventFlagMaskCommand,
}

// planMacKeys resolves every key of an act before anything fires.
func planMacKeys(c checked) (*macKeys, error) {
	k := &macKeys{}
	var err error
	switch c.act.Kind {
	case vocab.Key:
		k.chord, err = macChord(c.chord, false)
	case vocab.Type:
		for _, ch := range c.clear {
			st, err := macChord(ch, false)
			if err != nil {
				return nil, err
			}
			k.clear = append(k.clear, st)
		}
		for _, ch := range c.keys {
			st, err := macChord(ch, true)
			if err != nil {
				return nil, err
			}
			k.text = append(k.text, st)
		}
		if c.submit != nil {
			st, err := macChord(*c.submit, false)
			if err != nil {
				return nil, err
			}
			k.submit = &st
		}
	}
	return k, err
}

// macChord resolves a chord, or, in typed text, one character.
func macChord(ch chord, typed bool) (macStroke, error) {
	st := macStroke{}
	m := ch.mods
	switch {
	case ch.name != keyNone:
		code, ok := macNamedCode(ch.name)
		if !ok {
			return st, fmt.Errorf("%w: Mac keyboards have no such key", ErrUnknownKey)
		}
		st.code = code
	case typed:
		code, shift, ok := macCharKey(ch.char)
		if ok && shift {
			m |= modShift
		}
		st.code = code // 0 (the A key) for characters off the US layout; the text decides
		st.text = utf16.Encode([]rune{ch.char})
	default:
		code, shift, ok := macCharKey(ch.char)
		if !ok {
			return st, fmt.Errorf("%w: no key types %q on a US keyboard", ErrUnknownKey, ch.char)
		}
		if shift {
			m |= modShift
		}
		st.code = code
	}
	for _, mod := range modOrder {
		if m&mod != 0 {
			st.mods = append(st.mods, mod)
		}
	}
	return st, nil
}

// macPostLag is how long after CGEventPost returns the HID system may still
// stamp the event.
const macPostLag = 20 * time.Millisecond

// lastInput is when the HID system last saw input of any kind, events
// Reins posted included.
func lastInput() inputAt {
	before := time.Now()
	idle := time.Duration(cgEventSourceSecondsSinceLastEventType(cgEventSourceStateHIDSystemState, cgAnyInputEventType) * float64(time.Second))
	return inputAt{early: before.Add(-idle), late: time.Now().Add(-idle)}
}

// LastInput is when the person last used the mouse or keyboard, or zero
// when the latest input was an act of Reins'.
func (m *Mac) LastInput(ctx context.Context) (time.Time, error) {
	if err := loadQuartz(); err != nil {
		return time.Time{}, err
	}
	m.fireMu.Lock()
	defer m.fireMu.Unlock()
	if m.isClosed() {
		return time.Time{}, errClosed
	}
	return lastInput().person(m.own), nil
}

func pointerLocation() cgPoint {
	ev := cgEventCreate(0)
	if ev == 0 {
		return cgPoint{}
	}
	defer cfRelease(ev)
	return cgEventGetLocation(ev)
}

// macInput posts events and remembers what is held, so that an act that
// stops half-way leaves no key or button down.
type macInput struct {
	m       *Mac
	ctx     context.Context
	at      cgPoint  // where the pointer was last sent
	buttons []bool   // held, in press order: true for the right button
	keys    []uint16 // held, in press order
	flags   uint64   // modifiers held
	sent    bool     // an event was posted
}

// alive says whether the act may send its next event.
func (in *macInput) alive() error {
	if in.m.isClosed() {
		return errClosed
	}
	return in.ctx.Err()
}

func (in *macInput) post(ev uintptr) error {
	if ev == 0 {
		return fmt.Errorf("macOS could not make an input event")
	}
	in.sent = true
	cgEventPost(cgHIDEventTap, ev)
	cfRelease(ev)
	return nil
}

func (in *macInput) mouse(typ uint32, at cgPoint, button uint32, clicks int64) error {
	ev := cgEventCreateMouseEvent(0, typ, at, button)
	if ev != 0 && clicks > 0 {
		cgEventSetIntegerValueField(ev, cgMouseEventClickState, clicks)
	}
	if err := in.post(ev); err != nil {
		return err
	}
	in.at = at
	return nil
}

func (in *macInput) move(to cgPoint) error {
	if err := in.alive(); err != nil {
		return err
	}
	return in.mouse(cgEventMouseMoved, to, cgMouseButtonLeft, 0)
}

func (in *macInput) buttonDown(right bool, clicks int64) error {
	if err := in.alive(); err != nil {
		return err
	}
	typ, b := uint32(cgEventLeftMouseDown), uint32(cgMouseButtonLeft)
	if right {
		typ, b = cgEventRightMouseDown, cgMouseButtonRight
	}
	if err := in.mouse(typ, in.at, b, clicks); err != nil {
		return err
	}
	in.buttons = append(in.buttons, right)
	return nil
}

func (in *macInput) buttonUp(right bool, clicks int64) error {
	in.buttons = remove(in.buttons, right)
	typ, b := uint32(cgEventLeftMouseUp), uint32(cgMouseButtonLeft)
	if right {
		typ, b = cgEventRightMouseUp, cgMouseButtonRight
	}
	return in.mouse(typ, in.at, b, clicks)
}

func (in *macInput) key(code uint16, down bool, text []uint16) error {
	ev := cgEventCreateKeyboardEvent(0, code, down)
	if ev != 0 {
		// Explicit flags, so modifiers the person holds do not turn typed
		// text into shortcuts.
		cgEventSetFlags(ev, in.flags)
		if len(text) > 0 {
			cgEventKeyboardSetUnicodeString(ev, uint64(len(text)), &text[0])
		}
	}
	return in.post(ev)
}

func (in *macInput) keyDown(code uint16, text []uint16) error {
	if err := in.alive(); err != nil {
		return err
	}
	if err := in.key(code, true, text); err != nil {
		return err
	}
	in.keys = append(in.keys, code)
	return nil
}

func (in *macInput) keyUp(code uint16, text []uint16) error {
	in.keys = remove(in.keys, code)
	return in.key(code, false, text)
}

// finish lets go of whatever is still held, last pressed first. It runs
// even when the act's context has ended.
func (in *macInput) finish() {
	for i := len(in.buttons) - 1; i >= 0; i-- {
		_ = in.buttonUp(in.buttons[i], 1)
	}
	for i := len(in.keys) - 1; i >= 0; i-- {
		_ = in.keyUp(in.keys[i], nil)
	}
	in.flags = 0
}

func (in *macInput) click(at cgPoint, right bool, times int) error {
	if err := in.move(at); err != nil {
		return err
	}
	if err := sleep(in.ctx, settleWait); err != nil {
		return err
	}
	for i := 1; i <= times; i++ {
		if i > 1 {
			if err := sleep(in.ctx, doubleGap); err != nil {
				return err
			}
		}
		// The click state is what makes the second click a double click.
		if err := in.buttonDown(right, int64(i)); err != nil {
			return err
		}
		if err := sleep(in.ctx, buttonHold); err != nil {
			return err
		}
		if err := in.buttonUp(right, int64(i)); err != nil {
			return err
		}
	}
	return nil
}

// scroll turns the wheel dy lines down (up when negative), then dx lines
// right (left when negative), a line at a time.
func (in *macInput) scroll(at cgPoint, dx, dy int) error {
	if err := in.move(at); err != nil {
		return err
	}
	if err := sleep(in.ctx, settleWait); err != nil {
		return err
	}
	// CoreGraphics counts up and left as positive.
	notches := func(n int, vertical bool) error {
		step := int32(-1)
		if n < 0 {
			step, n = 1, -n
		}
		for range n {
			if err := in.alive(); err != nil {
				return err
			}
			var ev uintptr
			if vertical {
				ev = cgEventCreateScrollWheelEvent2(0, cgScrollEventUnitLine, 2, step, 0, 0)
			} else {
				ev = cgEventCreateScrollWheelEvent2(0, cgScrollEventUnitLine, 2, 0, step, 0)
			}
			if err := in.post(ev); err != nil {
				return err
			}
			if err := sleep(in.ctx, stepGap); err != nil {
				return err
			}
		}
		return nil
	}
	if err := notches(dy, true); err != nil {
		return err
	}
	return notches(dx, false)
}

func (in *macInput) drag(from, to cgPoint) error {
	if err := in.move(from); err != nil {
		return err
	}
	if err := sleep(in.ctx, settleWait); err != nil {
		return err
	}
	if err := in.buttonDown(false, 1); err != nil {
		return err
	}
	for i := 1; i <= dragSteps; i++ {
		if err := sleep(in.ctx, stepGap); err != nil {
			return err
		}
		p := cgPoint{lerp(from.X, to.X, i, dragSteps), lerp(from.Y, to.Y, i, dragSteps)}
		if err := in.mouse(cgEventLeftMouseDragged, p, cgMouseButtonLeft, 0); err != nil {
			return err
		}
	}
	if err := sleep(in.ctx, settleWait); err != nil {
		return err
	}
	return in.buttonUp(false, 1)
}

// stroke holds the modifiers, presses the key and lets go in reverse.
func (in *macInput) stroke(st macStroke) error {
	for _, m := range st.mods {
		in.flags |= macModFlags[m]
		code, _ := macNamedCode(modKeys[m])
		if err := in.keyDown(code, nil); err != nil {
			return err
		}
	}
	if err := in.keyDown(st.code, st.text); err != nil {
		return err
	}
	if err := sleep(in.ctx, keyHold); err != nil {
		return err
	}
	if err := in.keyUp(st.code, st.text); err != nil {
		return err
	}
	for i := len(st.mods) - 1; i >= 0; i-- {
		m := st.mods[i]
		in.flags &^= macModFlags[m]
		code, _ := macNamedCode(modKeys[m])
		if err := in.keyUp(code, nil); err != nil {
			return err
		}
	}
	return nil
}

// Frontmost returns the application NSWorkspace reports in front.
func (m *Mac) Frontmost(ctx context.Context) (App, error) {
	if m.isClosed() {
		return App{}, errClosed
	}
	app := desktop
	withPool(func() {
		ws := objc.ID(clsNSWorkspace).Send(selSharedWorkspace)
		if front := ws.Send(selFrontmostApplication); front != 0 {
			app = appOf(front)
		}
	})
	return app, nil
}

// macWindow is one entry of the on-screen window list.
type macWindow struct {
	pid    int
	owner  string
	title  string // empty without Screen Recording permission
	layer  int64
	bounds cgRect
}

// onScreenWindows lists on-screen windows front to back, desktop icons and
// wallpaper left out.
func onScreenWindows() ([]macWindow, error) {
	var out []macWindow
	var err error
	withPool(func() {
		list := cgWindowListCopyWindowInfo(cgWindowListOnScreen|cgWindowListNoDesktop, 0)
		if list == 0 {
			err = fmt.Errorf("macOS did not list the windows on screen")
			return
		}
		defer cfRelease(list)
		n := cfArrayGetCount(list)
		for i := range n {
			d := cfArrayGetValueAtIndex(list, i)
			var r cgRect
			b := cfDictionaryGetValue(d, kCGWindowBounds)
			if b == 0 || !cgRectMakeWithDictionaryRepresentation(b, &r) {
				continue
			}
			out = append(out, macWindow{
				pid:    int(nsInt(objc.ID(cfDictionaryGetValue(d, kCGWindowOwnerPID)))),
				owner:  nsString(objc.ID(cfDictionaryGetValue(d, kCGWindowOwnerName))),
				title:  nsString(objc.ID(cfDictionaryGetValue(d, kCGWindowName))),
				layer:  nsInt(objc.ID(cfDictionaryGetValue(d, kCGWindowLayer))),
				bounds: r,
			})
		}
	})
	return out, err
}

// appOfWindow names the application that owns w.
func appOfWindow(w macWindow) App {
	app := App{Name: w.owner, PID: w.pid}
	withPool(func() {
		ra := objc.ID(clsNSRunningApplication).Send(selRunningAppWithPID, int32(w.pid))
		if ra == 0 {
			return
		}
		a := appOf(ra)
		if a.Name == "" {
			a.Name = w.owner
		}
		app = a
	})
	return app
}

// AppAt returns the application owning the front normal-layer window under
// (x, y). Windows above that layer (the menu bar, the Dock, panels and
// overlays, some of them invisible) are reported only when deny-listed: a
// deny-listed floating panel must still stop a click, and an invisible
// overlay must not hide the window the click lands on.
func (m *Mac) AppAt(ctx context.Context, x, y float64) (App, error) {
	if m.isClosed() {
		return App{}, errClosed
	}
	ws, err := onScreenWindows()
	if err != nil {
		return App{}, err
	}
	p := cgPoint{x, y}
	for _, w := range ws {
		if !w.bounds.contains(p) {
			continue
		}
		app := appOfWindow(w)
		if w.layer != 0 {
			if _, denied := m.deny.get().Match(app); denied {
				return app, nil
			}
			continue
		}
		return app, nil
	}
	return desktop, nil
}

// maxDisplays is more displays than any Mac drives at once.
const maxDisplays = 32

// Screens lists the active displays in global points, the coordinates
// CGEvent and CGWindowList use, with the main display's top left at (0, 0).
func (m *Mac) Screens(ctx context.Context) ([]Screen, error) {
	if m.isClosed() {
		return nil, errClosed
	}
	var ids [maxDisplays]uint32
	var n uint32
	if rc := cgGetActiveDisplayList(maxDisplays, &ids[0], &n); rc != 0 {
		return nil, fmt.Errorf("cannot list the displays (CoreGraphics error %d)", rc)
	}
	out := make([]Screen, 0, n)
	for _, id := range ids[:min(n, maxDisplays)] {
		b := cgDisplayBounds(id)
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
		if w.layer != 0 {
			continue
		}
		app := appOfWindow(w)
		active := !seenFront && front.PID != 0 && app.PID == front.PID
		seenFront = seenFront || active
		out = append(out, Window{
			App:    app,
			Title:  w.title,
			X:      w.bounds.Origin.X,
			Y:      w.bounds.Origin.Y,
			W:      w.bounds.Size.W,
			H:      w.bounds.Size.H,
			Active: active,
		})
	}
	return out, nil
}
