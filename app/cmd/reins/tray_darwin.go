//go:build cgo && darwin

package main

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/systray"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// trayHost: the menu bar is always there to hold the item.
func trayHost(context.Context, func(string, ...any)) (bool, <-chan bool) { return true, nil }

// glfwHints keeps GLFW from making Reins a regular app, with a Dock icon
// and a menu bar of its own: with its Cocoa menu bar hint on (the default,
// which fyne leaves), GLFW's applicationDidFinishLaunching sets the regular
// activation policy, over the bundle's LSUIElement and over the accessory
// policy set before. With the hint off it sets no policy and makes no menu
// bar; macwin.Accessory then holds.
func glfwHints() { glfw.InitHint(glfw.CocoaMenubar, glfw.False) }

// lastIcon is the icon last handed to the tray; on fyne's goroutine only.
var lastIcon fyne.Resource

// afterTrayIcon makes the tray's icon a template image, so macOS draws it
// in the menu bar's own colour, light or dark. fyne marks only its themed
// SVG resources as templates; Reins' icons are black-and-alpha PNGs, which
// is what a template image is.
func afterTrayIcon(res fyne.Resource) {
	lastIcon = res
	b := res.Content()
	systray.SetTemplateIcon(b, b)
}

// trayStarted applies the template icon again once fyne's tray is ready:
// fyne sets its own plain icon from a goroutine of its own shortly after
// the tray starts, at a moment it does not announce.
func trayStarted() {
	time.AfterFunc(time.Second, func() {
		fyne.Do(func() {
			if lastIcon != nil {
				afterTrayIcon(lastIcon)
			}
		})
	})
}
