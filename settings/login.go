package settings

import (
	"errors"
	"fmt"
	"os"

	"github.com/reins-app/reins/internal/autostart"
)

// Login is the desktop's login items, where "start at login" takes effect.
type Login interface {
	// Enabled reports whether Reins starts when the person logs in.
	Enabled() (bool, error)
	// Set adds Reins to the login items or takes it off them; the error
	// says, in the person's words, what is still so.
	Set(on bool) error
	// Where names the entry, for messages; "" when unknown.
	Where() string
}

// Desktop is the [Login] of this desktop: an XDG autostart entry on Linux,
// a LaunchAgent on macOS.
type Desktop struct {
	// Executable is the program registered; "" is this very program.
	Executable string
}

var _ Login = Desktop{}

func (Desktop) Enabled() (bool, error) { return autostart.Enabled() }

func (Desktop) Where() string {
	p, _ := autostart.Path()
	return p
}

func (d Desktop) Set(on bool) error {
	if !on {
		if err := autostart.Disable(); err != nil {
			return fmt.Errorf("start at login is still on, because Reins could not remove its login entry (%w); you can also remove Reins from your desktop's startup applications or login items", err)
		}
		return nil
	}
	exe := d.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("start at login is still off, because Reins cannot tell where its own program is: %w", err)
		}
	}
	err := autostart.Enable(exe)
	switch {
	case errors.Is(err, autostart.ErrTransient):
		return fmt.Errorf("start at login is still off, because %w", err)
	case err != nil:
		return fmt.Errorf("start at login is still off, because Reins could not add itself to the login items (%w); check that the folder is yours and can be written to", err)
	}
	return nil
}

// LoginState is whether Reins really starts at login, which is what the
// preferences show. The person may have removed the entry in the desktop's
// own settings; Reins does not put it back behind their back.
func LoginState(l Login, saved bool, logf func(string, ...any)) bool {
	on, err := l.Enabled()
	if err != nil {
		logf("settings: cannot tell whether Reins starts at login (%v); showing the saved setting", err)
		return saved
	}
	where := l.Where()
	switch {
	case saved && !on:
		logf("settings: start at login was on, but its entry %s is gone or switched off outside Reins; showing it off until it is turned on again in Preferences", where)
	case !saved && on:
		logf("settings: start at login was off, but %s starts Reins at login; showing it on", where)
	}
	return on
}
