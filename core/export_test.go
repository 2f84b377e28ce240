package core

import "testing"

// SetTestOnlyExecutable makes SetStartAtLogin register exe as Reins's
// program until the test ends, in place of the test binary.
func SetTestOnlyExecutable(t testing.TB, exe string) {
	old := testOnlyExecutable
	testOnlyExecutable = exe
	t.Cleanup(func() { testOnlyExecutable = old })
}
