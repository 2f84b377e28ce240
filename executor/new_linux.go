package executor

import (
	"fmt"
	"os"
)

// New returns the executor for this desktop: X11. A Wayland session is
// refused even when it offers Xwayland, because there Reins could neither
// see native Wayland windows (a password manager among them) nor be sure
// where its input goes. An explicit Options.Display skips the check: the
// caller has chosen an X server.
func New(opts Options) (Executor, error) {
	if opts.Display == "" {
		if os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("XDG_SESSION_TYPE") == "wayland" {
			return nil, fmt.Errorf("%w: this is a Wayland session, and Reins needs X11: log out and choose an X11 (Xorg) session at the login screen", ErrUnsupported)
		}
		if os.Getenv("DISPLAY") == "" {
			return nil, fmt.Errorf("%w: DISPLAY is not set; start Reins inside an X11 desktop session (without one, `reins serve` reads and shares tabs but cannot click or type)", ErrNoDisplay)
		}
	}
	return NewX11(X11Options{Display: opts.Display, DenyList: opts.DenyList, Scale: opts.Scale})
}
