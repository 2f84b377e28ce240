package executor

import (
	"errors"
	"testing"

	"github.com/reins-app/reins/executor/hand"
)

// These run on a Mac only (the macOS workflow). The watch needs Input
// Monitoring and posting needs Accessibility, which a CI runner has not
// got: the test says so and skips there, in the step that may fail.

// TestMacOwnMotionLeavesTheWatchUntrippedNeedsAccessibility: Reins' own
// pointer motion, posted as an act posts it and far beyond the motion
// threshold, never passes for the person's hand. (The person's side needs
// a hand on the mouse: the self-test asks for it.)
func TestMacOwnMotionLeavesTheWatchUntrippedNeedsAccessibility(t *testing.T) {
	m, err := NewMac(MacOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.CheckPermission(); err != nil {
		t.Skip(err)
	}
	if ok, err := hand.InputMonitoringStatus(); err != nil || !ok {
		t.Skipf("no Input Monitoring permission (%v), so no watch can start", err)
	}
	l, err := hand.NewListener(t.Context(), hand.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	w, err := l.Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start := pointerLocation()
	defer m.post(event{kind: moveTo, at: point{start.X, start.Y}})
	for i := range 40 {
		at := point{start.X + float64(10*(i%2)), start.Y + 40}
		if err := m.post(event{kind: moveTo, at: at}); err != nil {
			t.Fatal(err)
		}
		if err := w.Check(t.Context()); err != nil {
			if errors.Is(err, hand.ErrPersonsHand) {
				t.Fatalf("after %d of Reins' own moves the watch says: %v (was a hand on the mouse?)", i+1, err)
			}
			t.Fatal(err)
		}
	}
}
