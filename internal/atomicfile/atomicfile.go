// Package atomicfile writes a file whole or not at all: readers see the old
// contents or the new, never a part, even when the machine stops half-way.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write puts data at path with perm, through a temporary file in the same
// folder that is synced and then renamed over path. The folder must exist.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone already once renamed
	if err := f.Chmod(perm); err != nil {
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
