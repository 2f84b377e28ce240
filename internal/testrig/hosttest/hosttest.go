// Package hosttest sets up a real tray host for tests and the screenshots
// tool: xfce4-panel with its systray plugin alone, along the bottom of an
// X screen, on a session bus of the caller's, and asks that bus what the
// host shows.
package hosttest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/godbus/dbus/v5"

	"github.com/reins-app/reins/internal/trayhost"
)

// WritePanelConfig writes xfce4-panel's settings under configHome (the
// panel's XDG_CONFIG_HOME): one 30-pixel panel along the bottom of a
// screen screenHeight pixels tall, holding the systray plugin alone, so
// that a tray item is the only thing on it and windows opened at the
// top-left corner do not cover it. Write it before each start: the
// panel's settings daemon writes back into it.
func WritePanelConfig(configHome string, screenHeight int) error {
	dir := filepath.Join(configHome, "xfce4", "xfconf", "xfce-perchannel-xml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "xfce4-panel.xml"), []byte(fmt.Sprintf(panelXML, screenHeight-14)), 0o644)
}

const panelXML = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=8;x=640;y=%d"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="30"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
`

// HasWatcher reports whether a tray host owns the StatusNotifierWatcher
// on bus.
func HasWatcher(bus *dbus.Conn) bool {
	var has bool
	err := bus.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, trayhost.WatcherName).Store(&has)
	return err == nil && has
}

// Registered reports whether the host lists the tray item of the process
// pid, and the bus name that serves it.
func Registered(bus *dbus.Conn, pid int) (owner string, ok bool) {
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid)
	if err := bus.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, name).Store(&owner); err != nil {
		return "", false
	}
	v, err := bus.Object(trayhost.WatcherName, "/StatusNotifierWatcher").GetProperty(trayhost.WatcherName + ".RegisteredStatusNotifierItems")
	if err != nil {
		return owner, false
	}
	items, _ := v.Value().([]string)
	return owner, slices.Contains(items, owner+"/StatusNotifierItem")
}
