//go:build !cgo

package main

import "errors"

// runSelfTestWindow needs cgo for its window.
func runSelfTestWindow([]string) error {
	return errors.New("this build has no windows (built without cgo), so it cannot show the self-test's window")
}
