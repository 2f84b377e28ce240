package core

import (
	"context"
	"testing"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

func TestPauseEndsTheActsFiring(t *testing.T) {
	e := &Engine{}
	ctx, stop := e.untilStopped(context.Background(), "1", "agent")
	defer stop()
	other, stopOther := e.untilStopped(context.Background(), "1", "agent")
	stopOther() // an act that has finished
	select {
	case <-ctx.Done():
		t.Fatal("an act was stopped with nobody pausing")
	case <-time.After(20 * time.Millisecond):
	}
	e.Pause(true)
	if ctx.Err() == nil || context.Cause(ctx) != errStoppedByPause {
		t.Fatalf("pausing returned before the act firing was stopped, or gave another cause: %v", context.Cause(ctx))
	}
	if other.Err() == nil {
		t.Fatal("a finished act's context is still live")
	}
	// While paused, an act that starts firing stops at once.
	late, stopLate := e.untilStopped(context.Background(), "1", "agent")
	defer stopLate()
	if late.Err() == nil {
		t.Fatal("an act started firing while paused")
	}
	// After resuming, acts fire until the next pause.
	e.Pause(false)
	next, stopNext := e.untilStopped(context.Background(), "1", "agent")
	defer stopNext()
	if next.Err() != nil {
		t.Fatal("an act after resuming was stopped")
	}
	e.Pause(true)
	if next.Err() == nil {
		t.Fatal("the second pause did not stop the act firing")
	}
}

// A share that no longer gives an act's agent the tab at Control stops the
// act under way, and only that agent's acts on that tab.
func TestAShareChangeEndsTheActsOfAgentsThatLostTheTab(t *testing.T) {
	e := &Engine{shares: approvals.NewShares(nil)}
	const shop = "https://shop.example"
	if err := e.shares.Set("1", shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	alice, stopAlice := e.untilStopped(context.Background(), "1", "alice")
	defer stopAlice()
	bob, stopBob := e.untilStopped(context.Background(), "1", "bob")
	defer stopBob()
	elsewhere, stopElsewhere := e.untilStopped(context.Background(), "2", "alice")
	defer stopElsewhere()
	if err := e.shares.SetFor("1", shop, "", "bob", vocab.Control); err != nil {
		t.Fatal(err)
	}
	e.stopFiringOn("1")
	if context.Cause(alice) != errStoppedByShare {
		t.Fatalf("Alice's act on the tab she lost: %v", context.Cause(alice))
	}
	if bob.Err() != nil || elsewhere.Err() != nil {
		t.Fatalf("acts that keep their tab were stopped: Bob %v, Alice's on tab 2 %v", bob.Err(), elsewhere.Err())
	}
	if err := e.shares.SetFor("1", shop, "", "bob", vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	e.stopFiringOn("1")
	if context.Cause(bob) != errStoppedByShare {
		t.Fatalf("Bob's act on a tab now read-only: %v", context.Cause(bob))
	}
}
