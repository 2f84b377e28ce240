//go:build !unix

package executor

import "syscall"

func guardProcAttr() *syscall.SysProcAttr { return nil }
