package deskread

import (
	"errors"
	"fmt"
	"sync"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/macos"
)

// Mac reads macOS's desktop: applications' elements and a browser's
// dialogs through Accessibility (axread_darwin.go, jsdialog_darwin.go),
// pictures through ScreenCaptureKit or CGWindowList (capture_darwin.go).
// It calls the same system frameworks as the executor, bound here for the
// reads alone.
type Mac struct {
	mu     sync.Mutex
	closed bool // guarded by mu
}

var _ Reader = (*Mac)(nil)

// errClosed: the reader was closed.
var errClosed = errors.New("the desktop reader is closed")

// New returns the reader of macOS's desktop. Options are X11's, and
// ignored here.
func New(opts Options) (Reader, error) { return NewMac() }

// NewMac loads the system frameworks. It succeeds without the
// Accessibility and Screen Recording permissions, which the person may
// grant later; every read checks them.
func NewMac() (*Mac, error) {
	if err := loadMac(); err != nil {
		return nil, fmt.Errorf("%w: %v", executor.ErrUnsupported, err)
	}
	return &Mac{}, nil
}

// Close makes later reads fail.
func (m *Mac) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

func (m *Mac) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// CoreGraphics' geometry, as its functions take and return it.
type (
	cgPoint struct{ X, Y float64 }
	cgSize  struct{ W, H float64 }
	cgRect  struct {
		Origin cgPoint
		Size   cgSize
	}
)

// maxDisplays is more displays than any Mac drives at once.
const maxDisplays = 32

// kCGWindowListOptionOnScreenOnly (CGWindow.h).
const cgWindowListOnScreen = 1 << 0

var (
	// Boolean AXIsProcessTrusted(void)
	axIsProcessTrusted func() bool
	// AXError AXUIElementGetPid(AXUIElementRef, pid_t *pid)
	axUIElementGetPid func(el uintptr, pid *int32) int32
	// AXError AXUIElementCopyAttributeValue(AXUIElementRef, CFStringRef, CFTypeRef *value)
	axUIElementCopyAttributeValue func(el, attr uintptr, value *uintptr) int32
	// AXError AXUIElementSetMessagingTimeout(AXUIElementRef, float timeoutInSeconds)
	axUIElementSetMessagingTimeout func(el uintptr, seconds float32) int32
	// CGError CGGetActiveDisplayList(uint32_t, CGDirectDisplayID *, uint32_t *)
	cgGetActiveDisplayList func(max uint32, displays *uint32, count *uint32) int32
	// CGRect CGDisplayBounds(CGDirectDisplayID)
	cgDisplayBounds func(display uint32) cgRect

	macOnce sync.Once
	macErr  error
)

// loadMac binds what every read needs, once, after the CoreFoundation and
// Objective-C basics of internal/macos.
func loadMac() error {
	macOnce.Do(func() {
		if err := macos.Load(); err != nil {
			macErr = err
			return
		}
		var b macos.Binder
		cg, as := b.Open(macos.CoreGraphics), b.Open(macos.ApplicationServices)
		b.Func(as, "AXIsProcessTrusted", &axIsProcessTrusted)
		b.Func(as, "AXUIElementGetPid", &axUIElementGetPid)
		b.Func(as, "AXUIElementCopyAttributeValue", &axUIElementCopyAttributeValue)
		b.Func(as, "AXUIElementSetMessagingTimeout", &axUIElementSetMessagingTimeout)
		b.Func(cg, "CGGetActiveDisplayList", &cgGetActiveDisplayList)
		b.Func(cg, "CGDisplayBounds", &cgDisplayBounds)
		macErr = b.Err()
	})
	return macErr
}

// axError is an AXError other than kAXErrorSuccess.
type axError int32

func (e axError) Error() string {
	switch int32(e) {
	case axCodeIllegalArgument:
		return "the Accessibility call was given a bad argument (kAXErrorIllegalArgument)"
	case axCodeInvalidUIElement:
		return "the element is gone (kAXErrorInvalidUIElement)"
	case axCodeCannotComplete:
		return "the application did not answer in time (kAXErrorCannotComplete)"
	case axCodeAttrUnsupported:
		return "the element has no such attribute (kAXErrorAttributeUnsupported)"
	case axCodeAPIDisabled:
		return "Reins has no Accessibility permission (kAXErrorAPIDisabled)"
	case axCodeNoValue:
		return "the attribute has no value (kAXErrorNoValue)"
	}
	return fmt.Sprintf("AXError %d", int32(e))
}

func axErr(rc int32) error {
	if rc == 0 {
		return nil
	}
	return axError(rc)
}

var (
	cfConstsMu sync.Mutex
	cfConsts   = map[string]uintptr{} // guarded by cfConstsMu; kept for the process
)

// cfConst is a CFString for a constant the headers define as a CFSTR
// macro rather than export as a symbol: the kAX…Attribute names.
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

// appName is the name of the application with process id pid, "" when
// macOS does not know it.
func appName(pid int) string {
	var name string
	macos.WithPool(func() {
		if ra := macos.AppWithPID(pid); ra != 0 {
			name = ra.Name()
		}
	})
	return name
}
