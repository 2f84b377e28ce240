//go:build cgo && !linux

package main

// trayHost reports whether a tray host exists: the macOS menu bar always is one.
func trayHost() bool { return true }
