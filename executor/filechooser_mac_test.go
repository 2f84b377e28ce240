package executor

import "testing"

// A sheet's frame, as Accessibility gives it, is matched to a window's, as
// the window server gives it, to within a point.
func TestFramesAreComparedToWithinAPoint(t *testing.T) {
	panel := macBounds{X: 250, Y: 53, Width: 700, Height: 450}
	if !sameBounds(macBounds{X: 250.4, Y: 53, Width: 700, Height: 449.6}, panel) || sameBounds(macBounds{X: 260, Y: 53, Width: 700, Height: 450}, panel) {
		t.Error("frames are compared to within a point")
	}
}
