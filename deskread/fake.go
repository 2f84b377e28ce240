package deskread

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"sync"

	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
)

// Fake is a [Reader] of a staged desktop, for tests of the stages that
// read before they fire. It reads the screens of the executor's Fake it
// was made with, so the two agree on one desktop; trees and dialogs are
// staged on it (SetAccessible, SetJSDialog). Set CaptureErr and
// WhileReading before the first call.
type Fake struct {
	// CaptureErr, if set, is what Capture fails with (ErrNoScreenRecording,
	// say).
	CaptureErr error
	// WhileReading, if set, is called as Accessible reads an application,
	// with its process id: tests use it to play a slow application.
	WhileReading func(pid int)

	desk *executor.Fake

	mu    sync.Mutex
	trees map[int]*gdesktop.Tree // guarded by mu: SetAccessible's
	dlgs  map[int]JSDialog       // guarded by mu: SetJSDialog's
}

var _ Reader = (*Fake)(nil)

// NewFake returns a reader of desk's desktop; a nil desk is a desktop of
// its own, with one boundless screen.
func NewFake(desk *executor.Fake) *Fake {
	if desk == nil {
		desk = &executor.Fake{}
	}
	return &Fake{desk: desk}
}

// SetJSDialog makes JSDialog answer d for the browser with process id pid;
// a nil d says it shows none.
func (f *Fake) SetJSDialog(pid int, d *JSDialog) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dlgs == nil {
		f.dlgs = map[int]JSDialog{}
	}
	if d == nil {
		delete(f.dlgs, pid)
		return
	}
	f.dlgs[pid] = *d
}

// JSDialog implements Reader: what SetJSDialog set for pid.
func (f *Fake) JSDialog(ctx context.Context, pid int) (JSDialog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.dlgs[pid]
	if !ok {
		return JSDialog{}, ErrNoDialog
	}
	return d, nil
}

// SetAccessible makes Accessible answer t for the application with process
// id pid; a nil t takes it off the fake accessibility bus.
func (f *Fake) SetAccessible(pid int, t *gdesktop.Tree) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.trees == nil {
		f.trees = map[int]*gdesktop.Tree{}
	}
	if t == nil {
		delete(f.trees, pid)
		return
	}
	f.trees[pid] = t
}

// Accessible implements Reader: the tree SetAccessible gave for pid, a
// copy each time.
func (f *Fake) Accessible(ctx context.Context, pid int) (*gdesktop.Tree, error) {
	if f.WhileReading != nil {
		f.WhileReading(pid)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.trees[pid]
	if !ok {
		return nil, ErrNoAccessibleApp
	}
	c := *t
	return &c, nil
}

// AccessibleAt implements Reader: the deepest element of pid's tree whose
// box holds the point, as an application would hand the pointer to it.
func (f *Fake) AccessibleAt(ctx context.Context, pid int, window string, x, y float64) (string, error) {
	t, err := f.Accessible(ctx, pid)
	if err != nil {
		return "", err
	}
	at := ""
	t.Walk(func(e *gdesktop.Element, _ int) bool {
		b := e.Box
		if !b.Empty() && x >= float64(b.X) && x < float64(b.X+b.W) && y >= float64(b.Y) && y < float64(b.Y+b.H) {
			at = e.ID
		}
		return true
	})
	return at, nil
}

// Capture implements Reader: a white picture of the desktop's first
// screen (1280×800 before SetScreens), at scale 1.
func (f *Fake) Capture(ctx context.Context) (Picture, error) {
	if f.CaptureErr != nil {
		return Picture{}, f.CaptureErr
	}
	w, h := 1280, 800
	if ss, _ := f.desk.Screens(ctx); len(ss) > 0 && ss[0].W < 1<<20 {
		w, h = int(ss[0].W), int(ss[0].H)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	return Picture{Image: img, Scale: 1}, nil
}

// Close does nothing: the desktop is the executor's Fake's.
func (f *Fake) Close() error { return nil }
