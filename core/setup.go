package core

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/paths"
)

// WriteExtension writes the Chrome extension folder into dir.
func WriteExtension(dir string) (string, error) { return extension.WriteTo(dir) }

// NativeHostDirs lists the per-user folders where Chrome-family browsers look
// for native messaging host manifests.
func NativeHostDirs() ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	if runtime.GOOS == "darwin" {
		base := filepath.Join(home, "Library", "Application Support")
		return []string{
			filepath.Join(base, "Google", "Chrome", "NativeMessagingHosts"),
			filepath.Join(base, "Chromium", "NativeMessagingHosts"),
		}, nil
	}
	return []string{
		filepath.Join(home, ".config", "google-chrome", "NativeMessagingHosts"),
		filepath.Join(home, ".config", "chromium", "NativeMessagingHosts"),
	}, nil
}

// Check is one line of `reins doctor`.
type Check struct {
	What string
	OK   bool
	Fix  string
}

// Doctor says what Reins needs and whether it is there.
func Doctor() []Check {
	var out []Check
	dir, err := paths.DataDir()
	out = append(out, Check{What: "data folder " + dir, OK: err == nil, Fix: "set REINS_DATA_DIR"})
	hosts, _ := NativeHostDirs()
	found := false
	for _, h := range hosts {
		if _, err := os.Stat(filepath.Join(h, extension.NativeHost+".json")); err == nil {
			found = true
		}
	}
	out = append(out, Check{What: "pairing helper for Chrome", OK: found, Fix: "run: reins extension ~/reins-extension"})
	ex, err := executor.New(executor.Options{})
	if err == nil {
		ex.Close()
	}
	fix := ""
	if err != nil {
		fix = err.Error()
	}
	out = append(out, Check{What: "input to the display", OK: err == nil, Fix: fix})
	return out
}
