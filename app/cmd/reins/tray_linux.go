//go:build cgo

package main

import "github.com/godbus/dbus/v5"

// trayHost reports whether the session has a StatusNotifierItem host; the
// tray library only logs when registering fails, so ask the bus first.
func trayHost() bool {
	conn, err := dbus.SessionBus()
	if err != nil {
		return false
	}
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
