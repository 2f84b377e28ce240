//go:build !linux && !darwin

package hotkey

import (
	"context"
	"fmt"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/keychord"
)

// Elsewhere no global chord is written; the menu's Pause item is the way.
func watch(ctx context.Context, c keychord.Chord, opts Options) error {
	return fmt.Errorf("%w: a global pause chord is not available on this system yet; use Pause in the Reins menu", executor.ErrUnsupported)
}
