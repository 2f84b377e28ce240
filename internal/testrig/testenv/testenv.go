// Package testenv decides what a test does when a real part it needs is
// missing: on a laptop it skips with the reason; under CI it fails, so that an
// end-to-end test can never pass by not running.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// CI reports whether the tests run under continuous integration.
func CI() bool { return os.Getenv("CI") != "" }

// Need stops the test when ok is false: a failure under CI, a skip elsewhere.
func Need(t testing.TB, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if CI() {
		t.Fatalf("%s is required when CI is set (make test installs it)", what)
	}
	t.Skipf("%s is missing; skipping (make test installs it)", what)
}

// NeedCommand stops the test unless the named program is on PATH (or is an
// absolute path that exists), and returns its path.
func NeedCommand(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Need(t, err == nil, name)
	return p
}
