package deskread

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/executor"
)

// X11 reads an X desktop: applications' elements over AT-SPI, dialogs
// likewise, pictures over a connection to the X server of its own, so that
// a read never waits behind an act in flight.
type X11 struct {
	opts    Options
	conn    *xgb.Conn
	root    xproto.Window
	drained chan struct{} // closed when the connection's event stream ends
	a11y    x11Accessible

	mu     sync.Mutex
	closed bool // guarded by mu
}

var _ Reader = (*X11)(nil)

// errClosed: the reader was closed.
var errClosed = errors.New("the desktop reader is closed")

// NewX11 connects to the X display.
func NewX11(opts Options) (*X11, error) {
	display := opts.Display
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("%w: DISPLAY is not set; run Reins inside an X11 session", executor.ErrNoDisplay)
	}
	if opts.Windows == nil {
		return nil, errors.New("the desktop reader needs the executor's windows")
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot connect to the X display %s: %v", executor.ErrNoDisplay, display, err)
	}
	x := &X11{opts: opts, conn: conn, root: xproto.Setup(conn).DefaultScreen(conn).Root, drained: make(chan struct{})}
	// Events nobody selected still arrive (MappingNotify goes to every
	// client), and xgb stops reading replies once its event queue is full.
	go func() {
		defer close(x.drained)
		for {
			ev, xerr := conn.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
		}
	}()
	return x, nil
}

// Close closes the reader's connections; later reads fail.
func (x *X11) Close() error {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil
	}
	x.closed = true
	x.mu.Unlock()
	x.conn.Close()
	<-x.drained
	return x.a11y.close()
}

func (x *X11) isClosed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closed
}

// scale is device pixels per DIP.
func (x *X11) scale() float64 {
	if x.opts.Scale == nil {
		return 1
	}
	if s := x.opts.Scale(); s > 0 {
		return s
	}
	return 1
}
