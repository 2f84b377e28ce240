//go:build reinstest && unix

package policy

import (
	"os"
	"testing"
)

// In the test build, the file REINS_TEST_POLICY_FILE names is read, with
// the same checks as the real one: root's alone.
func TestTestBuildReadsItsFileWithTheSameChecks(t *testing.T) {
	path := policyAt(t, `{"desktop": "none"}`, 0o755, 0o644, -1, -1)
	t.Setenv("REINS_TEST_POLICY_FILE", path)
	st := System().Read()
	if os.Geteuid() != 0 {
		if st.Err == nil {
			t.Fatalf("a file not root's was honoured: %+v", st)
		}
		return
	}
	if st.Err != nil || st.Policy == nil || st.Source != path {
		t.Fatalf("System().Read() = %+v", st)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if st := System().Read(); st.Err == nil {
		t.Fatalf("a file others may write was honoured: %+v", st)
	}
}
