//go:build !linux && !darwin

package peercred

import "net"

func ofTCP(*net.TCPAddr) (Cred, error) { return Cred{}, ErrUnsupported }
func peer(fd int) (Cred, error)        { return Cred{}, ErrUnsupported }
func parent(pid int) (int, error)      { return 0, ErrUnsupported }
func exe(pid int) (string, error)      { return "", ErrUnsupported }

func processes() ([]Process, error) { return nil, ErrUnsupported }
func arg1(pid int) (string, error)  { return "", ErrUnsupported }
func name(pid int) (string, error)  { return "", ErrUnsupported }
