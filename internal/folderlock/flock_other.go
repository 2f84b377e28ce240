//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package folderlock

import (
	"errors"
	"os"
)

var errNoLocks = errors.New("locking a data folder is not supported on this system")

func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

func tryExclusive(*os.File) (bool, error) { return false, errNoLocks }
func tryShared(*os.File) (bool, error)    { return false, errNoLocks }
func unlock(*os.File)                     {}
