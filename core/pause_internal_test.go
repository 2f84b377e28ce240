package core

import (
	"context"
	"testing"
	"time"
)

func TestPauseEndsTheActsFiring(t *testing.T) {
	e := &Engine{}
	ctx, stop := e.untilPaused(context.Background())
	defer stop()
	other, stopOther := e.untilPaused(context.Background())
	stopOther() // an act that has finished
	select {
	case <-ctx.Done():
		t.Fatal("an act was stopped with nobody pausing")
	case <-time.After(20 * time.Millisecond):
	}
	e.Pause(true)
	if ctx.Err() == nil {
		t.Fatal("pausing returned before the act firing was stopped")
	}
	if other.Err() == nil {
		t.Fatal("a finished act's context is still live")
	}
	// While paused, an act that starts firing stops at once.
	late, stopLate := e.untilPaused(context.Background())
	defer stopLate()
	if late.Err() == nil {
		t.Fatal("an act started firing while paused")
	}
	// After resuming, acts fire until the next pause.
	e.Pause(false)
	next, stopNext := e.untilPaused(context.Background())
	defer stopNext()
	if next.Err() != nil {
		t.Fatal("an act after resuming was stopped")
	}
	e.Pause(true)
	if next.Err() == nil {
		t.Fatal("the second pause did not stop the act firing")
	}
}
