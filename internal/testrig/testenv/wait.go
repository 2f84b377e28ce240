package testenv

import (
	"testing"
	"time"
)

// Patience bounds WaitFor. It is long enough for a loaded CI machine under
// the race detector; a passing test waits only as long as its condition
// takes to hold.
const Patience = 30 * time.Second

// WaitFor polls ok until it reports true. If it has not within Patience,
// the test fails, saying it timed out waiting for what.
func WaitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	WaitWithin(t, Patience, what, ok)
}

// WaitWithin is WaitFor with a deadline of its own, d.
func WaitWithin(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	if !Eventually(d, ok) {
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// Eventually reports whether ok holds within d. It asks at once, then
// again after a millisecond, backing off to every 100 ms, so that a
// condition that is quick to come is seen quickly and one that is costly
// to ask (a round trip to an X server) is not asked in a tight loop.
func Eventually(d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; !ok(); pause = min(2*pause, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
	return true
}
