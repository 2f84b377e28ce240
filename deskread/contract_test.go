package deskread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// accessibleRig is an reader under the Accessible contract and an
// application for it to read.
type accessibleRig interface {
	Reader() Reader
	// Show has the application show its window, readable, and says what
	// is in it.
	Show(t *testing.T) accessibleApp
}

// accessibleApp is what a rig's application shows: a window with an
// enabled push button and a password field.
type accessibleApp struct {
	PID    int
	Button string // the push button's name
	Secret string // what the password field holds
}

// runAccessibleContract runs the tests every reader's Accessible and
// AccessibleAt must pass.
func runAccessibleContract(t *testing.T, newRig func(t *testing.T) accessibleRig) {
	ctx := context.Background()
	read := func(t *testing.T, r accessibleRig, app accessibleApp) (*gdesktop.Tree, *gdesktop.Element) {
		t.Helper()
		tree, err := r.Reader().Accessible(ctx, app.PID)
		if err != nil {
			t.Fatalf("Accessible(%d) = %v", app.PID, err)
		}
		var button *gdesktop.Element
		tree.Walk(func(e *gdesktop.Element, _ int) bool {
			if gdesktop.Shown(e.Role) == "button" && e.Name == app.Button {
				button = e
				return false
			}
			return true
		})
		if button == nil {
			t.Fatalf("no button %q in the read:\n%s", app.Button, contractDump(tree))
		}
		return tree, button
	}

	t.Run("Accessible reads the window and its button, where it shows", func(t *testing.T) {
		r := newRig(t)
		app := r.Show(t)
		tree, button := read(t, r, app)
		n := 0
		tree.Walk(func(*gdesktop.Element, int) bool { n++; return true })
		if tree.PID != app.PID || tree.Root.ID == "" || tree.Count != n {
			t.Errorf("tree pid %d, root ID %q, Count %d of %d elements; want pid %d, an ID, the count", tree.PID, tree.Root.ID, tree.Count, n, app.PID)
		}
		win := tree.Root.Box
		if button.ID == "" || button.Box.Empty() || !win.Contains(button.Box) {
			t.Errorf("button %q: ID %q box %+v, not inside the window's %+v", app.Button, button.ID, button.Box, win)
		}
		if !button.State.Enabled || !button.State.Showing || !button.State.Visible {
			t.Errorf("button %q states %+v; want enabled, showing, visible", app.Button, button.State)
		}
	})

	t.Run("a password field is marked and its text never read", func(t *testing.T) {
		r := newRig(t)
		app := r.Show(t)
		tree, _ := read(t, r, app)
		found := false
		tree.Walk(func(e *gdesktop.Element, _ int) bool {
			if e.Secret || e.Role == "password text" {
				found = true
				if !e.Secret || e.Value != "" {
					t.Errorf("password field %q: secret %v value %q; want secret, no value", e.Name, e.Secret, e.Value)
				}
			}
			return true
		})
		if !found {
			t.Errorf("no password field in the read:\n%s", contractDump(tree))
		}
		if all := fmt.Sprintf("%+v", *tree); strings.Contains(all, app.Secret) {
			t.Errorf("the password's text appears in the read: %s", all)
		}
	})

	t.Run("AccessibleAt names the element at a point as Accessible names it", func(t *testing.T) {
		r := newRig(t)
		app := r.Show(t)
		tree, button := read(t, r, app)
		x, y := float64(button.Box.X)+float64(button.Box.W)/2, float64(button.Box.Y)+float64(button.Box.H)/2
		got, err := r.Reader().AccessibleAt(ctx, app.PID, tree.Root.ID, x, y)
		if err != nil {
			t.Fatalf("AccessibleAt(%g, %g) = %v", x, y, err)
		}
		inside := false
		var holds func(e *gdesktop.Element)
		holds = func(e *gdesktop.Element) {
			for i := range e.Children {
				inside = inside || e.Children[i].ID == got
				holds(&e.Children[i])
			}
		}
		holds(button)
		if got != button.ID && !inside {
			t.Errorf("AccessibleAt the centre of %q (%g, %g) = %q; want its ID %q", app.Button, x, y, got, button.ID)
		}
	})

	t.Run("an element's ID holds from one read to the next", func(t *testing.T) {
		r := newRig(t)
		app := r.Show(t)
		_, first := read(t, r, app)
		_, again := read(t, r, app)
		if first.ID != again.ID {
			t.Errorf("button %q read as %q, then %q", app.Button, first.ID, again.ID)
		}
	})

	t.Run("an application that is not running is said so", func(t *testing.T) {
		r := newRig(t)
		gone := exitedPID(t)
		if _, err := r.Reader().Accessible(ctx, gone); !errors.Is(err, ErrNoAccessibleApp) {
			t.Errorf("Accessible(pid %d, exited) = %v; want ErrNoAccessibleApp", gone, err)
		}
	})
}

// exitedPID is the process id of a process that has exited.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// contractDump renders a tree an element a line, for failure messages.
func contractDump(tree *gdesktop.Tree) string {
	var b strings.Builder
	tree.Walk(func(e *gdesktop.Element, depth int) bool {
		fmt.Fprintf(&b, "%s%s %s %q secret=%v %+v\n", strings.Repeat("  ", depth), e.ID, e.Role, e.Name, e.Secret, e.Box)
		return true
	})
	return b.String()
}

// fakeAccessibleRig stages a Fake's accessibility elements.
type fakeAccessibleRig struct{ fake *Fake }

func (r *fakeAccessibleRig) Reader() Reader { return r.fake }

func (r *fakeAccessibleRig) Show(t *testing.T) accessibleApp {
	const pid = 4242
	on := gdesktop.States{Enabled: true, Showing: true, Visible: true}
	r.fake.SetAccessible(pid, &gdesktop.Tree{App: "fixture", PID: pid, Source: "fake", Count: 4, Root: gdesktop.Element{
		ID: "/w", Role: "frame", Name: "Reins fixture", State: on, Box: gdesktop.Rect{X: 100, Y: 80, W: 400, H: 300},
		Children: []gdesktop.Element{{
			ID: "/w/p", Role: "panel", State: on, Box: gdesktop.Rect{X: 100, Y: 80, W: 400, H: 300},
			Children: []gdesktop.Element{
				{ID: "/w/p/b", Role: "push button", Name: "Press me", State: on, Box: gdesktop.Rect{X: 120, Y: 100, W: 100, H: 30}},
				{ID: "/w/p/pw", Role: "password text", Name: "Password", Secret: true, State: on, Box: gdesktop.Rect{X: 120, Y: 140, W: 200, H: 30}},
			},
		}},
	}})
	return accessibleApp{PID: pid, Button: "Press me", Secret: "Rx7-hunter2-secret"}
}

func TestFakeAccessibleContract(t *testing.T) {
	runAccessibleContract(t, func(t *testing.T) accessibleRig { return &fakeAccessibleRig{fake: NewFake(nil)} })
}
