//go:build !linux && !darwin

package executor

import (
	"fmt"
	"runtime"
)

// New fails: Reins sends input on macOS and on Linux with X11 only.
func New(opts Options) (Executor, error) {
	return nil, fmt.Errorf("%w: Reins cannot send input on %s; it runs on macOS and on Linux with X11", ErrUnsupported, runtime.GOOS)
}
