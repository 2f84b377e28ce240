//go:build unix

package executor

import "syscall"

// guardProcAttr puts the release guard in a process group of its own.
func guardProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
