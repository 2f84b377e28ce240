package peercred

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestListeningNamesThisProgramAndItsFolder(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	ps, err := Listening([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, port)
	if runtime.GOOS != "linux" {
		// Offered on Linux only; elsewhere it must say so, not guess.
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Listening = %+v, %v; want ErrUnsupported", ps, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	dir, _ := os.Getwd()
	if len(ps) != 1 || ps[0].Exe != exe || ps[0].Dir != dir || ps[0].PID != os.Getpid() {
		t.Fatalf("Listening = %+v, want this process (%s in %s)", ps, exe, dir)
	}
	// Asked again, the remembered holder is checked, not taken on trust.
	if again, err := Listening([]net.IP{net.IPv4(127, 0, 0, 1)}, port); err != nil || len(again) != 1 || again[0] != ps[0] {
		t.Fatalf("again: %+v, %v", again, err)
	}
	// Another address of the loopback range is not this socket's.
	if other, err := Listening([]net.IP{net.IPv4(127, 0, 0, 2)}, port); err != nil || len(other) != 0 {
		t.Fatalf("127.0.0.2: %+v, %v", other, err)
	}
	l.Close()
	if gone, err := Listening([]net.IP{net.IPv4(127, 0, 0, 1)}, port); err != nil || len(gone) != 0 {
		t.Fatalf("after Close: %+v, %v", gone, err)
	}
}

func TestAcceptsWildcardsOfTheRightFamily(t *testing.T) {
	v4, v6 := net.IPv4(127, 0, 0, 1), net.IPv6loopback
	for _, c := range []struct {
		local, target net.IP
		want          bool
	}{
		{v4, v4, true}, {net.IPv4zero, v4, true}, {net.IPv6unspecified, v4, true}, {net.ParseIP("::ffff:127.0.0.1"), v4, true},
		{v6, v6, true}, {net.IPv6unspecified, v6, true}, {net.IPv4zero, v6, false}, {v4, v6, false}, {net.IPv4(127, 0, 0, 2), v4, false},
	} {
		if got := accepts(c.local, c.target); got != c.want {
			t.Errorf("accepts(%v, %v) = %v, want %v", c.local, c.target, got, c.want)
		}
	}
}

func BenchmarkListening(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if _, err := Listening(ips, port); err != nil {
		b.Skip(err)
	}
	b.Run("remembered", func(b *testing.B) {
		for b.Loop() {
			if _, err := Listening(ips, port); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full-scan", func(b *testing.B) {
		for b.Loop() {
			forgetHolders()
			if _, err := Listening(ips, port); err != nil {
				b.Fatal(err)
			}
		}
	})
}
