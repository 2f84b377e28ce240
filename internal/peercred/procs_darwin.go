package peercred

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func processes() ([]Process, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	out := make([]Process, 0, len(kps))
	for i := range kps {
		pid := int(kps[i].Proc.P_pid)
		if pid <= 0 {
			continue
		}
		p := Process{PID: pid}
		exe, _, err := procArgs(pid)
		switch {
		case errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES):
			p.Hidden = true
		case err == nil:
			if fi, err := os.Stat(exe); err == nil {
				p.Exe, p.Open = exe, exe
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					p.File = FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: fi.Size(), ModNano: fi.ModTime().UnixNano()}
				}
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func name(pid int) (string, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "", err
	}
	if int(kp.Proc.P_pid) != pid {
		return "", fmt.Errorf("peercred: no process %d", pid)
	}
	n := kp.Proc.P_comm[:]
	if i := bytes.IndexByte(n, 0); i >= 0 {
		n = n[:i]
	}
	return string(n), nil
}

func arg1(pid int) (string, error) {
	_, a, err := procArgs(pid)
	return a, err
}

// procArgs reads kern.procargs2: the argument count, the executable's path,
// NUL padding, then the arguments, each NUL-terminated. Another user's
// process cannot be read.
func procArgs(pid int) (exe, arg1 string, err error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return "", "", err
	}
	if len(b) < 5 {
		return "", "", syscall.EINVAL
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", "", syscall.EINVAL
	}
	exe, b = string(b[:i]), b[i:]
	b = bytes.TrimLeft(b, "\x00")
	// argv[0], then argv[1].
	for n := 0; n < 2 && n < argc; n++ {
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			j = len(b)
		}
		if n == 1 {
			arg1 = string(b[:j])
		}
		if j == len(b) {
			break
		}
		b = b[j+1:]
	}
	return exe, arg1, nil
}
