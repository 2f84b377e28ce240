package peercred

import (
	"bytes"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

func peer(fd int) (Cred, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Cred{}, fmt.Errorf("peercred: LOCAL_PEERCRED: %w", err)
	}
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		pid = 0 // the user is what the check needs; the pid only labels
	}
	return Cred{UID: int(x.Uid), PID: pid}, nil
}

func parent(pid int) (int, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	if int(kp.Proc.P_pid) != pid {
		return 0, fmt.Errorf("peercred: no process %d", pid)
	}
	return int(kp.Eproc.Ppid), nil
}

// exe reads kern.procargs2: the argument count, then the executable path as
// the kernel started it, NUL-terminated.
func exe(pid int) (string, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return "", err
	}
	if len(b) < 5 {
		return "", fmt.Errorf("peercred: no arguments for process %d", pid)
	}
	b = b[4:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), nil
}

// ofTCP is not offered on macOS: naming a socket's owner needs libproc,
// which pure Go cannot reach. The HTTP door's token stands alone there.
func ofTCP(*net.TCPAddr) (Cred, error) { return Cred{}, ErrUnsupported }
