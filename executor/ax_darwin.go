package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/reins-app/reins/executor/internal/quartz"
	"github.com/reins-app/reins/internal/macos"
)

// Accessibility (HIServices, through ApplicationServices) through purego:
// the permission prompt, and a small typed layer over AXUIElement.

// axError is an AXError other than kAXErrorSuccess.
type axError int32

const (
	axSuccess              axError = 0
	axFailure              axError = -25200
	axIllegalArgument      axError = -25201
	axInvalidUIElement     axError = -25202
	axCannotComplete       axError = -25204
	axAttributeUnsupported axError = -25205
	axAPIDisabled          axError = -25211
	axNoValue              axError = -25212
)

func (e axError) Error() string {
	switch e {
	case axFailure:
		return "the Accessibility call failed (kAXErrorFailure)"
	case axIllegalArgument:
		return "the Accessibility call was given a bad argument (kAXErrorIllegalArgument)"
	case axInvalidUIElement:
		return "the element is gone (kAXErrorInvalidUIElement)"
	case axCannotComplete:
		return "the application did not answer in time (kAXErrorCannotComplete)"
	case axAttributeUnsupported:
		return "the element has no such attribute (kAXErrorAttributeUnsupported)"
	case axAPIDisabled:
		return "Reins has no Accessibility permission (kAXErrorAPIDisabled)"
	case axNoValue:
		return "the attribute has no value (kAXErrorNoValue)"
	}
	return fmt.Sprintf("AXError %d", int32(e))
}

func axErr(rc int32) error {
	if axError(rc) == axSuccess {
		return nil
	}
	return axError(rc)
}

// axTimeout bounds each Accessibility call, a synchronous IPC to the target
// application, which by default may block for seconds.
const axTimeout = 0.5

var (
	// Boolean AXIsProcessTrustedWithOptions(CFDictionaryRef options)
	axIsProcessTrustedWithOptions func(options uintptr) bool
	// AXUIElementRef AXUIElementCreateSystemWide(void)
	axUIElementCreateSystemWide func() uintptr
	// AXError AXUIElementCopyAttributeValue(AXUIElementRef, CFStringRef, CFTypeRef *value)
	axUIElementCopyAttributeValue func(el, attr uintptr, value *uintptr) int32
	// AXError AXUIElementGetPid(AXUIElementRef, pid_t *pid)
	axUIElementGetPid func(el uintptr, pid *int32) int32
	// AXError AXUIElementSetMessagingTimeout(AXUIElementRef, float timeoutInSeconds)
	axUIElementSetMessagingTimeout func(el uintptr, seconds float32) int32
	// CFDictionaryRef CGSessionCopyCurrentDictionary(void)
	cgSessionCopyCurrentDictionary func() uintptr
	// bool CGPreflightPostEventAccess(void), bool CGRequestPostEventAccess(void):
	// macOS 10.15 and later; nil before.
	cgPreflightPostEventAccess func() bool
	cgRequestPostEventAccess   func() bool

	kAXTrustedCheckOptionPrompt uintptr // CFStringRef
)

var (
	quartzOnce sync.Once
	quartzErr  error
)

// loadQuartz binds every function the macOS executor calls, once: the
// events, windows and displays of package quartz, and the Accessibility
// layer here. A missing symbol is an error rather than purego's panic.
func loadQuartz() error {
	quartzOnce.Do(func() {
		if quartzErr = quartz.Load(); quartzErr != nil {
			return
		}
		var b macos.Binder
		bindAX(&b, b.Open(macos.CoreGraphics), b.Open(macos.ApplicationServices))
		quartzErr = b.Err()
	})
	return quartzErr
}

// bindAX binds the Accessibility layer with the frameworks' handles.
func bindAX(b *macos.Binder, cg, as uintptr) {
	b.Func(as, "AXIsProcessTrustedWithOptions", &axIsProcessTrustedWithOptions)
	b.Func(as, "AXUIElementCreateSystemWide", &axUIElementCreateSystemWide)
	b.Func(as, "AXUIElementCopyAttributeValue", &axUIElementCopyAttributeValue)
	b.Func(as, "AXUIElementGetPid", &axUIElementGetPid)
	b.Func(as, "AXUIElementSetMessagingTimeout", &axUIElementSetMessagingTimeout)
	b.Func(cg, "CGSessionCopyCurrentDictionary", &cgSessionCopyCurrentDictionary)
	b.Global(as, "kAXTrustedCheckOptionPrompt", &kAXTrustedCheckOptionPrompt)
	macos.BindOptional(cg, "CGPreflightPostEventAccess", &cgPreflightPostEventAccess)
	macos.BindOptional(cg, "CGRequestPostEventAccess", &cgRequestPostEventAccess)
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
	if quartz.AXIsProcessTrusted() && postEventAllowed() {
		return true, nil
	}
	promptOnce.Do(promptAccessibility)
	return quartz.AXIsProcessTrusted(), nil
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
	opts := macos.NewCFDictionary([]uintptr{kAXTrustedCheckOptionPrompt}, []uintptr{macos.CFBooleanTrue()})
	if opts == 0 {
		return
	}
	trusted := axIsProcessTrustedWithOptions(opts)
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
	return quartz.AXIsProcessTrusted(), bare, nil
}

// axElement is an AXUIElementRef the caller owns.
type axElement uintptr

var (
	systemWideOnce sync.Once
	systemWide     axElement // never released: one per process
)

// axSystemWide is the system-wide element, with the short messaging timeout
// set on it, which applies to every element.
func axSystemWide() (axElement, error) {
	systemWideOnce.Do(func() {
		el := axUIElementCreateSystemWide()
		if el != 0 {
			axUIElementSetMessagingTimeout(el, axTimeout)
		}
		systemWide = axElement(el)
	})
	if systemWide == 0 {
		return 0, errors.New("macOS gave no system-wide Accessibility element")
	}
	return systemWide, nil
}

var (
	cfConstsMu sync.Mutex
	cfConsts   = map[string]uintptr{} // guarded by cfConstsMu; kept for the process
)

// cfConst is a CFString for a constant the headers define as a CFSTR
// macro rather than export as a symbol: the kAX…Attribute names, the
// session dictionary's keys.
func cfConst(name string) (uintptr, error) {
	cfConstsMu.Lock()
	defer cfConstsMu.Unlock()
	if s, ok := cfConsts[name]; ok {
		return s, nil
	}
	s := macos.NewCFString(name)
	if s == 0 {
		return 0, fmt.Errorf("cannot make the CFString %q", name)
	}
	cfConsts[name] = s
	return s, nil
}

// copyAttribute returns the value of attribute name, which the caller must
// CFRelease.
func (e axElement) copyAttribute(name string) (uintptr, error) {
	attr, err := cfConst(name)
	if err != nil {
		return 0, err
	}
	var v uintptr
	if err := axErr(axUIElementCopyAttributeValue(uintptr(e), attr, &v)); err != nil {
		return 0, fmt.Errorf("cannot read %s: %w", name, err)
	}
	if v == 0 {
		return 0, fmt.Errorf("cannot read %s: %w", name, axNoValue)
	}
	return v, nil
}

// copyElement is an attribute whose value is an element, such as
// AXFocusedApplication; the caller releases it.
func (e axElement) copyElement(name string) (axElement, error) {
	v, err := e.copyAttribute(name)
	return axElement(v), err
}

// pid is the process that owns the element.
func (e axElement) pid() (int, error) {
	var p int32
	if err := axErr(axUIElementGetPid(uintptr(e), &p)); err != nil {
		return 0, fmt.Errorf("cannot read the element's process: %w", err)
	}
	return int(p), nil
}

func (e axElement) release() {
	if e != 0 {
		macos.CFRelease(uintptr(e))
	}
}

// focusedAppPID is the process of the application that has the keyboard
// focus now, read from Accessibility, which answers from the window server
// and the app at call time rather than at the last turn of a run loop.
func focusedAppPID() (int, error) {
	sw, err := axSystemWide()
	if err != nil {
		return 0, err
	}
	app, err := sw.copyElement("AXFocusedApplication")
	if err != nil {
		return 0, err
	}
	defer app.release()
	return app.pid()
}
