//go:build !unix

package xvfb

import "syscall"

// supported is false: Xvfb is a Unix program, and Start refuses before
// either function below is called.
const supported = false

func ownGroup() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, kill bool) error { return nil }
