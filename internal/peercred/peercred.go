// Package peercred answers the few read-only questions about other processes
// that the agents' door needs: who is on the other end of a local socket
// (user and process, from the kernel, not from anything the peer says), which
// process started a given one, which executable a process runs, and which
// programs listen on a loopback port (for core's pin of a localhost tab).
//
// Each answer comes from the OS: SO_PEERCRED and /proc on Linux,
// LOCAL_PEERCRED, LOCAL_PEERPID and sysctl kern.proc on macOS (where
// [Listening] is not offered). Everything
// here is pure Go, so macOS builds need no cgo.
package peercred

import (
	"errors"
	"net"
)

// Cred is a socket peer as the kernel knows it.
type Cred struct {
	UID int // the peer's effective user id
	PID int // the peer process; 0 when the OS does not say
}

// ErrUnsupported is returned where the OS offers no such lookup.
var ErrUnsupported = errors.New("peercred: not supported on this operating system")

// Of returns the credentials of the process at the other end of c, as the
// kernel recorded them when the connection was made.
func Of(c *net.UnixConn) (Cred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Cred{}, err
	}
	var cred Cred
	var inner error
	if err := raw.Control(func(fd uintptr) { cred, inner = peer(int(fd)) }); err != nil {
		return Cred{}, err
	}
	return cred, inner
}

// OfTCP returns the user and process owning the local end of a loopback TCP
// connection whose client side is at client (as an HTTP server sees it in
// RemoteAddr). Only processes the caller may inspect can be named; PID is 0
// otherwise.
func OfTCP(client *net.TCPAddr) (Cred, error) { return ofTCP(client) }

// Parent returns the pid of the process that started pid.
func Parent(pid int) (int, error) { return parent(pid) }

// Exe returns the path of the executable pid runs, as the kernel knows it.
func Exe(pid int) (string, error) { return exe(pid) }
