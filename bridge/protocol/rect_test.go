package protocol

import "testing"

func TestRectIntersectAndMove(t *testing.T) {
	a := Rect{X: 0, Y: 0, W: 100, H: 50}
	for _, c := range []struct {
		b, want Rect
	}{
		{Rect{X: 50, Y: 10, W: 100, H: 100}, Rect{X: 50, Y: 10, W: 50, H: 40}},
		{Rect{X: 10, Y: 10, W: 5, H: 5}, Rect{X: 10, Y: 10, W: 5, H: 5}},
		{Rect{X: 200, Y: 0, W: 10, H: 10}, Rect{X: 200, Y: 0, W: 0, H: 10}}, // apart: no width
		{Rect{X: 0, Y: 50, W: 10, H: 10}, Rect{X: 0, Y: 50, W: 10, H: 0}},   // touching: no height
	} {
		if got := a.Intersect(c.b); got != c.want {
			t.Errorf("%+v ∩ %+v = %+v, want %+v", a, c.b, got, c.want)
		}
		if got := c.b.Intersect(a); got != c.want {
			t.Errorf("%+v ∩ %+v = %+v, want %+v (the other way round)", c.b, a, got, c.want)
		}
	}
	if got := a.Move(-5, 7); got != (Rect{X: -5, Y: 7, W: 100, H: 50}) {
		t.Errorf("Move = %+v", got)
	}
}
