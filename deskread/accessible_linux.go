package deskread

import (
	"context"
	"math"
	"sync"

	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// x11Accessible is the X11 reader's connection to the accessibility bus,
// opened at the first read and again after one that failed to open.
type x11Accessible struct {
	mu     sync.Mutex
	reader *AccessibleReader // guarded by mu
	closed bool              // guarded by mu
	// factors are the appFactor of each window read, by process and
	// window element, for AccessibleAt.
	factors map[appWindow]float64 // guarded by mu
}

// appWindow is one window element of one application.
type appWindow struct {
	pid    int
	window string
}

func (a *x11Accessible) factor(w appWindow) float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.factors[w]; ok {
		return f
	}
	return 1
}

func (a *x11Accessible) setFactor(w appWindow, f float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.factors == nil || len(a.factors) > 256 {
		a.factors = map[appWindow]float64{}
	}
	a.factors[w] = f
}

// Accessible implements Reader, through AT-SPI on the session bus of
// Options.SessionBus (default $DBUS_SESSION_BUS_ADDRESS). Boxes are in
// DIP, as Options.Scale converts them from the device pixels X works
// in, after the application's own coordinates are turned into device
// pixels (appFactor).
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
	f := x.appFactor(ctx, pid, t.Root)
	x.a11y.setFactor(appWindow{pid, t.Root.ID}, f)
	if k := f / x.scale(); k != 1 {
		t.Walk(func(e *gdesktop.Element, _ int) bool {
			e.Box = gdesktop.Rect{X: int(float64(e.Box.X) * k), Y: int(float64(e.Box.Y) * k), W: int(float64(e.Box.W) * k), H: int(float64(e.Box.H) * k)}
			return true
		})
	}
	return t, nil
}

// AccessibleAt implements Reader, through AT-SPI: the point, in DIP, is
// asked of the application in its own coordinates, by the appFactor found
// when the window was last read (1 when it was not).
func (x *X11) AccessibleAt(ctx context.Context, pid int, window string, px, py float64) (string, error) {
	if x.isClosed() {
		return "", errClosed
	}
	r, err := x.a11y.open(ctx, x.opts.SessionBus, x.opts.AccessibleSource)
	if err != nil {
		return "", err
	}
	k := x.scale() / x.a11y.factor(appWindow{pid, window})
	return r.At(ctx, pid, window, int(px*k), int(py*k))
}

// appFactor is how many of the X screen's device pixels one unit of the
// application's accessibility coordinates is. Toolkits differ: GTK 3 under
// GDK_SCALE=2 reports logical pixels, half the device pixels X shows its
// window in; most report device pixels. The factor is read from the
// application's own window, as X has it and as the application reports it
// (root, its window's element): a whole number, the same in width and
// height, and, where the application has several windows, the one with
// root's title. Where it cannot be told, it is 1: the coordinates are
// taken as device pixels.
func (x *X11) appFactor(ctx context.Context, pid int, root gdesktop.Element) float64 {
	if root.Box.W <= 0 || root.Box.H <= 0 {
		return 1
	}
	ws, err := x.opts.Windows(ctx)
	if err != nil {
		return 1
	}
	s := x.scale()
	found, titled := 0.0, false
	for _, w := range ws {
		if w.App.PID != pid {
			continue
		}
		// Only a whole factor, as GDK_SCALE is, in both directions: a window
		// a little larger than its element (a client-side shadow) is not a
		// scale.
		fw, fh := w.W*s/float64(root.Box.W), w.H*s/float64(root.Box.H)
		f := math.Round(fw)
		if f < 1 || f > 8 || math.Abs(fw-f) > 0.03*f || math.Abs(fh-f) > 0.03*f {
			f = 1
		}
		switch {
		case w.Title == root.Name && root.Name != "" && !titled:
			found, titled = f, true
		case titled:
		case found == 0:
			found = f
		case found != f:
			return 1 // two windows that disagree, none named as root is
		}
	}
	if found == 0 {
		return 1
	}
	return found
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
