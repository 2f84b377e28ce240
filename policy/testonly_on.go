//go:build reinstest

package policy

import "os"

// testOnlyPolicyFile is, in a reinstest build, the policy file the end-to-end
// tests write (still honoured only when owned by root and written by no one
// else); release builds have none (testonly_off.go).
func testOnlyPolicyFile() string { return os.Getenv("REINS_TEST_POLICY_FILE") }
