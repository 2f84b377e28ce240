//go:build !linux

package main

import "errors"

var errNoDesktop = errors.New("no desktop picture")

// desktopShot needs Xvfb and xfce4-panel, which are Linux programs.
func desktopShot(string) error {
	return errors.Join(errNoDesktop, errors.New("the desktop picture is taken on Linux only"))
}
