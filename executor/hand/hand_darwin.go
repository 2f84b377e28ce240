package hand

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/ebitengine/purego"
	"github.com/reins-app/reins/executor/internal/quartz"
	"github.com/reins-app/reins/internal/macos"
)

// The person's hand on macOS: a listen-only event tap (CGEventTapCreate at
// kCGSessionEventTap, inserted at the head, kCGEventTapOptionListenOnly)
// on a thread of its own that runs a CFRunLoop, switched on only while a
// watch is. What each event means is handmac.go's: the person's input is
// the HID system's (kCGEventSourceUnixProcessID 0), Reins' own carries its
// mark (kCGEventSourceUserData, set in quartz.EventPost) and its pid. The tap
// reads no key code.
//
// A listen-only tap needs the Input Monitoring permission (macOS 10.15 and
// later: CGPreflightListenEventAccess, CGRequestListenEventAccess); a tap
// at kCGHIDEventTap would need root, so the session's is used. Everything
// here is unverified on a Mac; the self-test confirms it.

var hand struct {
	once sync.Once
	err  error

	// CFMachPortRef CGEventTapCreate(CGEventTapLocation, CGEventTapPlacement,
	// CGEventTapOptions, CGEventMask, CGEventTapCallBack, void *userInfo)
	tapCreate func(location, place, options uint32, mask uint64, callback, info uintptr) uintptr
	// void CGEventTapEnable(CFMachPortRef tap, bool enable)
	tapEnable func(tap uintptr, enable bool)
	// int64_t CGEventGetIntegerValueField(CGEventRef, CGEventField)
	field func(event uintptr, field uint32) int64
	// CGEventFlags CGEventGetFlags(CGEventRef)
	flags func(event uintptr) uint64
	// CGEventFlags CGEventSourceFlagsState(CGEventSourceStateID)
	flagsState func(state int32) uint64
	// bool CGPreflightListenEventAccess(void), bool
	// CGRequestListenEventAccess(void): macOS 10.15 and later; nil before.
	preflightListen func() bool
	requestListen   func() bool

	// callback is the C entry of tapEvent, made once: callbacks are never
	// freed.
	callback uintptr
}

func loadHand() error {
	hand.once.Do(func() {
		if err := quartz.Load(); err != nil {
			hand.err = err
			return
		}
		var b macos.Binder
		cg := b.Open(macos.CoreGraphics)
		b.Func(cg, "CGEventTapCreate", &hand.tapCreate)
		b.Func(cg, "CGEventTapEnable", &hand.tapEnable)
		b.Func(cg, "CGEventGetIntegerValueField", &hand.field)
		b.Func(cg, "CGEventGetFlags", &hand.flags)
		b.Func(cg, "CGEventSourceFlagsState", &hand.flagsState)
		if hand.err = b.Err(); hand.err != nil {
			return
		}
		macos.BindOptional(cg, "CGPreflightListenEventAccess", &hand.preflightListen)
		macos.BindOptional(cg, "CGRequestListenEventAccess", &hand.requestListen)
		hand.callback = purego.NewCallback(tapEvent)
	})
	return hand.err
}

// inputMonitoringPane is how the person is told where to allow the watch.
const inputMonitoringPane = "System Settings › Privacy & Security › Input Monitoring"

var listenAsked sync.Once

// InputMonitoringStatus reports, without asking the person anything,
// whether macOS lets Reins watch the keyboard and mouse
// (CGPreflightListenEventAccess), which telling the person's hand from
// Reins' own input needs. err says why it cannot be told.
func InputMonitoringStatus() (allowed bool, err error) {
	if err := loadHand(); err != nil {
		return false, fmt.Errorf("this act is not supported here: %v", err)
	}
	if hand.preflightListen == nil {
		return false, errors.New("this macOS has no CGPreflightListenEventAccess (macOS 10.15 or later has)")
	}
	return hand.preflightListen(), nil
}

// RequestInputMonitoring has macOS ask the person, at most once a process,
// to let Reins watch the keyboard and mouse, and reports whether it may
// now. macOS shows its own dialog and lists Reins in the Input Monitoring
// pane; a grant takes effect once Reins is reopened.
func RequestInputMonitoring() (bool, error) {
	allowed, err := InputMonitoringStatus()
	if err != nil || allowed {
		return allowed, err
	}
	listenAsked.Do(func() {
		if hand.requestListen != nil {
			allowed = hand.requestListen()
		}
	})
	return allowed, nil
}

// macHandSyncWait bounds how long a watch's Check waits for the tap to see
// an input the HID system has already taken: one the tap never gets (a key
// hidden by Secure Event Input) must not stall an act for ever.
const macHandSyncWait = 50 * time.Millisecond

// macRunSlice is how long the tap's run loop runs between looks at whether
// the listener is closing: CFRunLoopStop is the prompt way, this the
// backstop for a stop that came before the run began.
const macRunSlice = 1.0 // seconds

// tapListener is a Listener on macOS.
type tapListener struct {
	key    uintptr // its key in taps, passed to the callback as userInfo
	own    int     // Reins' pid
	motion float64

	tap, source, runLoop uintptr // set by the tap's thread before ready
	done                 chan struct{}

	mu        sync.Mutex
	active    map[*Watch]*macWatchState // guarded by mu
	enabledAt time.Time                 // guarded by mu: when the tap was last switched on
	lastSeen  time.Time                 // guarded by mu: when the tap last saw any event
	waiters   int                       // guarded by mu: syncs waiting on tick
	tick      chan struct{}             // guarded by mu: closed at the next event while waiters > 0
	closing   bool                      // guarded by mu
	broken    error                     // guarded by mu: why the tap stopped, if it did
}

var errHandListenerClosed = fmt.Errorf("%w: the listener was closed", ErrNoWatch)

// taps are the listeners open, by key, for the callback. Guarded by
// tapsMu.
var (
	tapsMu  sync.Mutex
	taps    = map[uintptr]*tapListener{}
	tapNext uintptr
)

// NewListener opens a listen-only event tap on a thread of its own,
// off until a watch starts. Without the Input Monitoring permission it
// has macOS ask the person, once, and returns an error wrapping
// ErrNoWatch that says where to allow it; then an act cannot be
// watched, and must not fire.
//
// A press is placed in global points, not pixels; Input.Device is 0, as
// a tap does not name the device an event came from.
//
// What macOS cannot tell apart, neither can the listener: another program
// that posts its events with pid 0, or with Reins' mark, passes for the
// person or for Reins.
func NewListener(ctx context.Context, opts Options) (*Listener, error) {
	if err := loadHand(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoWatch, err)
	}
	if allowed, err := RequestInputMonitoring(); err == nil && !allowed {
		return nil, fmt.Errorf("%w: macOS has not given Reins the Input Monitoring permission, which telling your own keyboard and mouse from Reins' input needs: in %s turn Reins on (or add it with +), then quit and reopen Reins", ErrNoWatch, inputMonitoringPane)
	}
	motion := opts.Motion
	if motion <= 0 {
		motion = defaultMotion
	}
	l := &tapListener{own: os.Getpid(), motion: motion, active: map[*Watch]*macWatchState{}, done: make(chan struct{})}
	tapsMu.Lock()
	tapNext++
	l.key = tapNext
	taps[l.key] = l
	tapsMu.Unlock()
	ready := make(chan error, 1)
	go l.run(ready)
	select {
	case err := <-ready:
		if err != nil {
			return nil, err
		}
	case <-ctx.Done():
		l.close()
		return nil, ctx.Err()
	}
	return &Listener{impl: l}, nil
}

// run makes the tap and serves it on this goroutine's own OS thread until
// the listener closes or the tap dies.
func (l *tapListener) run(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(l.done)
	defer l.forget()
	// Every kind of event, key codes never read: the key-ups, button-ups
	// and modifier changes are there so that the tap keeps pace with the
	// HID system's clock (see sync), not to be kept.
	const allEvents = ^uint64(0)
	tap := hand.tapCreate(quartz.SessionEventTap, quartz.HeadInsertEventTap, quartz.EventTapOptionListenOnly, allEvents, hand.callback, l.key)
	if tap == 0 {
		ready <- fmt.Errorf("%w: macOS refused Reins an event tap; in %s turn Reins on, then quit and reopen Reins", ErrNoWatch, inputMonitoringPane)
		return
	}
	// Taps start on; this one reads nothing until a watch starts.
	hand.tapEnable(tap, false)
	rl := macos.CurrentRunLoop()
	src := macos.AddMachPort(rl, tap)
	if src == 0 {
		macos.InvalidateMachPort(tap)
		macos.CFRelease(tap)
		ready <- fmt.Errorf("%w: macOS gave the event tap no run loop source", ErrNoWatch)
		return
	}
	l.mu.Lock()
	l.tap, l.source, l.runLoop = tap, src, rl
	l.mu.Unlock()
	ready <- nil
	var why error
	for {
		l.mu.Lock()
		closing := l.closing
		l.mu.Unlock()
		if closing {
			break
		}
		if macos.RunLoopFor(macRunSlice) == macos.RunLoopFinished {
			why = fmt.Errorf("%w: macOS ended the event tap", ErrNoWatch)
			break
		}
	}
	macos.InvalidateMachPort(tap)
	macos.CFRelease(src)
	macos.CFRelease(tap)
	l.ended(why)
}

// forget takes the listener off the callback's list.
func (l *tapListener) forget() {
	tapsMu.Lock()
	delete(taps, l.key)
	tapsMu.Unlock()
}

// tapEvent is the CGEventTapCallBack, CGEventRef (*)(CGEventTapProxy,
// CGEventType, CGEventRef, void *userInfo), run on a listener's thread. A
// listen-only tap's return value is ignored; the event goes back as given.
func tapEvent(proxy uintptr, typ uint32, event uintptr, info uintptr) uintptr {
	tapsMu.Lock()
	l := taps[info]
	tapsMu.Unlock()
	if l != nil {
		l.event(typ, event)
	}
	return event
}

// event looks at one event for every watch on.
func (l *tapListener) event(typ uint32, ev uintptr) {
	now := time.Now()
	l.mu.Lock()
	l.lastSeen = now
	if l.waiters > 0 {
		close(l.tick)
		l.tick = make(chan struct{})
	}
	if typ == quartz.EventTapDisabledByTimeout || typ == quartz.EventTapDisabledByUserInput {
		// Input went by unseen: no watch on can say what the person did.
		watches := l.watchingLocked()
		if len(l.active) > 0 {
			hand.tapEnable(l.tap, true)
			l.enabledAt = time.Now()
		}
		l.mu.Unlock()
		why := fmt.Errorf("%w: macOS switched the event tap off for a moment, so input may have gone by unseen", ErrNoWatch)
		for w := range watches {
			w.fail(why)
		}
		return
	}
	if len(l.active) == 0 {
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	e, ok := readTapEvent(typ, ev)
	if !ok {
		return
	}
	l.mu.Lock()
	type seen struct {
		w *Watch
		s macSeen
	}
	var out []seen
	for w, st := range l.active {
		if s := st.see(e, l.own, l.motion, now); s.kind != 0 || s.pressed {
			out = append(out, seen{w, s})
		}
	}
	l.mu.Unlock()
	for _, o := range out {
		if o.s.pressed {
			o.w.press(o.s.press)
		}
		if o.s.kind != 0 {
			o.w.saw(Input{Kind: o.s.kind, At: now})
		}
	}
}

// readTapEvent reads the fields the watch looks at, for the kinds of event
// it looks at; ok is false for any other kind. No key code is read.
func readTapEvent(typ uint32, ev uintptr) (macTapEvent, bool) {
	e := macTapEvent{Type: typ}
	switch typ {
	case quartz.EventKeyDown:
		e.Autorepeat = hand.field(ev, quartz.KeyboardEventAutorepeat) != 0
	case quartz.EventFlagsChanged:
		e.Flags = hand.flags(ev)
	case quartz.EventLeftMouseDown, quartz.EventRightMouseDown, quartz.EventOtherMouseDown:
		p := quartz.EventGetLocation(ev)
		e.X, e.Y = p.X, p.Y
	case quartz.EventMouseMoved, quartz.EventLeftMouseDragged, quartz.EventRightMouseDragged, quartz.EventOtherMouseDragged:
		e.DX, e.DY = hand.field(ev, quartz.MouseEventDeltaX), hand.field(ev, quartz.MouseEventDeltaY)
	case quartz.EventScrollWheel:
		e.Momentum = hand.field(ev, quartz.ScrollWheelEventMomentumPhase)
		for i, f := range []uint32{quartz.ScrollWheelEventDeltaAxis1, quartz.ScrollWheelEventDeltaAxis2, quartz.ScrollWheelEventPointDeltaAxis1, quartz.ScrollWheelEventPointDeltaAxis2} {
			e.Wheel[i] = hand.field(ev, f)
		}
	default:
		return e, false
	}
	e.SourcePID = hand.field(ev, quartz.EventSourceUnixProcessID)
	e.SourceState = hand.field(ev, quartz.EventSourceStateID)
	e.UserData = hand.field(ev, quartz.EventSourceUserData)
	return e, true
}

// watchingLocked is a copy of the watches on; l.mu is held.
func (l *tapListener) watchingLocked() map[*Watch]bool {
	out := make(map[*Watch]bool, len(l.active))
	for w := range l.active {
		out[w] = true
	}
	return out
}

// watch switches the tap on, if no other watch has, and returns once every
// event the HID system takes from then on reaches w: CGEventTapEnable has
// returned.
func (l *tapListener) watch(ctx context.Context, w *Watch) (handSource, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.broken != nil:
		return nil, l.broken
	case l.closing:
		return nil, errHandListenerClosed
	}
	l.active[w] = newMacWatchState(hand.flagsState(quartz.EventSourceStateHIDSystemState))
	if len(l.active) == 1 {
		l.enabledAt = time.Now()
		hand.tapEnable(l.tap, true)
	}
	return &tapSource{l: l, w: w}, nil
}

// tapSource is one watch's side of the listener.
type tapSource struct {
	l *tapListener
	w *Watch
}

// sync returns once the tap has seen the HID system's latest input, or
// after macHandSyncWait: see macTapCaughtUp.
func (s *tapSource) sync(ctx context.Context) error {
	l := s.l
	asked := time.Now()
	idle := quartz.EventSourceSecondsSinceLastEventType(quartz.EventSourceStateHIDSystemState, quartz.AnyInputEventType)
	lastHID := asked.Add(-time.Duration(idle * float64(time.Second)))
	timer := time.NewTimer(macHandSyncWait)
	defer timer.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		switch {
		case l.broken != nil:
			return l.broken
		case l.closing:
			return errHandListenerClosed
		case macTapCaughtUp(lastHID, l.lastSeen, l.enabledAt):
			return nil
		}
		if l.tick == nil {
			l.tick = make(chan struct{})
		}
		tick := l.tick
		l.waiters++
		l.mu.Unlock()
		var err error
		timedOut := false
		select {
		case <-tick:
		case <-timer.C:
			// The HID system took an input the tap has not seen; it may
			// never see it (a key under Secure Event Input, an event a
			// tap before it dropped). What it has seen is all it can say.
			timedOut = true
		case <-ctx.Done():
			err = ctx.Err()
		}
		l.mu.Lock()
		l.waiters--
		if err != nil {
			return err
		}
		if timedOut {
			return nil
		}
	}
}

// close stops passing input to the watch, and switches the tap off when it
// was the last watch on.
func (s *tapSource) close() error {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, on := l.active[s.w]; !on {
		return nil
	}
	delete(l.active, s.w)
	if len(l.active) == 0 && l.tap != 0 && !l.closing && l.broken == nil {
		hand.tapEnable(l.tap, false)
	}
	return nil
}

// close stops the tap's run loop and waits for its thread; every watch on
// trips.
func (l *tapListener) close() error {
	l.mu.Lock()
	l.closing = true
	rl := l.runLoop
	l.mu.Unlock()
	if rl != 0 {
		macos.StopRunLoop(rl)
	}
	<-l.done
	return nil
}

// ended trips every watch on: the tap is gone.
func (l *tapListener) ended(why error) {
	l.mu.Lock()
	if why == nil || l.closing {
		why = errHandListenerClosed
	}
	l.broken = why
	watches := l.watchingLocked()
	l.active = map[*Watch]*macWatchState{}
	if l.waiters > 0 {
		close(l.tick)
		l.tick = make(chan struct{})
	}
	l.mu.Unlock()
	for w := range watches {
		w.fail(why)
	}
}
