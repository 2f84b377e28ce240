//go:build !darwin

package trayhost

import (
	"context"
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"
)

// connect opens a private connection: the tray library holds the shared
// one (dbus.SessionBus), and closing that would take its item away. It
// never launches a bus: a session without one has no tray host either.
func connect() (*dbus.Conn, error) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, noBus(err)
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, noBus(err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, noBus(err)
	}
	return conn, nil
}

func present() (bool, error) {
	conn, err := connect()
	if err != nil {
		return false, err
	}
	defer conn.Close()
	return hasOwner(conn)
}

func hasOwner(conn *dbus.Conn) (bool, error) {
	var has bool
	err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, WatcherName).Store(&has)
	return has, err
}

func watch(ctx context.Context) (<-chan bool, error) {
	conn, err := connect()
	if err != nil {
		return nil, err
	}
	// Listen before asking, so a change between the two is not lost.
	if err := conn.AddMatchSignal(
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, WatcherName),
	); err != nil {
		conn.Close()
		return nil, err
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	has, err := hasOwner(conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	out := make(chan bool, 1)
	out <- has
	go func() {
		defer close(out)
		defer conn.Close()
		last := has
		for {
			select {
			case <-ctx.Done():
				return
			case sig, ok := <-signals:
				if !ok || sig == nil {
					return // the bus went away
				}
				if sig.Name != "org.freedesktop.DBus.NameOwnerChanged" || len(sig.Body) < 3 {
					continue
				}
				owner, _ := sig.Body[2].(string)
				now := owner != ""
				if now == last {
					continue
				}
				last = now
				select {
				case out <- now:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

func lookup(pid int) (Host, error) {
	conn, err := connect()
	if err != nil {
		return Host{}, err
	}
	defer conn.Close()
	var owner string
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, WatcherName).Store(&owner); err != nil {
		return Host{}, nil // no host
	}
	var h Host
	var hostPID uint32
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, owner).Store(&hostPID); err == nil {
		h.PID = int(hostPID)
	}
	// An item registers under the bus name it owns, which the host lists
	// as "name/path"; the name's owner tells whose it is.
	v, err := conn.Object(WatcherName, "/StatusNotifierWatcher").GetProperty(WatcherName + ".RegisteredStatusNotifierItems")
	if err != nil {
		return h, fmt.Errorf("the tray host did not list its items: %w", err)
	}
	items, _ := v.Value().([]string)
	for _, item := range items {
		name, _, _ := strings.Cut(item, "/")
		var itemPID uint32
		if conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, name).Store(&itemPID) == nil && int(itemPID) == pid {
			h.Listed = true
		}
	}
	return h, nil
}
