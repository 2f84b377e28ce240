package executor

import (
	"context"
	"errors"
	"testing"
)

// BenchmarkX11AddedChecksPerKey is what every key of a tab's act now costs
// before it goes down, beyond the key itself: the person's hand checked
// (one round trip on the watch's connection) and the keyboard focus read
// to be in the tab's window. The budget is 0.5 ms a key.
func BenchmarkX11AddedChecksPerKey(b *testing.B) {
	x, tab := benchTab(b, false)
	ctx := context.Background()
	w, err := x.watchHand(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		if err := w.Check(ctx); err != nil {
			b.Fatal(err)
		}
		in, _, err := x.focusIn(ctx, uint64(tab))
		if err == nil && !in {
			err = errors.New("the focus is not in the tab's window")
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkX11AddedChecksPerClick is what a tab's click now costs beyond
// its events: a watch on the person's hand started and stopped, and before
// its press and its release the hand checked and the window under the
// point read to be the tab's. The budget is 2 ms a pointer act.
func BenchmarkX11AddedChecksPerClick(b *testing.B) {
	x, tab := benchTab(b, false)
	ctx := context.Background()
	at := point{500, 400}
	// The listener stays open for the executor's life; each act watches.
	if w, err := x.watchHand(ctx); err != nil {
		b.Fatal(err)
	} else {
		w.Close()
	}
	for b.Loop() {
		w, err := x.watchHand(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if err := w.Check(ctx); err != nil {
				b.Fatal(err)
			}
			is, _, err := x.topIs(ctx, at, uint64(tab))
			if err == nil && !is {
				err = errors.New("the tab's window is not under the point")
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
	}
}
