package peercred

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// holders remembers which processes held a listening socket, by inode, so
// that a lookup need not read every process's descriptors each time. A new
// program on the port has a new socket and so a new inode, which is looked
// up in full; a remembered holder is checked again (still holding the
// socket, and its executable and directory read afresh) on every lookup.
var holders struct {
	mu sync.Mutex
	m  map[string][]int // guarded by mu; inode → pids
}

func listening(ips []net.IP, port int) ([]Program, error) {
	socks, err := listeners(ips, port)
	if err != nil {
		return nil, err
	}
	if len(socks) == 0 {
		return nil, nil
	}
	holders.mu.Lock()
	defer holders.mu.Unlock()
	if holders.m == nil {
		holders.m = map[string][]int{}
	}
	var missing []string
	for _, s := range socks {
		pids, ok := holders.m[s.inode]
		if !ok || !allHold(pids, s.inode) {
			missing = append(missing, s.inode)
		}
	}
	if len(missing) > 0 {
		found := scanHolders(missing)
		for _, inode := range missing {
			if pids := found[inode]; len(pids) > 0 {
				holders.m[inode] = pids
			} else {
				delete(holders.m, inode) // held by no process we may inspect
			}
		}
	}
	var out []Program
	for _, s := range socks {
		pids := holders.m[s.inode]
		if len(pids) == 0 {
			out = append(out, Program{UID: s.uid})
			continue
		}
		for _, pid := range pids {
			p := Program{PID: pid, UID: s.uid}
			p.Exe, _ = exe(pid)
			p.Dir, _ = cwd(pid)
			out = append(out, p)
		}
	}
	if len(holders.m) > 256 { // sockets long closed; start afresh
		holders.m = nil
	}
	return out, nil
}

type socket struct {
	inode string
	uid   int
}

// listeners reads the kernel's TCP tables for sockets in LISTEN that would
// take a connection to one of ips on port.
func listeners(ips []net.IP, port int) ([]socket, error) {
	var out []socket
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if os.IsNotExist(err) && table == "/proc/net/tcp6" {
			continue // a kernel without IPv6
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local rem st queues tr retrnsmt uid timeout inode …
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			ip, p, ok := parseProcAddr(fields[1])
			if !ok || p != port {
				continue
			}
			for _, want := range ips {
				if accepts(ip, want) {
					uid, _ := strconv.Atoi(fields[7])
					out = append(out, socket{inode: fields[9], uid: uid})
					break
				}
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseProcAddr reads an address as /proc/net/tcp writes it (see procAddr).
func parseProcAddr(s string) (net.IP, int, bool) {
	host, port, ok := strings.Cut(s, ":")
	if !ok || (len(host) != 8 && len(host) != 32) {
		return nil, 0, false
	}
	raw, err := hex.DecodeString(host)
	if err != nil {
		return nil, 0, false
	}
	// Each word was printed as a number: read the number, then lay its
	// bytes out as the little-endian host held them.
	ip := make(net.IP, len(raw))
	for i := 0; i+4 <= len(raw); i += 4 {
		binary.LittleEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:i+4]))
	}
	n, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return nil, 0, false
	}
	return ip, int(n), true
}

// allHold reports whether every pid still holds the socket inode.
func allHold(pids []int, inode string) bool {
	if len(pids) == 0 {
		return false
	}
	target := "socket:[" + inode + "]"
	for _, pid := range pids {
		if !holds(strconv.Itoa(pid), target) {
			return false
		}
	}
	return true
}

func holds(pid, target string) bool {
	dir := "/proc/" + pid + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(dir + fd.Name()); err == nil && l == target {
			return true
		}
	}
	return false
}

// scanHolders reads every process's descriptors once for the given socket
// inodes. A socket may have several holders (a server and the workers it
// forked share it): all are named.
func scanHolders(inodes []string) map[string][]int {
	want := make(map[string]string, len(inodes))
	for _, in := range inodes {
		want["socket:["+in+"]"] = in
	}
	found := map[string][]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		dir := p + "/fd/"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(p))
		seen := map[string]bool{}
		for _, fd := range fds {
			l, err := os.Readlink(dir + fd.Name())
			if err != nil {
				continue
			}
			if in, ok := want[l]; ok && !seen[in] {
				seen[in] = true
				found[in] = append(found[in], pid)
			}
		}
	}
	return found
}

func cwd(pid int) (string, error) {
	p, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, " (deleted)"), nil
}
