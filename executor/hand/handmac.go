package hand

import (
	"math"
	"time"

	"github.com/reins-app/reins/executor/internal/quartz"
)

// The pure half of the macOS hand watch: what one event a listen-only
// event tap saw means for a watch, from the CGEvent fields the tap reads.
// hand_darwin.go reads the fields; the tests give recorded values. It
// lives in a file every platform compiles so that those tests run
// anywhere.
//
// Unverified on a Mac, and for the self-test to confirm:
//   - Hardware input carries kCGEventSourceUnixProcessID 0: no process
//     posted it. Chromium's remote-desktop host tells the local person's
//     mouse from its own injected input by exactly that (pid 0), and
//     programs that probed it report the same; Apple documents only the
//     field.
//   - Hardware input carries kCGEventSourceStateID 1, the HID system's
//     state table, which Apple's CGEventSource documentation says
//     "reflects the combined state of all hardware event sources posting
//     from the HID system". Any program may create a source of that state,
//     so the state alone proves nothing; with pid 0 it is the HID system's
//     own.
//   - An event Reins posts keeps the user data it was given
//     (kCGEventSourceUserData) and carries Reins' pid on its way through
//     the session, where the tap sees it.
//   - Posting does not suppress the person's own input before the tap sees
//     it. Apple's CGEventSource pages say that by default the system does
//     not suppress local hardware events after a posted event; its older
//     CGSetLocalEventsFilterDuringSuppressionState page says it does, for
//     0.25 s. Reins posts with a NULL source, whose suppression it cannot
//     set; if the person's input is suppressed while an act fires, the
//     watch never sees it, and the fix is a private source with a zero
//     suppression interval and a filter that permits every local event.
//   - While Secure Event Input is on (a password field anywhere, Terminal's
//     Secure Keyboard Entry) keyboard events are hidden from taps: the
//     person's keys then go unseen, their mouse still counts.

// macModifierFlags are the modifier bits of CGEventFlags.
const macModifierFlags = quartz.EventFlagMaskAlphaShift | quartz.EventFlagMaskShift | quartz.EventFlagMaskControl | quartz.EventFlagMaskAlternate | quartz.EventFlagMaskCommand | quartz.EventFlagMaskSecondaryFn

// macTapEvent is what the watch reads of one event: no key code, ever.
type macTapEvent struct {
	Type        uint32 // CGEventType
	SourcePID   int64  // kCGEventSourceUnixProcessID: 0 for the HID system's own
	SourceState int64  // kCGEventSourceStateID
	UserData    int64  // kCGEventSourceUserData
	Autorepeat  bool   // kCGKeyboardEventAutorepeat, for a key down
	Flags       uint64 // CGEventGetFlags, for a modifier change
	// DX, DY: kCGMouseEventDeltaX/Y, the pointer's motion in points.
	DX, DY int64
	// Wheel: the scroll deltas, lines (axes 1 and 2) and points (96, 97);
	// any non-zero one is a turn.
	Wheel [4]int64
	// Momentum: kCGScrollWheelEventMomentumPhase; non-zero for the scroll
	// a trackpad keeps making after the fingers left it.
	Momentum int64
	X, Y     float64 // CGEventGetLocation: global points
}

// macOrigin is who made an event.
type macOrigin uint8

const (
	macFromReins    macOrigin = iota + 1 // Reins, or its release guard
	macFromHardware                      // the HID system: the person's devices
	macFromProgram                       // another program posted it
)

// origin tells an event's maker from its source fields; own is Reins' pid.
// Reins' mark or pid comes first: nothing Reins posts is the person's.
// Then the HID system's events are those no process posted (pid 0); an
// event a program posted in the HID system's state (some automation tools
// create their source so) is that program's, not the person's.
func (e macTapEvent) origin(own int) macOrigin {
	switch {
	case e.UserData == quartz.ReinsEventMark || (own > 0 && e.SourcePID == int64(own)):
		return macFromReins
	case e.SourcePID == 0:
		return macFromHardware
	}
	return macFromProgram
}

// hardwareState reports whether the event's source state is the HID
// system's, which a hardware event's is expected to be; the watch does not
// require it (see origin), and the self-test prints it.
func (e macTapEvent) hardwareState() bool {
	return e.SourceState == quartz.EventSourceStateHIDSystemState
}

// macWatchState is what one watch has seen of the person's hand so far.
type macWatchState struct {
	moved [2]float64 // the person's pointer motion since the watch began, points
	flags uint64     // the modifiers the person held at the last change
}

// newMacWatchState starts a watch's state with the modifiers held as it
// begins (CGEventSourceFlagsState of the HID system), so that letting go
// of one held before is not taken for a press.
func newMacWatchState(flags uint64) *macWatchState {
	return &macWatchState{flags: flags & macModifierFlags}
}

// macSeen is what one event means for a watch: the person's hand (kind
// non-zero), and a button press from anyone (pressed).
type macSeen struct {
	kind    Kind
	press   Press
	pressed bool
}

// see looks at one event for the watch st: a key or button pressed, a
// wheel turned or a modifier pressed by the person, or the pointer carried
// by the person beyond motion points from where it was. Releases never
// count, nor a key's autorepeat, nor a trackpad's momentum; nothing of
// Reins' counts. A press is recorded whoever made it, placed only when it
// is the person's.
func (st *macWatchState) see(e macTapEvent, own int, motion float64, at time.Time) macSeen {
	o := e.origin(own)
	person := o == macFromHardware
	var s macSeen
	switch e.Type {
	case quartz.EventLeftMouseDown, quartz.EventRightMouseDown, quartz.EventOtherMouseDown:
		if o == macFromReins {
			// Reins' own press: a window that allows takes none, and
			// neither does the last press become Reins'.
			s.press, s.pressed = Press{Person: false, At: at}, true
			return s
		}
		s.press, s.pressed = Press{Person: person, At: at}, true
		if person {
			s.press.X, s.press.Y, s.press.Placed = int(math.Round(e.X)), int(math.Round(e.Y)), true
			s.kind = Button
		}
	case quartz.EventKeyDown:
		if person && !e.Autorepeat {
			s.kind = Key
		}
	case quartz.EventFlagsChanged:
		if !person {
			return s
		}
		now := e.Flags & macModifierFlags
		if now&^st.flags != 0 {
			s.kind = Key
		}
		st.flags = now
	case quartz.EventScrollWheel:
		if person && e.Momentum == 0 && e.Wheel != [4]int64{} {
			s.kind = Wheel
		}
	case quartz.EventMouseMoved, quartz.EventLeftMouseDragged, quartz.EventRightMouseDragged, quartz.EventOtherMouseDragged:
		if !person {
			return s
		}
		st.moved[0] += float64(e.DX)
		st.moved[1] += float64(e.DY)
		if math.Hypot(st.moved[0], st.moved[1]) >= motion {
			s.kind = Motion
		}
	}
	return s
}

// macTapSyncSlack is how far before the HID system's last input the tap's
// last event may lie and still be taken for it: what a CFTimeInterval's
// rounding leaves.
const macTapSyncSlack = 200 * time.Microsecond

// macTapCaughtUp reports whether the tap has seen every input the HID
// system took: its latest (lastHID) came before the tap was switched on,
// which is before any watch that asks began, or the tap has seen an event
// at or after it. Both times are read on Go's clock: lastHID is now less
// CGEventSourceSecondsSinceLastEventType.
func macTapCaughtUp(lastHID, lastSeen, enabledAt time.Time) bool {
	return !lastHID.After(enabledAt) || !lastSeen.Before(lastHID.Add(-macTapSyncSlack))
}
