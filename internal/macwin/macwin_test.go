package macwin

import "testing"

func TestTopRight(t *testing.T) {
	for _, tc := range []struct {
		name    string
		visible nsRect
		width   float64
		want    nsPoint
	}{
		{
			// A 1440×900 primary screen: 25 points of menu bar on top, the Dock
			// 70 points tall at the bottom.
			name:    "under the menu bar at the right",
			visible: nsRect{Origin: nsPoint{X: 0, Y: 70}, Size: nsSize{W: 1440, H: 805}},
			width:   420,
			want:    nsPoint{X: 1440 - 420 - margin, Y: 70 + 805 - margin},
		},
		{
			// A screen left of the primary one, and the Dock on its right edge.
			name:    "a screen at negative x",
			visible: nsRect{Origin: nsPoint{X: -1920, Y: 0}, Size: nsSize{W: 1850, H: 1055}},
			width:   420,
			want:    nsPoint{X: -1920 + 1850 - 420 - margin, Y: 1055 - margin},
		},
		{
			name:    "wider than the screen",
			visible: nsRect{Origin: nsPoint{X: 100, Y: 0}, Size: nsSize{W: 300, H: 500}},
			width:   420,
			want:    nsPoint{X: 100, Y: 500 - margin},
		},
	} {
		if got := topRight(tc.visible, tc.width); got != tc.want {
			t.Errorf("%s: topRight = %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

func TestScreenAt(t *testing.T) {
	// The primary screen at the origin, one to its left, one above it.
	frames := []nsRect{
		{Origin: nsPoint{X: 0, Y: 0}, Size: nsSize{W: 1440, H: 900}},
		{Origin: nsPoint{X: -1920, Y: -180}, Size: nsSize{W: 1920, H: 1080}},
		{Origin: nsPoint{X: 0, Y: 900}, Size: nsSize{W: 2560, H: 1440}},
	}
	for _, tc := range []struct {
		p    nsPoint
		want int
	}{
		{nsPoint{X: 700, Y: 400}, 0},
		{nsPoint{X: -5, Y: 400}, 1},
		{nsPoint{X: 0, Y: 400}, 0}, // on the line between 1 and 0: the right one's left edge
		{nsPoint{X: 2000, Y: 1200}, 2},
		{nsPoint{X: 700, Y: 900}, 2}, // the top edge of 0 is the bottom edge of 2
		{nsPoint{X: 3000, Y: 100}, -1},
	} {
		if got := screenAt(frames, tc.p); got != tc.want {
			t.Errorf("screenAt(%+v) = %d; want %d", tc.p, got, tc.want)
		}
	}
}
