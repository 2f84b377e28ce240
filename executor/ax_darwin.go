package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/reins-app/reins/executor/internal/quartz"
	"github.com/reins-app/reins/internal/macos"
	"github.com/reins-app/reins/internal/macos/ax"
)

// The permission prompt, and the application with the keyboard focus,
// through the Accessibility bindings of internal/macos/ax.

// axTimeout bounds each Accessibility call, a synchronous IPC to the target
// application, which by default may block for seconds.
const axTimeout = 0.5

var (
	// CFDictionaryRef CGSessionCopyCurrentDictionary(void)
	cgSessionCopyCurrentDictionary func() uintptr
	// bool CGPreflightPostEventAccess(void), bool CGRequestPostEventAccess(void):
	// macOS 10.15 and later; nil before.
	cgPreflightPostEventAccess func() bool
	cgRequestPostEventAccess   func() bool
)

var (
	quartzOnce sync.Once
	quartzErr  error
)

// loadQuartz binds every function the macOS executor calls, once: the
// events and windows of package quartz, Accessibility (internal/macos/ax)
// and the session's questions here. A missing symbol is an error rather
// than purego's panic.
func loadQuartz() error {
	quartzOnce.Do(func() {
		if quartzErr = quartz.Load(); quartzErr != nil {
			return
		}
		if quartzErr = ax.Load(); quartzErr != nil {
			return
		}
		var b macos.Binder
		cg := b.Open(macos.CoreGraphics)
		b.Func(cg, "CGSessionCopyCurrentDictionary", &cgSessionCopyCurrentDictionary)
		if quartzErr = b.Err(); quartzErr != nil {
			return
		}
		macos.BindOptional(cg, "CGPreflightPostEventAccess", &cgPreflightPostEventAccess)
		macos.BindOptional(cg, "CGRequestPostEventAccess", &cgRequestPostEventAccess)
	})
	return quartzErr
}

var (
	promptOnce sync.Once
	promptMu   sync.Mutex // serialises the prompt with the checks around it
)

// RequestAccessibility reports whether macOS lets Reins post input (the
// test [Mac.CheckPermission] makes: AXIsProcessTrusted), and when it does
// not, has macOS ask the person, at most once per process: the system's
// dialog, whose button opens System Settings › Privacy & Security ›
// Accessibility. Later calls only check. The dialog does not wait for the
// answer, so trusted stays false until the person turns Reins on. err says
// why the frameworks cannot be used at all. On other systems Reins needs no
// such permission: (true, nil).
func RequestAccessibility() (trusted bool, err error) {
	if err := loadQuartz(); err != nil {
		return false, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	promptMu.Lock()
	defer promptMu.Unlock()
	if ax.IsProcessTrusted() && postEventAllowed() {
		return true, nil
	}
	promptOnce.Do(promptAccessibility)
	return ax.IsProcessTrusted(), nil
}

// postEventAllowed is CGPreflightPostEventAccess where macOS has it (10.15
// and later). It and AXIsProcessTrusted can disagree.
func postEventAllowed() bool {
	return cgPreflightPostEventAccess == nil || cgPreflightPostEventAccess()
}

// promptAccessibility asks with AXIsProcessTrustedWithOptions and, only
// when Accessibility is granted already but posting events is not, with
// CGRequestPostEventAccess: never two dialogs at once.
func promptAccessibility() {
	opts := macos.NewCFDictionary([]uintptr{ax.TrustedCheckOptionPrompt()}, []uintptr{macos.CFBooleanTrue()})
	if opts == 0 {
		return
	}
	trusted := ax.IsProcessTrustedWithOptions(opts)
	macos.CFRelease(opts)
	if trusted && !postEventAllowed() && cgRequestPostEventAccess != nil {
		cgRequestPostEventAccess()
	}
}

// AccessibilityStatus reports, without asking the person anything, whether
// macOS lets Reins post input (AXIsProcessTrusted, as
// [Mac.CheckPermission]), and whether Reins runs as a bare binary outside
// an .app bundle (its executable not in "*.app/Contents/MacOS/"): macOS
// then charges the permission to the terminal that started it, not to
// Reins. On other systems: (true, false, nil).
func AccessibilityStatus() (trusted, bareBinary bool, err error) {
	exe, err := os.Executable()
	if err != nil {
		return false, false, fmt.Errorf("cannot tell where Reins runs from: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	bare := outsideAppBundle(exe)
	if err := loadQuartz(); err != nil {
		return false, bare, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return ax.IsProcessTrusted(), bare, nil
}

var (
	systemWideOnce sync.Once
	systemWide     ax.Element // never released: one per process
)

// axSystemWide is the system-wide element, with the short messaging timeout
// set on it, which applies to every element.
func axSystemWide() (ax.Element, error) {
	systemWideOnce.Do(func() {
		el := ax.SystemWide()
		if el != 0 {
			el.SetMessagingTimeout(axTimeout)
		}
		systemWide = el
	})
	if systemWide == 0 {
		return 0, errors.New("macOS gave no system-wide Accessibility element")
	}
	return systemWide, nil
}

// focusedAppPID is the process of the application that has the keyboard
// focus now, read from Accessibility, which answers from the window server
// and the app at call time rather than at the last turn of a run loop.
func focusedAppPID() (int, error) {
	sw, err := axSystemWide()
	if err != nil {
		return 0, err
	}
	app, err := sw.CopyElement("AXFocusedApplication")
	if err != nil {
		return 0, err
	}
	defer app.Release()
	return app.PID()
}
