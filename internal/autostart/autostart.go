// Package autostart registers Reins to start when the person logs in: an
// XDG autostart entry on Linux and the other freedesktop systems, a
// LaunchAgent on macOS.
//
// The entries are plain files in the person's own folders, so they show in
// the desktop's list of login items and the person can remove them there as
// well. The file formats are pure functions ([DesktopEntry], [LaunchAgent])
// tested on every OS; only the choice of file depends on the OS.
package autostart

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode"
)

// ID names Reins to the login machinery: the file's name and, on macOS, the
// LaunchAgent's label. It is the app's bundle identifier.
const ID = "app.reins.Reins"

// ErrUnsupported is returned on systems where Reins does not know how to
// start at login.
var ErrUnsupported = errors.New("starting Reins at login is not supported on this system")

// Path is where the entry lives on this system, whether or not it exists.
func Path() (string, error) { return where() }

// Enable registers exe, an absolute path, to start when the person logs in,
// replacing an earlier entry. The file is replaced whole, so a failed write
// leaves the earlier entry, or none, in place.
func Enable(exe string) error {
	if err := checkExe(exe); err != nil {
		return err
	}
	path, err := where()
	if err != nil {
		return err
	}
	if err := writeFile(path, render(exe)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Disable removes the entry. It is not an error when there is none.
func Disable() error {
	path, err := where()
	if errors.Is(err, ErrUnsupported) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// Enabled reports whether Reins starts at login: the entry exists and the
// desktop has not been told to skip it.
func Enabled() (bool, error) {
	path, err := where()
	if errors.Is(err, ErrUnsupported) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return active(b), nil
}

// checkExe refuses a program path no entry could carry faithfully: a
// relative one would depend on the folder the session starts in, and
// control characters cannot be written into an XML plist at all.
func checkExe(exe string) error {
	if !filepath.IsAbs(exe) {
		return fmt.Errorf("the program to start at login must be an absolute path, not %q", exe)
	}
	for _, r := range exe {
		if unicode.IsControl(r) {
			return fmt.Errorf("the program's path %q has control characters, which a login entry cannot hold; move Reins to an ordinary folder", exe)
		}
	}
	return nil
}

// writeFile puts data at path through a temporary file and a rename, so the
// login machinery never reads half an entry. The entry is readable by all,
// as the desktop's own entries are; the folders are made owner-only, as the
// XDG base directory rules ask.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+ID+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
