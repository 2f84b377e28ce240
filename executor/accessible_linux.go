package executor

import (
	"context"
	"sync"

	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// x11Accessible is an X11 executor's reader of the accessibility bus,
// opened at the first read and again after one that failed to open.
type x11Accessible struct {
	mu     sync.Mutex
	reader *AccessibleReader // guarded by mu
	closed bool              // guarded by mu
}

// Accessible implements Executor, through AT-SPI on the session bus of
// X11Options.SessionBus (default $DBUS_SESSION_BUS_ADDRESS). Boxes are in
// DIP, as X11Options.Scale converts them.
func (x *X11) Accessible(ctx context.Context, pid int) (*gdesktop.Tree, error) {
	if x.isClosed() {
		return nil, errClosed
	}
	r, err := x.a11y.open(ctx, x.opts.SessionBus, x.opts.AccessibleSource)
	if err != nil {
		return nil, err
	}
	t, err := r.Read(ctx, pid)
	if err != nil {
		return nil, err
	}
	// AT-SPI gives device pixels; every point an executor takes or gives
	// is DIP.
	if s := x.scale(); s != 1 {
		t.Walk(func(e *gdesktop.Element, _ int) bool {
			e.Box = gdesktop.Rect{X: int(float64(e.Box.X) / s), Y: int(float64(e.Box.Y) / s), W: int(float64(e.Box.W) / s), H: int(float64(e.Box.H) / s)}
			return true
		})
	}
	return t, nil
}

// AccessibleAt implements Executor, through AT-SPI.
func (x *X11) AccessibleAt(ctx context.Context, pid int, window string, px, py float64) (string, error) {
	if x.isClosed() {
		return "", errClosed
	}
	r, err := x.a11y.open(ctx, x.opts.SessionBus, x.opts.AccessibleSource)
	if err != nil {
		return "", err
	}
	s := x.scale()
	return r.At(ctx, pid, window, int(px*s), int(py*s))
}

func (a *x11Accessible) open(ctx context.Context, bus string, source AccessibleSource) (*AccessibleReader, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errClosed
	}
	if a.reader == nil {
		r, err := OpenAccessible(ctx, AccessibleOptions{SessionBus: bus, Source: source})
		if err != nil {
			return nil, err
		}
		a.reader = r
	}
	return a.reader, nil
}

func (a *x11Accessible) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.reader == nil {
		return nil
	}
	err := a.reader.Close()
	a.reader = nil
	return err
}
