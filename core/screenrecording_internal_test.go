package core

import (
	"errors"
	"strings"
	"testing"
)

// Doctor's Screen Recording line: optional, since only desktop pictures
// need it, and when missing it says what is refused and how to allow it.
func TestScreenRecordingCheckSaysWhatIsRefusedWithoutIt(t *testing.T) {
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
		got := screenRecordingCheck(c.allowed, c.err)
		if got.OK != c.ok || !got.Optional || !strings.Contains(got.Fix, c.fix) || !strings.Contains(got.What, "Screen & System Audio Recording") {
			t.Errorf("allowed %v, err %v: %+v; want ok %v, optional, a fix saying %q", c.allowed, c.err, got, c.ok, c.fix)
		}
		if !c.ok && !strings.Contains(got.Fix, "desktop_screenshot") {
			t.Errorf("allowed %v, err %v: %q does not say what is refused", c.allowed, c.err, got.Fix)
		}
	}
}
