// Package handtest checks the watch on the person's hand (executor/hand)
// in tests, the executor's and the watch's own alike, on an X desktop
// where a stand-in plays the person. It does not import package hand,
// whose own tests use it: a watch is what its methods show, an input what
// its fields hold.
package handtest

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/reins-app/reins/executor/xdesk"
)

// Watch is a watch on the person's hand (*hand.Watch), whose first input
// seen is an In.
type Watch[In any] interface {
	Check(context.Context) error
	First() (In, bool)
	Tripped() <-chan struct{}
}

// Input is an input the watch saw (hand.Input): its kind, the device it
// came from, and when.
type Input[Kind comparable] interface {
	~struct {
		Kind   Kind
		Device int
		At     time.Time
	}
}

// StartWatch starts a watch with start (hand.Start) and opts, for the
// test's duration.
func StartWatch[W io.Closer, O any](t testing.TB, start func(context.Context, O) (W, error), opts O) W {
	t.Helper()
	w, err := start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// StandIn is the person's stand-in on display, for the test's duration.
func StandIn(t testing.TB, display string) *xdesk.Person {
	t.Helper()
	p, err := xdesk.NewPerson(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// WantHand checks that w has seen the person's hand (Check fails with
// errHand, hand.ErrPersonsHand), first as kind from device.
func WantHand[In Input[K], K comparable](t *testing.T, w Watch[In], errHand error, kind K, device int) {
	t.Helper()
	err := w.Check(context.Background())
	if !errors.Is(err, errHand) {
		t.Fatalf("Check = %v, want the person's hand (%v)", err, kind)
	}
	first, ok := w.First()
	in := struct {
		Kind   K
		Device int
		At     time.Time
	}(first)
	if !ok || in.Kind != kind || in.Device != device {
		t.Errorf("First = %+v, %v; want a %v from device %d", in, ok, kind, device)
	}
	select {
	case <-w.Tripped():
	default:
		t.Error("Tripped is still open")
	}
}

// WantNoHand checks that w has seen nothing of the person's.
func WantNoHand[In any](t *testing.T, w Watch[In]) {
	t.Helper()
	if err := w.Check(context.Background()); err != nil {
		t.Fatalf("Check = %v, want nothing seen", err)
	}
	if in, ok := w.First(); ok {
		t.Fatalf("First = %+v, want nothing seen", in)
	}
}

// KeycodeOf is a key code that types r on display.
func KeycodeOf(t testing.TB, display string, r rune) byte {
	t.Helper()
	code, err := xdesk.KeyOf(display, r)
	if err != nil {
		t.Fatal(err)
	}
	return code
}
