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
	"slices"
	"strings"
	"unicode"

	"github.com/reins-app/reins/internal/atomicfile"
)

// ID names Reins to the login machinery: the file's name and, on macOS, the
// LaunchAgent's label. It is the app's bundle identifier.
const ID = "app.reins.Reins"

// ErrUnsupported is returned on systems where Reins does not know how to
// start at login.
var ErrUnsupported = errors.New("starting Reins at login is not supported on this system")

// ErrTransient is wrapped by the error [Enable] returns for a program that
// will not be at its path at the next login: a copy macOS runs from a
// temporary place, a disk image, an AppImage's mount, a build made by go
// run or go test, anything in the temporary folder. An entry for it would
// start nothing, silently, so Reins refuses it and says where to put
// Reins instead.
var ErrTransient = errors.New("this copy of Reins will be gone by the next login")

// Path is where the entry lives on this system, whether or not it exists.
func Path() (string, error) { return where() }

// Enable registers exe, an absolute path, to start when the person logs in,
// replacing an earlier entry. The file is replaced whole, so a failed write
// leaves the earlier entry, or none, in place. A program that will be gone
// by the next login is refused with an error wrapping [ErrTransient].
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
// desktop has not been told to skip it. On macOS it reports only that the
// LaunchAgent is there: since macOS 13 the person can switch it off in
// System Settings › General › Login Items, which leaves the file in place
// and keeps the switch where Reins does not read it.
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
// relative one would depend on the folder the session starts in, control
// characters cannot be written into an XML plist at all, and a transient
// one would be gone when the entry is read.
func checkExe(exe string) error {
	if !filepath.IsAbs(exe) {
		return fmt.Errorf("the program to start at login must be an absolute path, not %q", exe)
	}
	for _, r := range exe {
		if unicode.IsControl(r) {
			return fmt.Errorf("the program's path %q has control characters, which a login entry cannot hold; move Reins to an ordinary folder", exe)
		}
	}
	if why := transient(exe, tempRoots()); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrTransient, exe, why)
	}
	return nil
}

// transient says why exe will not be at its path at the next login, and
// what to do instead, or "" when nothing says so. temps are the temporary
// folders, which may be emptied at any restart.
func transient(exe string, temps []string) string {
	const inApplications = "; move Reins to Applications first, open it from there, and turn this on again"
	const lasting = "; put reins in a lasting folder (such as ~/.local/bin or /usr/local/bin), start it from there, and turn this on again"
	elems := strings.Split(filepath.ToSlash(exe), "/")
	switch {
	case strings.Contains(exe, "/AppTranslocation/"):
		// Gatekeeper runs a downloaded app from a read-only copy at a random
		// path until the person moves it: the next start has a new path.
		return "a temporary copy macOS made because Reins was opened where it was downloaded (App Translocation)" + inApplications
	case strings.HasPrefix(exe, "/Volumes/"):
		return "on a disk image or another volume, which may not be mounted at the next login" + inApplications
	case slices.ContainsFunc(elems, func(e string) bool { return strings.HasPrefix(e, ".mount_") }):
		return "inside an AppImage's mount, which gets a new path each time it runs and is gone when it quits" + lasting
	case slices.ContainsFunc(elems, func(e string) bool { return strings.HasPrefix(e, "go-build") }):
		return "a temporary build made by go run or go test; run the installed reins, not go run (make build, or go install), and turn this on from it"
	}
	for _, tmp := range temps {
		if under(exe, tmp) {
			return "in the temporary folder " + tmp + ", which may be emptied before the next login" + lasting
		}
	}
	return ""
}

// tempRoots are the temporary folders on this system: Go's, with its links
// resolved (macOS's $TMPDIR is reached through /var, a link to
// /private/var), and /tmp, which a $TMPDIR elsewhere does not make lasting.
func tempRoots() []string {
	roots := []string{os.TempDir()}
	if real, err := filepath.EvalSymlinks(os.TempDir()); err == nil {
		roots = append(roots, real)
	}
	if filepath.Separator == '/' {
		roots = append(roots, "/tmp", "/private/tmp")
	}
	return roots
}

// under reports whether path is inside the folder dir. The root itself is
// never taken as a temporary folder, whatever $TMPDIR says.
func under(path, dir string) bool {
	dir = filepath.Clean(dir)
	if dir == "." || dir == filepath.Dir(dir) {
		return false
	}
	return strings.HasPrefix(filepath.Clean(path), dir+string(filepath.Separator))
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
	return atomicfile.Write(path, data, 0o644)
}
