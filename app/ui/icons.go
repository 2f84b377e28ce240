package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"

	"fyne.io/fyne/v2"
)

// iconPx is the tray icon's size in pixels: 22 pt at 2×.
const iconPx = 44

var (
	iconOnce  sync.Once
	iconCache [4]fyne.Resource
)

// TrayIcon is the tray's icon for a state: black on transparent, so that on
// macOS it can be a template image that follows light and dark menu bars.
func TrayIcon(i Icon) fyne.Resource {
	iconOnce.Do(func() {
		for s := IconIdle; s <= IconPaused; s++ {
			var buf bytes.Buffer
			png.Encode(&buf, drawIcon(s))
			iconCache[s] = fyne.NewStaticResource("reins-"+s.String()+".png", buf.Bytes())
		}
	})
	return iconCache[i]
}

// drawIcon draws the reins: a ring held by two straps. Idle is the outline;
// connected fills the ring; waiting adds a dot; paused strikes it through.
func drawIcon(state Icon) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, iconPx, iconPx))
	const cx, cy, r, stroke = 22.0, 17.0, 11.0, 3.6
	shape := func(x, y float64) bool {
		d := math.Hypot(x-cx, y-cy)
		ring := d <= r && d >= r-stroke
		if state == IconConnected || state == IconWaiting {
			ring = d <= r
		}
		// Two straps from the ring's lower sides to the bottom corners.
		strap := func(x0, y0, x1, y1 float64) bool { return segDist(x, y, x0, y0, x1, y1) <= stroke/2 }
		straps := strap(cx-7, cy+8, 8, 40) || strap(cx+7, cy+8, 36, 40)
		on := ring || straps
		switch state {
		case IconWaiting:
			// A notch around the dot keeps it apart from the ring.
			dd := math.Hypot(x-35, y-8)
			if dd <= 8.5 {
				on = dd <= 6
			}
		case IconPaused:
			// The slash, with a gap on each side of it.
			sd := segDist(x, y, 6, 38, 38, 4)
			if sd <= 4.2 {
				on = sd <= 1.9
			}
		}
		return on
	}
	const n = 4
	for y := 0; y < iconPx; y++ {
		for x := 0; x < iconPx; x++ {
			hits := 0
			for sy := 0; sy < n; sy++ {
				for sx := 0; sx < n; sx++ {
					if shape(float64(x)+(float64(sx)+0.5)/n, float64(y)+(float64(sy)+0.5)/n) {
						hits++
					}
				}
			}
			img.SetNRGBA(x, y, color.NRGBA{A: uint8(hits * 255 / (n * n))})
		}
	}
	return img
}

// segDist is the distance from (x, y) to the segment (x0, y0)–(x1, y1).
func segDist(x, y, x0, y0, x1, y1 float64) float64 {
	dx, dy := x1-x0, y1-y0
	t := ((x-x0)*dx + (y-y0)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(x-(x0+t*dx), y-(y0+t*dy))
}
