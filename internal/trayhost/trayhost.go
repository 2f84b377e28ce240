// Package trayhost tells whether this desktop session has a tray host — a
// StatusNotifierWatcher on the D-Bus session bus, which is what shows
// programs' tray items on Linux desktops — and follows it as hosts come
// and go. It needs no cgo, so `reins doctor` and tests can ask too.
//
// On macOS the menu bar is always the host: [Present] reports true and
// [Watch] sends true once.
package trayhost

import (
	"context"
	"errors"
	"fmt"
)

// WatcherName is the bus name a tray host owns.
const WatcherName = "org.kde.StatusNotifierWatcher"

// ErrNoSessionBus means the session has no D-Bus session bus, so no tray can
// exist at all: a tray item must not even be tried.
var ErrNoSessionBus = errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset or nobody answers there): " +
	"start Reins from the desktop session, or run it under dbus-run-session")

// Present reports whether a tray host exists now. Its error wraps
// [ErrNoSessionBus] when there is no session bus to ask.
func Present() (bool, error) { return present() }

// Watch sends whether a tray host exists now, then again each time that
// changes, until ctx ends; then it closes the channel. Its error wraps
// [ErrNoSessionBus] when there is no session bus to watch.
func Watch(ctx context.Context) (<-chan bool, error) { return watch(ctx) }

func noBus(err error) error { return fmt.Errorf("%w: %v", ErrNoSessionBus, err) }
