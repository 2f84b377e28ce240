//go:build !linux && !darwin

package executor

import (
	"context"
	"fmt"
)

// Elsewhere no global chord is written; the menu's Pause item is the way.
func watchHotkey(ctx context.Context, c chord, opts HotkeyOptions) error {
	return fmt.Errorf("%w: a global pause chord is not available on this system yet; use Pause in the Reins menu", ErrUnsupported)
}
