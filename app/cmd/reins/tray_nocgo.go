//go:build !cgo

package main

import (
	"fmt"
	"os"
)

// runTray needs cgo for the windows; without it Reins runs its terminal door.
func runTray(args []string) error {
	fmt.Fprintln(os.Stderr, "reins: this build has no windows (built without cgo); answering approvals on this terminal instead")
	return runServe(args)
}
