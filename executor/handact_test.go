package executor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/vocab"
)

// The person reaching for the keyboard mid-typing stops the act before its
// next key, with every key it held let go of; the error says the person
// did, and how far the act got.
func TestThePersonsHandStopsAnActAtItsNextEvent(t *testing.T) {
	for _, c := range []struct {
		name  string
		act   vocab.Act
		after string // the step after which the person reaches in
		kind  hand.Kind
		mouse bool
	}{
		{"typing, a key of theirs", vocab.Act{Kind: vocab.Type, Text: "hello world"}, "key down e", hand.Key, false},
		{"a drag, their mouse", vocab.Act{Kind: vocab.Drag}, "down left 1", hand.Motion, true},
		{"a scroll, their wheel", vocab.Act{Kind: vocab.Scroll, DY: 5}, "wheel 0,1", hand.Wheel, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fakeWithPointer(7, 9)
			tripped, after := false, 0
			f.testOnlyStep = func(line string) error {
				if tripped {
					after++
				}
				if !tripped && strings.HasPrefix(line, c.after) {
					f.ReachIn(c.kind)
					tripped = true
				}
				return nil
			}
			err := fire(context.Background(), f, c.act, 150, 200)
			var stopped *HandStopped
			if !errors.Is(err, hand.ErrPersonsHand) || !errors.As(err, &stopped) {
				t.Fatalf("the act ended with %v, want the person's hand", err)
			}
			if !tripped {
				t.Fatal("the act never reached the step where the person reaches in")
			}
			steps := f.steps()
			// After their input: only letting go of what was held, and no
			// press, key down or wheel.
			for _, l := range steps[len(steps)-after:] {
				if strings.HasPrefix(l, "key down") || strings.HasPrefix(l, "down ") || strings.HasPrefix(l, "wheel") {
					t.Errorf("%q was sent after the person reached in", l)
				}
			}
			if held := stillHeld(steps); len(held) != 0 {
				t.Errorf("still held after the act: %v\n%s", held, strings.Join(steps, "\n"))
			}
		})
	}
}

// stillHeld is what the steps left down: keys and buttons pressed and never
// released.
func stillHeld(steps []string) []string {
	down := map[string]bool{}
	for _, l := range steps {
		switch {
		case strings.HasPrefix(l, "key down "):
			down["key "+strings.Fields(l)[2]] = true
		case strings.HasPrefix(l, "key up "):
			delete(down, "key "+strings.Fields(l)[2])
		case strings.HasPrefix(l, "down "):
			down["button "+strings.Fields(l)[1]] = true
		case strings.HasPrefix(l, "up "):
			delete(down, "button "+strings.Fields(l)[1])
		}
	}
	var out []string
	for k := range down {
		out = append(out, k)
	}
	return out
}

// A desktop that cannot tell the person's input from Reins' own fires
// nothing, and says so before anyone would be asked.
func TestNoActFiresUnwatched(t *testing.T) {
	f := fakeWithPointer(7, 9)
	f.SetHandWatch(hand.ErrNoWatch)
	if err := HandUnwatched(f); !errors.Is(err, hand.ErrNoWatch) {
		t.Errorf("HandUnwatched = %v", err)
	}
	err := fire(context.Background(), f, vocab.Act{Kind: vocab.Click}, 150, 200)
	if !errors.Is(err, hand.ErrNoWatch) {
		t.Fatalf("an unwatched click: %v", err)
	}
	for _, l := range f.steps() {
		if strings.HasPrefix(l, "down ") || strings.HasPrefix(l, "move ") {
			t.Errorf("%q was sent", l)
		}
	}
}
