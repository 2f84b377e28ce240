//go:build !linux

package deskread

import (
	"context"
	"errors"
	"time"

	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// AccessibleSource chooses how an application's elements are read.
type AccessibleSource int

// The sources; only Linux reads through AT-SPI.
const (
	AccessibleAuto AccessibleSource = iota
	AccessibleCache
	AccessibleWalk
)

// AccessibleOptions configures [OpenAccessible] and [ReadAccessible]; see
// the Linux implementation for the fields.
type AccessibleOptions struct {
	SessionBus  string
	Source      AccessibleSource
	MaxElements int
	MaxDepth    int
	MaxValue    int
	CallTimeout time.Duration
}

// Errors a reader of the desktop may see.
var (
	ErrNoAccessibilityBus = errors.New("reading native applications through AT-SPI is done on Linux only")
	ErrNoAccessibleApp    = errors.New("the application is not on the accessibility bus")
	ErrNoAccessibleWindow = errors.New("the application shows no window on the accessibility bus")
	ErrNoCache            = errors.New("the application offers no accessibility cache; read it element by element")
)

// AccessibleReader reads applications' accessibility elements; on this
// system there is no AT-SPI bus to read from.
type AccessibleReader struct{}

// OpenAccessible reports [ErrNoAccessibilityBus]: AT-SPI is Linux's.
func OpenAccessible(ctx context.Context, opts AccessibleOptions) (*AccessibleReader, error) {
	return nil, ErrNoAccessibilityBus
}

// ReadAccessible reports [ErrNoAccessibilityBus]: AT-SPI is Linux's.
func ReadAccessible(ctx context.Context, pid int, opts AccessibleOptions) (*gdesktop.Tree, error) {
	return nil, ErrNoAccessibilityBus
}

// Read reports [ErrNoAccessibilityBus].
func (r *AccessibleReader) Read(ctx context.Context, pid int) (*gdesktop.Tree, error) {
	return nil, ErrNoAccessibilityBus
}

// Close does nothing.
func (r *AccessibleReader) Close() error { return nil }
