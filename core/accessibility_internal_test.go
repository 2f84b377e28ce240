package core

import (
	"errors"
	"strings"
	"testing"
)

// Doctor's Accessibility line: given to Reins.app is fine; not given says
// how to give it; given to a terminal running a bare reins is not fine,
// since an agent in that terminal could post input too.
func TestAccessibilityCheckSaysWhoHoldsThePermission(t *testing.T) {
	for _, c := range []struct {
		trusted, bare bool
		err           error
		ok            bool
		fix           string
	}{
		{trusted: true, ok: true},
		{fix: "press Allow in Getting started"},
		{bare: true, fix: "charge the permission to the terminal"},
		{trusted: true, bare: true, fix: "not to Reins.app"},
		{err: errors.New("no AppKit"), fix: "cannot tell: no AppKit"},
	} {
		got := accessibilityCheck(c.trusted, c.bare, c.err)
		if got.OK != c.ok || !strings.Contains(got.Fix, c.fix) {
			t.Errorf("trusted %v, bare %v, err %v: %+v; want ok %v and a fix saying %q", c.trusted, c.bare, c.err, got, c.ok, c.fix)
		}
	}
}
