//go:build !darwin || !cgo

package macwin

import "github.com/reins-app/reins/persondoor"

// Accessory does nothing outside macOS.
func Accessory() error { return nil }

// Float does nothing outside macOS.
func Float(nsWindow uintptr) error { return nil }

// RememberFront does nothing outside macOS, where the window manager hands
// the focus back when the popup hides.
func RememberFront() error { return nil }

// GiveBackFront does nothing outside macOS.
func GiveBackFront() error { return nil }

// WatchPresses does nothing outside macOS, where the desktop's own input
// listener tells the person's presses apart.
func WatchPresses() error { return nil }

// Hand is nil outside macOS.
func Hand() persondoor.Hand { return nil }
