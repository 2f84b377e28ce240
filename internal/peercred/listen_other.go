//go:build !linux

package peercred

import "net"

// listening is not offered here. On macOS naming a socket's holder needs
// libproc (proc_pidfdinfo), which pure Go cannot reach without cgo; the
// net.inet.tcp.pcblist_n sysctl names the last process to use a socket,
// which is not the same question. Callers say so to the person instead.
func listening([]net.IP, int) ([]Program, error) { return nil, ErrUnsupported }
