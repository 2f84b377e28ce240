package peercred

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func ofTCP(client *net.TCPAddr) (Cred, error) {
	table, want := "/proc/net/tcp", procAddr(client)
	if client.IP.To4() == nil {
		table = "/proc/net/tcp6"
	}
	f, err := os.Open(table)
	if err != nil {
		return Cred{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local rem st queues tr retrnsmt uid timeout inode …
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || !strings.EqualFold(fields[1], want) {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			return Cred{}, err
		}
		return Cred{UID: uid, PID: socketOwner(fields[9])}, nil
	}
	return Cred{}, fmt.Errorf("peercred: no TCP socket at %s", client)
}

// procAddr writes an address as /proc/net/tcp does: each 32-bit word of the
// IP as the kernel holds it, printed as a number on a little-endian host (so
// its bytes appear reversed), then the port.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		ip = a.IP.To16()
	}
	var b strings.Builder
	for i := 0; i+4 <= len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.LittleEndian.Uint32(ip[i:i+4]))
	}
	return fmt.Sprintf("%s:%04X", b.String(), a.Port)
}

// socketOwner finds a process holding the socket inode; 0 if none is visible.
func socketOwner(inode string) int {
	target := "socket:[" + inode + "]"
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, err := os.ReadDir(p + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(p + "/fd/" + fd.Name()); err == nil && l == target {
				pid, _ := strconv.Atoi(filepath.Base(p))
				return pid
			}
		}
	}
	return 0
}
