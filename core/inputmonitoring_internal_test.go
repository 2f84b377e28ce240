package core

import (
	"errors"
	"strings"
	"testing"
)

// Doctor's Input Monitoring line names the pane, and when the permission is
// missing says what Reins cannot do without it and how to allow it.
func TestInputMonitoringCheckSaysWhatTheWatchNeeds(t *testing.T) {
	for _, c := range []struct {
		allowed bool
		err     error
		ok      bool
		fix     string
	}{
		{allowed: true, ok: true},
		{fix: "turn Reins on in that list, then quit and reopen Reins"},
		{err: errors.New("no CoreGraphics"), fix: "cannot tell: no CoreGraphics"},
	} {
		got := inputMonitoringCheck(c.allowed, c.err)
		if got.OK != c.ok || !strings.Contains(got.Fix, c.fix) || !strings.Contains(got.What, "Privacy & Security › Input Monitoring") {
			t.Errorf("allowed %v, err %v: %+v; want ok %v and a fix saying %q", c.allowed, c.err, got, c.ok, c.fix)
		}
		if !c.ok && !strings.Contains(got.Fix, "your own keyboard and mouse") {
			t.Errorf("allowed %v, err %v: %q does not say what is lost", c.allowed, c.err, got.Fix)
		}
	}
}
