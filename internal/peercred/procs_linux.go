package peercred

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func processes() ([]Process, error) { return processesIn("/proc") }

// processesIn lists the processes of a /proc at root: tests give a
// directory laid out as /proc is. Only each executable's link is read: a
// file under /proc costs about as much to read as a whole listing of
// links.
func processesIn(root string) ([]Process, error) {
	d, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	out := make([]Process, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		p := Process{PID: pid}
		exe := filepath.Join(root, n, "exe")
		target, err := os.Readlink(exe)
		switch {
		case errors.Is(err, fs.ErrPermission):
			p.Hidden = true
		case err != nil:
			if _, err := os.Lstat(filepath.Join(root, n)); err != nil {
				continue // ended
			}
		default:
			if fi, err := os.Stat(exe); err == nil {
				p.Exe, p.Open = strings.TrimSuffix(target, " (deleted)"), exe
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					p.File = FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: fi.Size(), ModNano: fi.ModTime().UnixNano()}
				}
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func name(pid int) (string, error) { return nameIn("/proc", pid) }

func nameIn(root string, pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "comm"))
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

func arg1(pid int) (string, error) { return arg1In("/proc", pid) }

func arg1In(root string, pid int) (string, error) {
	cmd, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return "", err
	}
	args := bytes.Split(bytes.TrimRight(cmd, "\x00"), []byte{0})
	if len(args) > 1 {
		return string(args[1]), nil
	}
	return "", nil
}
