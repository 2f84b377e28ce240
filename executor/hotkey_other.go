//go:build !linux

package executor

import (
	"context"
	"fmt"
)

// A global chord on macOS needs an event tap or Carbon's hot keys on the main
// run loop; until that is written the menu's Pause item is the way.
func watchHotkey(ctx context.Context, c chord, opts HotkeyOptions) error {
	return fmt.Errorf("%w: a global pause chord is not available on this system yet; use Pause in the Reins menu", ErrUnsupported)
}
