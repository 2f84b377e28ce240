//go:build linux || darwin

package peercred

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestOfOwnConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan *net.UnixConn, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			done <- nil
			return
		}
		done <- c
	}()
	client, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-done
	if server == nil {
		t.Fatal("accept failed")
	}
	defer server.Close()
	c, err := Of(server)
	if err != nil {
		t.Fatal(err)
	}
	if c.UID != os.Geteuid() || c.PID != os.Getpid() {
		t.Fatalf("got %+v, want uid %d pid %d", c, os.Geteuid(), os.Getpid())
	}
}

func TestParentAndExe(t *testing.T) {
	ppid, err := Parent(os.Getpid())
	if err != nil || ppid != os.Getppid() {
		t.Fatalf("Parent = %d, %v; want %d", ppid, err, os.Getppid())
	}
	got, err := Exe(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.Executable()
	want, _ = filepath.EvalSymlinks(want)
	if got != want {
		t.Fatalf("Exe = %q, want %q", got, want)
	}
	if _, err := Parent(1 << 30); err == nil {
		t.Fatal("a process that does not exist has a parent")
	}
}

func TestOfTCPNamesTheClientProcess(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		got <- c
	}()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-got
	defer server.Close()
	c, err := OfTCP(server.RemoteAddr().(*net.TCPAddr))
	if err == ErrUnsupported && runtime.GOOS != "linux" {
		t.Skip(err) // offered on Linux only; there it must work
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.UID != os.Geteuid() || c.PID != os.Getpid() {
		t.Fatalf("got %+v, want uid %d pid %d", c, os.Geteuid(), os.Getpid())
	}
}
