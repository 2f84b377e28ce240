//go:build reinstest

package core

import "github.com/reins-app/reins/executor"

// TestOnlyOffsetClicks is, for StartOptions.TestOnlyExecutor, an executor
// whose clicks land dx DIP to the right of where they are aimed: broken on
// purpose, for the self-test to catch. Only the reinstest build has it.
func TestOnlyOffsetClicks(dx float64) func(executor.Executor) executor.Executor {
	return func(ex executor.Executor) executor.Executor { return executor.TestOnlyOffsetClicks(ex, dx, 0) }
}
