package core

import (
	"testing"

	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor"
)

// The test window's content is found within the window as the executor
// lists it: the whole box on X, below the title bar on macOS, at the
// scale the two widths say.
func TestTheTestWindowsContentIsPlacedWhereTheExecutorListsIt(t *testing.T) {
	for _, c := range []struct {
		name        string
		win         executor.Window
		w, h        float64
		ox, oy, k   float64
		wantRefusal bool
	}{
		{name: "X: the client window is the content", win: executor.Window{X: 1, Y: 723, W: 440, H: 300}, w: 440, h: 300, ox: 1, oy: 723, k: 1},
		{name: "macOS: a 28-point title bar above", win: executor.Window{X: 100, Y: 50, W: 440, H: 328}, w: 440, h: 300, ox: 100, oy: 78, k: 1},
		{name: "a toolkit counting device pixels at 2", win: executor.Window{X: 10, Y: 20, W: 440, H: 300}, w: 880, h: 600, ox: 10, oy: 20, k: 0.5},
		{name: "a window a pixel off a whole scale", win: executor.Window{X: 0, Y: 0, W: 441, H: 301}, w: 440, h: 300, ox: 0.5, oy: 1, k: 1},
		{name: "a window listed shorter than its content", win: executor.Window{X: 0, Y: 0, W: 440, H: 200}, w: 440, h: 300, wantRefusal: true},
		{name: "nothing listed", win: executor.Window{}, w: 440, h: 300, wantRefusal: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := place(c.win, c.w, c.h)
			if c.wantRefusal {
				if err == nil {
					t.Fatalf("placed at %+v", p)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.ox != c.ox || p.oy != c.oy || p.k != c.k {
				t.Fatalf("content at %g,%g, %g DIP a unit; want %g,%g, %g", p.ox, p.oy, p.k, c.ox, c.oy, c.k)
			}
			// The middle of an area 20,40 120x48 in the content.
			x, y := p.centre(TestWindowBox{X: 20, Y: 40, W: 120, H: 48})
			if wx, wy := c.ox+80*c.k, c.oy+64*c.k; x != wx || y != wy {
				t.Errorf("an area's middle at %g,%g; want %g,%g", x, y, wx, wy)
			}
		})
	}
}

// The deny list for the test's acts sets aside only the rules that name
// the test window's program, keeps Reins' own windows by process, and adds
// the application that was in front.
func TestTheSelfTestsDenyListKeepsReinsOwnWindowsByProcess(t *testing.T) {
	window := executor.App{Name: "Reins self-test", Exe: "/usr/bin/reins", PID: 900}
	full := denylist.List{
		executor.OwnRule([]int{100, 1}),
		{Label: "Reins", Names: []string{"reins"}, Exes: []string{"reins"}},
		{Label: "KeePassXC", Exes: []string{"keepassxc"}},
	}
	got := selfTestDenyList(full, window, executor.App{Name: "xterm", PID: 55})
	if _, ok := got.Match(window); ok {
		t.Fatalf("the test window is refused: %+v", got)
	}
	for _, a := range []executor.App{{Name: "Reins", PID: 100}, {Exe: "/usr/bin/keepassxc", PID: 7}, {Name: "xterm", PID: 55}} {
		if _, ok := got.Match(a); !ok {
			t.Errorf("%+v is no longer refused: %+v", a, got)
		}
	}
	if _, ok := selfTestDenyList(full, window, window).Match(window); ok {
		t.Error("the test window in front was put on the list")
	}
}
