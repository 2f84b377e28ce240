//go:build unix

package xvfb

import (
	"errors"
	"syscall"
)

const supported = true

// ownGroup starts the server as the leader of a new process group, so that
// stopping it also stops the keymap compiler it spawns.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to the process
// group led by pid. A group already gone is not an error.
func signalGroup(pid int, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
