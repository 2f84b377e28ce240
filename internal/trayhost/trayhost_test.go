//go:build !darwin

package trayhost

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// privateBus starts a session bus for the test and points this process at
// it.
func privateBus(t *testing.T) string {
	t.Helper()
	addr := testenv.SessionBus(t, nil)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	return addr
}

// host plays a tray host: it owns the watcher's name until release.
func host(t *testing.T, addr string) (release func()) {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(WatcherName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v %v", WatcherName, r, err)
	}
	return func() { conn.Close() }
}

func next(t *testing.T, ch <-chan bool) bool {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatal("the watch ended")
		}
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported within 10 s")
	}
	return false
}

func TestPresentAndWatchFollowTheHost(t *testing.T) {
	addr := privateBus(t)
	if has, err := Present(); err != nil || has {
		t.Fatalf("Present() = %t, %v before any host; want false, nil", has, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next(t, ch) {
		t.Fatal("Watch says a host is there before one started")
	}
	release := host(t, addr)
	if !next(t, ch) {
		t.Fatal("Watch missed the host that appeared")
	}
	if has, err := Present(); err != nil || !has {
		t.Fatalf("Present() = %t, %v with a host; want true, nil", has, err)
	}
	release()
	if next(t, ch) {
		t.Fatal("Watch missed the host that went away")
	}
	host(t, addr)
	if !next(t, ch) {
		t.Fatal("Watch missed the host that came back")
	}
	cancel()
	select {
	case _, ok := <-ch:
		for ok {
			_, ok = <-ch
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not end with its context")
	}
}

func TestNoSessionBusIsSaidSoAndNeverLaunchesOne(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if has, err := Present(); has || !errors.Is(err, ErrNoSessionBus) {
		t.Fatalf("Present() = %t, %v; want false and ErrNoSessionBus", has, err)
	}
	if _, err := Watch(context.Background()); !errors.Is(err, ErrNoSessionBus) {
		t.Fatalf("Watch: %v; want ErrNoSessionBus", err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/nobody")
	if _, err := Present(); !errors.Is(err, ErrNoSessionBus) || !strings.Contains(err.Error(), "dbus-run-session") {
		t.Fatalf("Present() with a bus address nobody answers: %v; want ErrNoSessionBus saying what to do", err)
	}
}
