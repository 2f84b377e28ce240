// Package macwin gives Reins' windows their place among macOS's: it makes
// Reins an accessory app, with no Dock icon; lifts the approval popup above
// other windows, on every Space, just under the menu bar at the right of
// the screen the person is using; and hands the keyboard back to the
// application the person was using once the popup has been answered. On
// macOS with cgo it calls AppKit through darwinkit's typed API; what
// darwinkit lacks (macOS 14's activation hand-off) goes through
// internal/macos. Elsewhere its functions do nothing, so that their callers
// build and are vetted on any system.
//
// AppKit must only be called on the main thread, so every function here
// must be called from fyne's main goroutine: inside a window's RunNative
// callback, a fyne.Do callback or the app's lifecycle hooks, never from a
// goroutine of one's own.
package macwin

import "sync"

// margin is the gap, in points, between the popup and the menu bar above it
// and between the popup and the screen's right edge.
const margin = 8

// point and rect are AppKit's NSPoint and NSRect, in its screen
// coordinates: from the bottom left of the primary screen, growing upwards.
type point struct{ X, Y float64 }

type rect struct {
	X, Y, W, H float64 // origin (bottom left) and size
}

// screenAt is the index of the screen frame p lies in, or -1. A frame
// holds its bottom and left edges, not its top and right ones, so a point
// on the line between two screens belongs to one of them.
func screenAt(frames []rect, p point) int {
	for i, f := range frames {
		if p.X >= f.X && p.X < f.X+f.W && p.Y >= f.Y && p.Y < f.Y+f.H {
			return i
		}
	}
	return -1
}

// topRight returns where a window width points wide puts its top-left
// corner to sit at the top right of visible, a screen's visibleFrame: the
// part below the menu bar and beside the Dock. The top of visible is its
// origin's y plus its height.
func topRight(visible rect, width float64) point {
	x := visible.X + visible.W - width - margin
	if x < visible.X {
		x = visible.X // wider than the screen: keep its left edge on it
	}
	return point{X: x, Y: visible.Y + visible.H - margin}
}

// frontMemory is the application the person was using before Reins took
// the keyboard for a question: noted when the question comes up, replaced
// by each other application the person brings to the front while it
// waits, and handed back once nothing waits. A of the zero value is no
// application. hold and drop keep an application alive while it is
// remembered (retain and release, on macOS).
type frontMemory[A comparable] struct {
	hold, drop func(A)

	mu      sync.Mutex
	waiting bool // a question is up: activations are followed; guarded by mu
	app     A    // held; zero for none; guarded by mu
}

// remember is called as a question comes up, with the application in
// front; isReins says it is Reins itself (a question already up, or a
// window of Reins' in use), which is never remembered.
func (m *frontMemory[A]) remember(front A, isReins bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waiting = true
	m.replace(front, isReins)
}

// activated follows an application coming to the front while a question
// waits: the person moved to it, and it is the one to go back to.
func (m *frontMemory[A]) activated(app A, isReins bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.waiting {
		m.replace(app, isReins)
	}
}

// replace holds app in place of the one remembered; mu is held.
func (m *frontMemory[A]) replace(app A, isReins bool) {
	var none A
	if app == none || isReins || app == m.app {
		return
	}
	m.hold(app)
	if m.app != none {
		m.drop(m.app)
	}
	m.app = app
}

// take ends the wait and returns the application to hand the keyboard
// back to, which the caller drops once done with it; false for none.
func (m *frontMemory[A]) take() (A, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var none A
	app := m.app
	m.app, m.waiting = none, false
	return app, app != none
}
