package hand

import (
	"testing"
	"time"

	"github.com/reins-app/reins/executor/internal/quartz"
)

// The events below are written from the fields CGEventTypes.h documents,
// with the values a listen-only tap is expected to read (hardware: pid 0,
// the HID system's state; a posted event: its poster's pid); they are not
// recorded on a Mac.
const (
	testReinsPID = 4100
	testOtherPID = 733
)

var (
	hwKey      = macTapEvent{Type: quartz.EventKeyDown, SourcePID: 0, SourceState: quartz.EventSourceStateHIDSystemState}
	reinsKey   = macTapEvent{Type: quartz.EventKeyDown, SourcePID: testReinsPID, UserData: quartz.ReinsEventMark}
	guardKey   = macTapEvent{Type: quartz.EventKeyUp, SourcePID: 9999, UserData: quartz.ReinsEventMark} // the release guard, its parent gone
	programKey = macTapEvent{Type: quartz.EventKeyDown, SourcePID: testOtherPID, SourceState: quartz.EventSourceStateHIDSystemState}
)

func TestMacOriginTellsTheHIDSystemFromPostersAndFromReins(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    macTapEvent
		want macOrigin
	}{
		{"hardware", hwKey, macFromHardware},
		{"Reins, by its mark", reinsKey, macFromReins},
		{"Reins, by its pid with the mark lost", macTapEvent{Type: quartz.EventKeyDown, SourcePID: testReinsPID}, macFromReins},
		{"the release guard, another process, by its mark", guardKey, macFromReins},
		{"Reins' mark on a pid-0 event still is Reins'", macTapEvent{Type: quartz.EventKeyDown, UserData: quartz.ReinsEventMark, SourceState: quartz.EventSourceStateHIDSystemState}, macFromReins},
		{"another program in the HID system's state", programKey, macFromProgram},
		{"another program in the session's state", macTapEvent{Type: quartz.EventKeyDown, SourcePID: testOtherPID}, macFromProgram},
	} {
		if got := tc.e.origin(testReinsPID); got != tc.want {
			t.Errorf("%s: origin %d, want %d", tc.name, got, tc.want)
		}
	}
	if !hwKey.hardwareState() || reinsKey.hardwareState() {
		t.Error("hardwareState does not read kCGEventSourceStateID 1 as the HID system's")
	}
}

func TestMacWatchCountsOnlyThePersonsPresses(t *testing.T) {
	at := time.Unix(100, 0)
	for _, tc := range []struct {
		name string
		e    macTapEvent
		want Kind
	}{
		{"a key pressed", hwKey, Key},
		{"a key's autorepeat", macTapEvent{Type: quartz.EventKeyDown, Autorepeat: true}, 0},
		{"a key let go", macTapEvent{Type: quartz.EventKeyUp}, 0},
		{"Reins' own key", reinsKey, 0},
		{"the release guard's key up", guardKey, 0},
		{"another program's key", programKey, 0},
		{"a wheel turned", macTapEvent{Type: quartz.EventScrollWheel, Wheel: [4]int64{0, 0, -12, 0}}, Wheel},
		{"a wheel turned a line", macTapEvent{Type: quartz.EventScrollWheel, Wheel: [4]int64{1, 0, 0, 0}}, Wheel},
		{"a trackpad's momentum", macTapEvent{Type: quartz.EventScrollWheel, Wheel: [4]int64{0, 0, -30, 0}, Momentum: 2}, 0},
		{"a scroll phase ending, no delta", macTapEvent{Type: quartz.EventScrollWheel}, 0},
		{"Reins' own wheel", macTapEvent{Type: quartz.EventScrollWheel, Wheel: [4]int64{-3, 0, 0, 0}, UserData: quartz.ReinsEventMark}, 0},
		{"a button let go", macTapEvent{Type: quartz.EventLeftMouseUp}, 0},
		{"a right button pressed", macTapEvent{Type: quartz.EventRightMouseDown, X: 10, Y: 10}, Button},
		{"a third button pressed", macTapEvent{Type: quartz.EventOtherMouseDown}, Button},
	} {
		st := newMacWatchState(0)
		if got := st.see(tc.e, testReinsPID, defaultMotion, at).kind; got != tc.want {
			t.Errorf("%s: kind %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMacWatchRecordsEveryPressAndPlacesOnlyThePersons(t *testing.T) {
	at := time.Unix(100, 0)
	st := newMacWatchState(0)
	person := st.see(macTapEvent{Type: quartz.EventLeftMouseDown, X: 640.6, Y: -20.4}, testReinsPID, 4, at)
	if !person.pressed || person.kind != Button || person.press != (Press{Person: true, At: at, X: 641, Y: -20, Placed: true}) {
		t.Errorf("the person's press: %+v", person)
	}
	for _, e := range []macTapEvent{
		{Type: quartz.EventLeftMouseDown, X: 5, Y: 5, UserData: quartz.ReinsEventMark, SourcePID: testReinsPID},
		{Type: quartz.EventLeftMouseDown, X: 5, Y: 5, SourcePID: testOtherPID, SourceState: quartz.EventSourceStateHIDSystemState},
	} {
		s := st.see(e, testReinsPID, 4, at)
		if !s.pressed || s.kind != 0 || s.press.Person || s.press.Placed {
			t.Errorf("a synthetic press %+v: %+v", e, s)
		}
	}
}

func TestMacWatchTakesMotionBeyondTheThresholdOnly(t *testing.T) {
	at := time.Unix(100, 0)
	st := newMacWatchState(0)
	move := func(dx, dy int64, data int64) Kind {
		return st.see(macTapEvent{Type: quartz.EventMouseMoved, DX: dx, DY: dy, UserData: data}, testReinsPID, 4, at).kind
	}
	if k := move(1, 1, 0); k != 0 {
		t.Fatalf("a nudge of (1, 1) counted: %v", k)
	}
	// Reins' own motion, however far, moves nothing of the person's.
	if k := move(300, 0, quartz.ReinsEventMark); k != 0 {
		t.Fatalf("Reins' own motion counted: %v", k)
	}
	if k := move(1, 1, 0); k != 0 {
		t.Fatalf("(2, 2) in all counted: %v", k)
	}
	if k := st.see(macTapEvent{Type: quartz.EventLeftMouseDragged, DX: 1, DY: 1}, testReinsPID, 4, at).kind; k != Motion {
		t.Fatalf("(3, 3) in all, dragged, is %v; want motion", k)
	}
}

func TestMacWatchTakesAModifierPressedNotOneLetGo(t *testing.T) {
	at := time.Unix(100, 0)
	// Command was held as the watch began: the click that approved the
	// act was a ⌘-click, say.
	st := newMacWatchState(quartz.EventFlagMaskCommand | 0x100) // and a device bit, not a modifier
	flags := func(f uint64, data int64) Kind {
		return st.see(macTapEvent{Type: quartz.EventFlagsChanged, Flags: f, UserData: data}, testReinsPID, 4, at).kind
	}
	if k := flags(0x100, 0); k != 0 {
		t.Fatalf("letting go of Command counted: %v", k)
	}
	if k := flags(quartz.EventFlagMaskShift, quartz.ReinsEventMark); k != 0 {
		t.Fatalf("Reins' own Shift counted: %v", k)
	}
	if k := flags(quartz.EventFlagMaskShift, 0); k != Key {
		t.Fatalf("the person pressing Shift is %v; want key", k)
	}
	if k := flags(0, 0); k != 0 {
		t.Fatalf("letting go of Shift counted: %v", k)
	}
}

func TestMacTapCaughtUpWithTheHIDSystem(t *testing.T) {
	base := time.Unix(1000, 0)
	ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name                       string
		lastHID, lastSeen, enabled time.Time
		want                       bool
	}{
		{"the last input came before the tap was on", ms(5), ms(0), ms(10), true},
		{"the tap saw the last input", ms(20), ms(21), ms(10), true},
		{"the tap saw it within the rounding", ms(20), base.Add(20*time.Millisecond - 100*time.Microsecond), ms(10), true},
		{"an input the tap has not seen yet", ms(20), ms(15), ms(10), false},
		{"nothing seen since the tap was on", ms(20), time.Time{}, ms(10), false},
	} {
		if got := macTapCaughtUp(tc.lastHID, tc.lastSeen, tc.enabled); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
