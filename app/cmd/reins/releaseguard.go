package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/reins-app/reins/core"
)

// runReleaseGuard is the dead man's switch Reins starts beside itself:
// it lives until the Reins that started it ends, however it ends, and then
// lets go of whatever Reins still held.
func runReleaseGuard(args []string) error {
	fs := flag.NewFlagSet(core.ReleaseGuardMode, flag.ContinueOnError)
	display := fs.String("display", "", "the X display; default $DISPLAY")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Only the end of its input ends it: signals meant for Reins' terminal
	// or session would leave Reins' keys down.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE)
	released, err := core.ServeReleaseGuard(os.Stdin, os.Stdout, *display)
	if len(released) > 0 {
		fmt.Fprintf(os.Stderr, "reins: Reins stopped while holding input; the release guard let go of %s\n", strings.Join(released, ", "))
	}
	return err
}

// releaseGuardProgram is this program, for Reins to start as its release
// guard, or "" when it cannot be found.
func releaseGuardProgram() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return exe
}
