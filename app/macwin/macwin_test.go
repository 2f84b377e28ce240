package macwin

import (
	"slices"
	"testing"
)

func TestTopRight(t *testing.T) {
	for _, tc := range []struct {
		name    string
		visible rect
		width   float64
		want    point
	}{
		{
			// A 1440×900 primary screen: 25 points of menu bar on top, the Dock
			// 70 points tall at the bottom.
			name:    "under the menu bar at the right",
			visible: rect{X: 0, Y: 70, W: 1440, H: 805},
			width:   420,
			want:    point{X: 1440 - 420 - margin, Y: 70 + 805 - margin},
		},
		{
			// A screen left of the primary one, and the Dock on its right edge.
			name:    "a screen at negative x",
			visible: rect{X: -1920, Y: 0, W: 1850, H: 1055},
			width:   420,
			want:    point{X: -1920 + 1850 - 420 - margin, Y: 1055 - margin},
		},
		{
			name:    "wider than the screen",
			visible: rect{X: 100, Y: 0, W: 300, H: 500},
			width:   420,
			want:    point{X: 100, Y: 500 - margin},
		},
	} {
		if got := topRight(tc.visible, tc.width); got != tc.want {
			t.Errorf("%s: topRight = %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

func TestScreenAt(t *testing.T) {
	// The primary screen at the origin, one to its left, one above it.
	frames := []rect{
		{X: 0, Y: 0, W: 1440, H: 900},
		{X: -1920, Y: -180, W: 1920, H: 1080},
		{X: 0, Y: 900, W: 2560, H: 1440},
	}
	for _, tc := range []struct {
		p    point
		want int
	}{
		{point{X: 700, Y: 400}, 0},
		{point{X: -5, Y: 400}, 1},
		{point{X: 0, Y: 400}, 0}, // on the line between 1 and 0: the right one's left edge
		{point{X: 2000, Y: 1200}, 2},
		{point{X: 700, Y: 900}, 2}, // the top edge of 0 is the bottom edge of 2
		{point{X: 3000, Y: 100}, -1},
	} {
		if got := screenAt(frames, tc.p); got != tc.want {
			t.Errorf("screenAt(%+v) = %d; want %d", tc.p, got, tc.want)
		}
	}
}

// memory is a frontMemory over application names that records what it
// holds, as retain and release would.
func memory() (*frontMemory[string], map[string]int) {
	held := map[string]int{}
	return &frontMemory[string]{
		hold: func(a string) { held[a]++ },
		drop: func(a string) { held[a]-- },
	}, held
}

// alive is what is held, sorted.
func alive(held map[string]int) []string {
	var out []string
	for a, n := range held {
		if n < 0 {
			out = append(out, a+" over-released")
		}
		if n > 0 {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

func TestFrontMemoryGivesBackTheAppInFront(t *testing.T) {
	m, held := memory()
	m.remember("Mail", false)
	app, ok := m.take()
	if !ok || app != "Mail" {
		t.Fatalf("take = %q, %v; want Mail", app, ok)
	}
	m.drop(app)
	if got := alive(held); len(got) != 0 {
		t.Errorf("still held: %v", got)
	}
	if app, ok := m.take(); ok {
		t.Errorf("a second take gave %q; want nothing", app)
	}
}

func TestFrontMemoryFollowsThePersonWhileAQuestionWaits(t *testing.T) {
	m, held := memory()
	m.activated("Notes", false) // no question up: not followed
	m.remember("Mail", false)
	m.activated("Safari", false) // the person moved on while the popup waited
	m.activated("Reins", true)   // then answered it
	if got, want := alive(held), []string{"Safari"}; !slices.Equal(got, want) {
		t.Errorf("held %v; want %v", got, want)
	}
	app, ok := m.take()
	if !ok || app != "Safari" {
		t.Fatalf("take = %q, %v; want Safari", app, ok)
	}
	m.drop(app)
	m.activated("Terminal", false) // answered: no longer followed
	if _, ok := m.take(); ok {
		t.Error("an activation after the answer was remembered")
	}
	if got := alive(held); len(got) != 0 {
		t.Errorf("still held: %v", got)
	}
}

func TestFrontMemoryNeverRemembersReins(t *testing.T) {
	m, held := memory()
	m.remember("Reins", true) // a window of Reins' was in use
	if app, ok := m.take(); ok {
		t.Errorf("take = %q; want nothing", app)
	}
	// A second question while the first waits keeps the app from the first.
	m.remember("Mail", false)
	m.remember("Reins", true)
	m.remember("Mail", false) // the same app again is held once
	if app, ok := m.take(); !ok || app != "Mail" {
		t.Errorf("take = %q, %v; want Mail", app, ok)
	} else {
		m.drop(app)
	}
	if got := alive(held); len(got) != 0 {
		t.Errorf("still held: %v", got)
	}
}
