//go:build !reinstest

package policy

import (
	"runtime"
	"testing"
)

// A release build reads the policy from its one place: the test build's
// variable names nothing to it.
func TestSystemIgnoresTheTestBuildsFile(t *testing.T) {
	path := policyAt(t, `{"desktop": "none"}`, 0o755, 0o644, -1, -1)
	t.Setenv("REINS_TEST_POLICY_FILE", path)
	src := System()
	if f, ok := src.(rootFile); ok && f.path != LinuxPath {
		t.Fatalf("System() reads %s", f.path)
	}
	if runtime.GOOS == "linux" {
		if f, ok := src.(rootFile); !ok || f.path != LinuxPath || f.owner != 0 {
			t.Fatalf("System() = %#v, want %s owned by root", src, LinuxPath)
		}
	}
}
