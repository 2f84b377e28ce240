// Package paths says where Reins keeps its files.
package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// DataDir is the folder holding the audit log, the pairing secret and the
// bridge's address file. REINS_DATA_DIR overrides it (tests, several
// profiles); otherwise it is the user's config folder: on macOS
// ~/Library/Application Support/Reins, on Linux ~/.config/reins.
func DataDir() (string, error) {
	if d := os.Getenv("REINS_DATA_DIR"); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a folder for Reins' data: %w (set REINS_DATA_DIR)", err)
	}
	name := "reins"
	if runtime.GOOS == "darwin" {
		name = "Reins"
	}
	return filepath.Join(base, name), nil
}

// EnsureDataDir returns DataDir, created owner-only if missing.
func EnsureDataDir() (string, error) {
	d, err := DataDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("cannot create %s: %w", d, err)
	}
	return d, nil
}
