//go:build cgo && !linux && !darwin

package main

import (
	"context"

	"fyne.io/fyne/v2"
)

// trayHost: elsewhere the desktop always has a notification area.
func trayHost(context.Context, func(string, ...any)) (bool, <-chan bool) { return true, nil }

var (
	glfwHints     func()
	afterTrayIcon func(fyne.Resource)
)

func trayStarted() {}
