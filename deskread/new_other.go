//go:build !linux && !darwin

package deskread

import (
	"fmt"
	"runtime"

	"github.com/reins-app/reins/executor"
)

// New fails: Reins reads the desktop on macOS and on Linux with X11 only.
func New(opts Options) (Reader, error) {
	return nil, fmt.Errorf("%w: Reins cannot read the desktop on %s", executor.ErrUnsupported, runtime.GOOS)
}
