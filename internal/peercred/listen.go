package peercred

import (
	"net"
	"sort"
	"strconv"
)

// Program is a process holding a listening TCP socket, named by what it runs
// and where: Exe and Dir identify it, PID and UID only label it (a program
// restarted in place is the same program; another one on the same port is
// not).
type Program struct {
	PID int    // 0 when the socket's holder cannot be inspected
	UID int    // the socket's owner, from the kernel's socket table
	Exe string // the executable's path; "" when it cannot be read
	Dir string // its working directory; "" when it cannot be read
}

// Known reports whether both parts of the program's identity were read.
func (p Program) Known() bool { return p.Exe != "" && p.Dir != "" }

func (p Program) String() string {
	if !p.Known() {
		return "a program Reins cannot inspect (user " + strconv.Itoa(p.UID) + ")"
	}
	return p.Exe + " in " + p.Dir
}

// Listening returns the programs that could answer a TCP connection to any
// of ips on port: those listening on that address itself or on the wildcard
// address of its family (and, for IPv4, the IPv6 wildcard, which takes IPv4
// too unless the socket is IPv6-only: counted, to be safe). Each program
// appears once, sorted by executable and directory; none at all is an empty
// list and no error. It returns [ErrUnsupported] where the OS offers no such
// lookup in pure Go.
func Listening(ips []net.IP, port int) ([]Program, error) {
	ps, err := listening(ips, port)
	if err != nil {
		return nil, err
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Exe != ps[j].Exe {
			return ps[i].Exe < ps[j].Exe
		}
		if ps[i].Dir != ps[j].Dir {
			return ps[i].Dir < ps[j].Dir
		}
		return ps[i].UID < ps[j].UID
	})
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p.Exe == out[len(out)-1].Exe && p.Dir == out[len(out)-1].Dir && p.UID == out[len(out)-1].UID {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// accepts reports whether a socket listening on local would take a
// connection to target.
func accepts(local, target net.IP) bool {
	if local.Equal(target) {
		return true
	}
	if local.Equal(net.IPv6unspecified) {
		return true
	}
	return target.To4() != nil && local.Equal(net.IPv4zero)
}
