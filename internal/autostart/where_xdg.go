//go:build unix && !darwin

package autostart

import (
	"os"
	"path/filepath"
)

// where is the autostart entry in $XDG_CONFIG_HOME, or ~/.config when that
// is unset or, against the XDG rules, not an absolute path.
func where() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return DesktopEntryPath(dir), nil
}

func render(exe string) []byte { return DesktopEntry(exe) }

func active(entry []byte) bool { return desktopEntryActive(entry) }
