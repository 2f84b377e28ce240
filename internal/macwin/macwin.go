// Package macwin gives Reins' approval popup its place on macOS: above
// other windows and on every Space, just under the menu bar at the right of
// the screen; and makes Reins an accessory app, with no Dock icon. On other
// systems its functions do nothing.
//
// AppKit must only be called on the main thread, so every function here
// must be called from fyne's main goroutine: inside a window's RunNative
// callback, a fyne.Do callback or the app's lifecycle hooks, never from a
// goroutine of one's own.
package macwin

import "structs"

// margin is the gap, in points, between the popup and the menu bar above it
// and between the popup and the screen's right edge.
const margin = 8

// nsPoint, nsSize and nsRect are AppKit's NSPoint, NSSize and NSRect
// (CGFloat is a double on 64-bit macOS).
type nsPoint struct {
	_    structs.HostLayout
	X, Y float64
}

type nsSize struct {
	_    structs.HostLayout
	W, H float64
}

type nsRect struct {
	_      structs.HostLayout
	Origin nsPoint
	Size   nsSize
}

// screenAt is the index of the screen frame p lies in, or -1. A frame
// holds its bottom and left edges, not its top and right ones, so a point
// on the line between two screens belongs to one of them.
func screenAt(frames []nsRect, p nsPoint) int {
	for i, f := range frames {
		if p.X >= f.Origin.X && p.X < f.Origin.X+f.Size.W && p.Y >= f.Origin.Y && p.Y < f.Origin.Y+f.Size.H {
			return i
		}
	}
	return -1
}

// topRight returns where a window width points wide puts its top-left
// corner to sit at the top right of visible, a screen's visibleFrame: the
// part below the menu bar and beside the Dock. AppKit's screen coordinates
// start at the bottom left of the primary screen and grow upwards, so the
// top of visible is its origin's y plus its height.
func topRight(visible nsRect, width float64) nsPoint {
	x := visible.Origin.X + visible.Size.W - width - margin
	if x < visible.Origin.X {
		x = visible.Origin.X // wider than the screen: keep its left edge on it
	}
	return nsPoint{X: x, Y: visible.Origin.Y + visible.Size.H - margin}
}
