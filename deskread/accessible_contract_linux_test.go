package deskread

import (
	"fmt"
	"math"
	"testing"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/a11ytest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

// x11AccessibleRig is the X11 reader over a real accessibility bus and
// the GTK fixture on it (button "Press me", a password field holding
// a11ytest.Secret).
type x11AccessibleRig struct {
	d  *a11ytest.Desktop
	rd Reader
}

func (r *x11AccessibleRig) Reader() Reader { return r.rd }

func (r *x11AccessibleRig) Show(t *testing.T) accessibleApp {
	t.Helper()
	testenv.WaitFor(t, "the fixture's window on the accessibility bus", func() bool {
		tree, err := r.rd.Accessible(t.Context(), r.d.PID)
		return err == nil && tree.Find("push button", "Press me") != nil
	})
	return accessibleApp{PID: r.d.PID, Button: "Press me", Secret: a11ytest.Secret}
}

// newX11Reader reads d's display and accessibility bus at scale s (nil:
// 1), its windows as the X11 executor lists them.
func newX11Reader(t *testing.T, d *a11ytest.Desktop, s func() float64) Reader {
	t.Helper()
	ex, err := executor.New(executor.Options{Display: d.X.Display, Scale: s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	rd, err := New(Options{Display: d.X.Display, SessionBus: d.Session, Scale: s, Windows: ex.Windows})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd
}

func TestX11AccessibleContract(t *testing.T) {
	d := a11ytest.Start(t, a11ytest.Options{})
	rd := newX11Reader(t, d, nil)
	runAccessibleContract(t, func(t *testing.T) accessibleRig { return &x11AccessibleRig{d: d, rd: rd} })
}

// A GTK 3 application under GDK_SCALE=2 reports its elements in logical
// pixels, half the device pixels X shows it in. Its boxes come out in the
// executor's DIP all the same, whatever the executor's own scale, and a
// click at a box's centre, and the question of what is there, land on the
// element: the fixture itself reports the click.
func TestX11AccessibleFollowsTheApplicationsOwnScale(t *testing.T) {
	d := a11ytest.Start(t, a11ytest.Options{Screen: "2560x1600x24", Env: []string{"GDK_SCALE=2"}})
	for _, scale := range []float64{1, 2} {
		t.Run(fmt.Sprintf("executor at scale %g", scale), func(t *testing.T) {
			s := func() float64 { return scale }
			ex, err := executor.New(executor.Options{Display: d.X.Display, Scale: s})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ex.Close() })
			rd := newX11Reader(t, d, s)
			r := &x11AccessibleRig{d: d, rd: rd}
			r.Show(t)
			tree, err := rd.Accessible(t.Context(), d.PID)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := ex.Windows(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var win *executor.Window
			for i := range ws {
				if ws[i].App.PID == d.PID {
					win = &ws[i]
				}
			}
			if win == nil {
				t.Fatalf("no window of the fixture in %+v", ws)
			}
			if root := tree.Root.Box; math.Abs(float64(root.W)-win.W) > 2 || math.Abs(float64(root.H)-win.H) > 2 {
				t.Fatalf("the window's element is %+v, its window %gx%g: not in the same units", root, win.W, win.H)
			}
			b := tree.Find("push button", "Press me")
			x, y := float64(b.Box.X)+float64(b.Box.W)/2, float64(b.Box.Y)+float64(b.Box.H)/2
			at, err := rd.AccessibleAt(t.Context(), d.PID, tree.Root.ID, x, y)
			if err != nil || at != b.ID {
				t.Errorf("AccessibleAt(%g, %g) = %q, %v; want the button %q", x, y, at, err, b.ID)
			}
			if err := ex.Fire(t.Context(), audit.TestOnlyDesktopTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: x, Y: y, Scale: scale})); err != nil {
				t.Fatal(err)
			}
			d.Next(t, "clicked Press me")
		})
	}
}
