//go:build !linux && !darwin

package executor

import "fmt"

// guardBackend fails: Reins sends input on macOS and on Linux with X11 only.
func guardBackend(string) (backend, func() error, error) {
	return nil, nil, fmt.Errorf("%w: there is no input to let go of on this system", ErrUnsupported)
}
