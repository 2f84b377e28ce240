package deskread

import (
	"fmt"
	"os"

	"github.com/reins-app/reins/executor"
)

// New returns the reader of this desktop: X11, as the executor refuses a
// Wayland session. An explicit Options.Display skips the check.
func New(opts Options) (Reader, error) {
	if opts.Display == "" {
		if os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("XDG_SESSION_TYPE") == "wayland" {
			return nil, fmt.Errorf("%w: this is a Wayland session, and Reins needs X11", executor.ErrUnsupported)
		}
	}
	return NewX11(opts)
}
