package executor

import (
	"testing"

	"github.com/reins-app/reins/internal/a11ytest"
	"github.com/reins-app/reins/internal/testenv"
)

// x11AccessibleRig is the X11 executor over a real accessibility bus and
// the GTK fixture on it (button "Press me", a password field holding
// a11ytest.Secret).
type x11AccessibleRig struct {
	d  *a11ytest.Desktop
	ex Executor
}

func (r *x11AccessibleRig) Executor() Executor { return r.ex }

func (r *x11AccessibleRig) Show(t *testing.T) accessibleApp {
	t.Helper()
	testenv.WaitFor(t, "the fixture's window on the accessibility bus", func() bool {
		tree, err := r.ex.Accessible(t.Context(), r.d.PID)
		return err == nil && tree.Find("push button", "Press me") != nil
	})
	return accessibleApp{PID: r.d.PID, Button: "Press me", Secret: a11ytest.Secret}
}

func TestX11AccessibleContract(t *testing.T) {
	d := a11ytest.Start(t, a11ytest.Options{})
	ex, err := New(Options{Display: d.X.Display, SessionBus: d.Session})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	runAccessibleContract(t, func(t *testing.T) accessibleRig { return &x11AccessibleRig{d: d, ex: ex} })
}
