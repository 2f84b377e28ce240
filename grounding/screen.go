package grounding

import (
	"errors"
	"fmt"
	"math"

	"github.com/reins-app/reins/bridge/protocol"
)

// ScreenPoint is a position on screen in DIP (points), with the display's
// device pixels per DIP.
type ScreenPoint struct {
	X, Y  float64
	Scale float64
}

// ErrNotVisible is wrapped when a point falls outside what is on screen.
var ErrNotVisible = errors.New("the element is outside the visible part of the tab; scroll it into view first")

// ContentOrigin is where the top frame's viewport starts on screen, in DIP.
//
// Chrome reports the window's outer box (screenX/Y, outerWidth/Height) in DIP
// and the viewport in CSS pixels; at zoom z a CSS pixel is z DIP. The browser
// frame has equal side borders, so the side border is half the width left
// over, and the top of the viewport sits the viewport's height plus that
// border above the window's bottom edge. Scrollbars belong to the viewport:
// the widths used include them.
func ContentOrigin(w protocol.Window, v protocol.Viewport, zoom float64) (x, y float64) {
	if zoom <= 0 {
		zoom = 1
	}
	width := v.Width + math.Max(0, v.InnerWidth-v.ClientWidth)
	height := v.Height + math.Max(0, v.InnerHeight-v.ClientHeight)
	bx := (w.OuterWidth - width*zoom) / 2
	if bx < 0 {
		bx = 0
	}
	return w.ScreenX + bx, w.ScreenY + (w.OuterHeight - height*zoom) - bx
}

// DeviceScale is device pixels per DIP: devicePixelRatio includes the zoom.
func DeviceScale(w protocol.Window, zoom float64) float64 {
	if zoom <= 0 {
		zoom = 1
	}
	if w.DPR <= 0 {
		return 1
	}
	s := w.DPR / zoom
	// Scales are whole or simple fractions; snap off float noise.
	return math.Round(s*100) / 100
}

// Calibrated is a pointer calibration: the top frame's content origin as a
// trusted pointer event measured it, with the window it was measured in.
type Calibrated struct {
	X, Y   float64
	Window protocol.Window
	Zoom   float64
}

// Calibrate turns a pointer event seen by the top frame into an origin.
func Calibrate(c protocol.Calibration, zoom float64) Calibrated {
	if zoom <= 0 {
		zoom = 1
	}
	return Calibrated{X: c.ScreenX - zoom*c.ClientX, Y: c.ScreenY - zoom*c.ClientY, Window: c.Window, Zoom: zoom}
}

// ToScreen maps a point in the top frame's viewport (CSS pixels) to the
// screen. A calibration taken in the same window geometry and zoom wins over
// the computed origin, which it measures exactly; one that disagrees with the
// computation by more than a few DIP while the window is unchanged is not
// trusted. The point must lie inside the viewport.
func ToScreen(p protocol.Point, w protocol.Window, v protocol.Viewport, zoom float64, cal *Calibrated) (ScreenPoint, error) {
	if zoom <= 0 {
		zoom = 1
	}
	if p.X < 0 || p.Y < 0 || p.X >= v.Width+math.Max(0, v.InnerWidth-v.ClientWidth) || p.Y >= v.Height+math.Max(0, v.InnerHeight-v.ClientHeight) {
		return ScreenPoint{}, fmt.Errorf("%w (at %.0f,%.0f in a %.0f×%.0f viewport)", ErrNotVisible, p.X, p.Y, v.Width, v.Height)
	}
	ox, oy := ContentOrigin(w, v, zoom)
	if cal != nil && cal.Window == w && cal.Zoom == zoom && math.Abs(cal.X-ox) <= 4 && math.Abs(cal.Y-oy) <= 4 {
		ox, oy = cal.X, cal.Y
	}
	return ScreenPoint{X: ox + p.X*zoom, Y: oy + p.Y*zoom, Scale: DeviceScale(w, zoom)}, nil
}
