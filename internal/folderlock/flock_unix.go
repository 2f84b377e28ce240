//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package folderlock

import (
	"errors"
	"os"
	"syscall"
)

// openLockFile opens the lock file owner-only; a symbolic link in its place
// is refused rather than followed.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// tryExclusive takes f's lock exclusively, without waiting; it reports
// false when another open file holds it.
func tryExclusive(f *os.File) (bool, error) { return try(f, syscall.LOCK_EX) }

// tryShared takes f's lock shared, without waiting; it reports false when
// another open file holds it exclusively.
func tryShared(f *os.File) (bool, error) { return try(f, syscall.LOCK_SH) }

func try(f *os.File, how int) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
