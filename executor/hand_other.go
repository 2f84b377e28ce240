//go:build !linux && !darwin

package executor

import (
	"context"
	"fmt"
	"runtime"
)

// NewHandListener is built on Linux (X11) and macOS only: elsewhere it says
// so, and an act that must be watched cannot fire.
func NewHandListener(ctx context.Context, opts HandOptions) (*HandListener, error) {
	return nil, fmt.Errorf("%w: the watch is not built for %s yet", ErrNoHandWatch, runtime.GOOS)
}
