//go:build unix

package testenv

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// OwnGroup makes cmd, once started, lead a process group of its own, so
// that KillGroup and StopGroup reach whatever it starts too (a bus's
// services, a browser's helpers). Other attributes already set on cmd
// stay.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillGroup sends SIGKILL to the process group that cmd leads (see
// OwnGroup) and then calls wait, which must return once cmd has exited:
// cmd.Wait, or a receive from the caller's own waiter.
func KillGroup(cmd *exec.Cmd, wait func()) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	wait()
}

// StopGroup ends the process group that cmd leads (see OwnGroup) as a
// person's session ends it: SIGTERM first, SIGKILL if cmd has not exited
// within grace, and SIGKILL to whatever of the group outlives cmd. wait is
// as for KillGroup. StopGroup reports whether cmd exited within grace of
// SIGTERM.
func StopGroup(cmd *exec.Cmd, grace time.Duration, wait func()) bool {
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		wait()
		close(exited)
	}()
	syscall.Kill(-pgid, syscall.SIGTERM)
	ended := true
	select {
	case <-exited:
	case <-time.After(grace):
		ended = false
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	return ended
}

// SessionBus starts a private D-Bus session bus for the test and returns
// its address. The bus (dbus-daemon) runs under env, or this process's
// environment when env is nil, in a process group of its own: what it
// starts on demand (xfconfd, the accessibility bus) ends with it when the
// test ends.
func SessionBus(t testing.TB, env []string) string {
	t.Helper()
	daemon := NeedCommand(t, "dbus-daemon")
	cmd := exec.Command(daemon, "--session", "--nofork", "--nopidfile", "--print-address=1")
	cmd.Env = env
	OwnGroup(cmd)
	// A file, not a pipe: what the bus starts inherits it, and a pipe held
	// open by them would keep cmd.Wait from returning.
	stderr, err := os.CreateTemp(t.TempDir(), "dbus-daemon")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		StopGroup(cmd, 10*time.Second, func() { cmd.Wait() })
		stderr.Close()
		if b, _ := os.ReadFile(stderr.Name()); t.Failed() && len(b) > 0 {
			t.Logf("dbus-daemon stderr:\n%s", b)
		}
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}
