//go:build !reinstest

package policy

// testOnlyPolicyFile: a release build reads the policy from its one place.
func testOnlyPolicyFile() string { return "" }
