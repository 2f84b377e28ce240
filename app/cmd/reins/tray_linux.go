//go:build cgo

package main

import (
	"context"
	"errors"

	"fyne.io/fyne/v2"

	"github.com/reins-app/reins/internal/trayhost"
)

// trayHost reports whether this session can have a tray item at all (a
// session bus) and follows whether a host shows it. Without a session bus
// the tray is never started: fyne's tray would fail to connect and then
// panic when Reins quits.
func trayHost(ctx context.Context, logf func(string, ...any)) (bool, <-chan bool) {
	host, err := trayhost.Watch(ctx)
	if errors.Is(err, trayhost.ErrNoSessionBus) {
		logf("no tray: %v", err)
		return false, nil
	}
	if err != nil {
		logf("cannot watch for a tray host (%v); a small Reins window stands in for the menu", err)
		return false, nil
	}
	return true, host
}

// glfwHints: GLFW's defaults suit Linux.
var glfwHints func()

// afterTrayIcon: Linux hosts draw the PNG as it is.
var afterTrayIcon func(fyne.Resource)

func trayStarted() {}
