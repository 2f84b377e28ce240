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
