package deskread

import (
	"errors"
	"fmt"
	"sync"

	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/macos"
	"github.com/reins-app/reins/internal/macos/ax"
)

// Mac reads macOS's desktop: applications' elements and a browser's
// dialogs through Accessibility (axread_darwin.go, jsdialog_darwin.go),
// pictures through ScreenCaptureKit or CGWindowList (capture_darwin.go).
// It calls the system frameworks through the bindings it shares with the
// executor (internal/macos, internal/macos/ax), and binds here only what
// the reads alone need.
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

// kCGWindowListOptionOnScreenOnly (CGWindow.h).
const cgWindowListOnScreen = 1 << 0

var (
	macOnce sync.Once
	macErr  error
)

// loadMac binds what every read needs, once: the CoreFoundation and
// Objective-C basics of internal/macos and Accessibility's of
// internal/macos/ax.
func loadMac() error {
	macOnce.Do(func() {
		if macErr = macos.Load(); macErr == nil {
			macErr = ax.Load()
		}
	})
	return macErr
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
