// Package extension holds the Chrome extension that Reins asks people to load,
// embedded so the binary can write it out (reins doctor, first run) and tests
// can load the very files that ship.
package extension

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

// ID is the extension's id, fixed by the public key in manifest.json.
const ID = "gomoodmpnmlbjpjaeghfbhehioihgmag"

// Origin is the Origin header Chrome sends from the extension.
const Origin = "chrome-extension://" + ID

// NativeHost is the name of the native messaging host that hands over the
// pairing secret.
const NativeHost = "app.reins.bridge"

//go:embed manifest.json content.js sw.js worker/*.js strip.js session.js panel.html panel.js
var files embed.FS

// Files is the folder Chrome loads.
func Files() fs.FS { return files }

// WriteTo writes the extension into dir (created if missing) and returns dir.
func WriteTo(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, p), 0o755)
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
	return dir, err
}
