package executor

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

// stepGuard is a guard that writes what it is told into the fake desk's
// steps, so that a test sees it in order with the events, and keeps the
// set it would let go of.
type stepGuard struct {
	f       *Fake
	pressed []press
	refuse  string // a line pressing refuses
	closed  bool
}

func (g *stepGuard) ready() error { return nil }

func (g *stepGuard) pressing(h press) error {
	if h.line(true) == g.refuse {
		return errors.New("the guard is gone")
	}
	g.pressed = append(g.pressed, h)
	return g.f.step("guard: " + h.line(true))
}

func (g *stepGuard) letGo(h press) {
	g.pressed = remove(g.pressed, h)
	g.f.step("guard: " + h.line(false))
}

func (g *stepGuard) Close() error { g.closed = true; return nil }

func TestTheGuardHearsOfEachPressBeforeItAndEachReleaseAfterIt(t *testing.T) {
	f := fakeWithPointer(7, 9)
	g := &stepGuard{f: f}
	f.seq.guard = g
	if err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "aé"}, 10, 20); err != nil {
		t.Fatal(err)
	}
	checkSteps(t, f, `
		guard: lend 768
		lend spare0 to 'é'
		wait 50ms
		front?
		app at 10,20?
		move 10,20
		wait 20ms
		guard: down button 0
		down left 1
		wait 15ms
		up left 1
		guard: up button 0
		wait 30ms
		front?
		guard: down key 97
		key down a
		wait 10ms
		key up a
		guard: up key 97
		front?
		guard: down key 768
		key down spare0
		wait 10ms
		key up spare0
		guard: up key 768
		move 7,9
		wait 50ms
		give back spare0
		guard: back 768`)
	if len(g.pressed) != 0 {
		t.Errorf("the guard still counts %v as held", g.pressed)
	}
	f.Close()
	if !g.closed {
		t.Error("closing the executor left its guard open")
	}
}

func TestAnActStopsBeforeAPressTheGuardCannotHearOf(t *testing.T) {
	f := &Fake{}
	g := &stepGuard{f: f, refuse: "down key 98"}
	f.seq.guard = g
	err := fire(context.Background(), f, vocab.Act{Kind: vocab.Type, Text: "abc"}, 0, 0)
	if err == nil || !strings.Contains(err.Error(), "the guard is gone") {
		t.Fatalf("Fire = %v, want the guard's refusal", err)
	}
	checkSteps(t, f, `
		front?
		front?
		guard: down key 97
		key down a
		wait 10ms
		key up a
		guard: up key 97
		front?`)
	if len(g.pressed) != 0 {
		t.Errorf("the guard still counts %v as held", g.pressed)
	}
}

func TestTheGuardsLinesReadBack(t *testing.T) {
	for _, h := range []press{{pressKey, 38}, {pressButton, uint16(rightButton)}, {pressLent, 255}} {
		for _, on := range []bool{true, false} {
			got, gotOn, err := parsePress(h.line(on))
			if err != nil || got != h || gotOn != on {
				t.Errorf("%q read back as %v %v %v", h.line(on), got, gotOn, err)
			}
		}
	}
	for _, bad := range []string{"", "down", "down key", "down key x", "down key 70000", "down button 9", "lend", "press key 3"} {
		if _, _, err := parsePress(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

func TestTheHelperLetsGoOfTheLastHeldFirstAndGivesBackLast(t *testing.T) {
	f := fakeWithPointer(5, 6)
	held := []press{{pressLent, fakeSpareCode}, {pressButton, uint16(leftButton)}, {pressKey, fakeModCode + uint16(modShift)}, {pressKey, 'g'}}
	done, err := letGoOf(f, held)
	if err != nil {
		t.Fatal(err)
	}
	checkSteps(t, f, `
		key up g
		key up Shift
		up left 1
		give back spare0`)
	want := []string{"key 103", "key 513", "button 0", "lent key code 768"}
	if !slices.Equal(done, want) {
		t.Errorf("let go of %q, want %q", done, want)
	}
}
