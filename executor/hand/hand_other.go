//go:build !linux && !darwin

package hand

import (
	"context"
	"fmt"
	"runtime"
)

// NewListener is built on Linux (X11) and macOS only: elsewhere it says
// so, and an act that must be watched cannot fire.
func NewListener(ctx context.Context, opts Options) (*Listener, error) {
	return nil, fmt.Errorf("%w: the watch is not built for %s yet", ErrNoWatch, runtime.GOOS)
}
