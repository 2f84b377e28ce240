package grounding_test

import (
	"errors"
	"math"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// near allows float noise only; every geometry here is meant to be exact.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// viewport builds what a frame reports for a viewport of w×h DIP at zoom
// z with scrollbars of the given DIP widths: visualViewport is fractional,
// inner*/client* are whole CSS pixels.
func viewport(w, h, z, vbar, hbar float64) protocol.Viewport {
	return protocol.Viewport{
		Width: (w - vbar) / z, Height: (h - hbar) / z,
		InnerWidth: math.Round(w / z), InnerHeight: math.Round(h / z),
		ClientWidth: math.Round((w - vbar) / z), ClientHeight: math.Round((h - hbar) / z),
	}
}

func TestContentOrigin(t *testing.T) {
	cases := []struct {
		name   string
		w      protocol.Window
		v      protocol.Viewport
		zoom   float64
		wx, wy float64
	}{
		// The worked example: 87 DIP of tab strip and toolbar, no side border.
		{"zoom 1", protocol.Window{OuterWidth: 1000, OuterHeight: 700}, viewport(1000, 613, 1, 0, 0), 1, 0, 87},
		{"zoom 1 moved window with borders", protocol.Window{ScreenX: 100, ScreenY: 50, OuterWidth: 1016, OuterHeight: 716},
			viewport(1000, 613, 1, 0, 0), 1, 108, 145},
		// 613/1.5 = 408.67: innerHeight would say 409 and put the origin
		// half a DIP too high.
		{"zoom 1.5 fractional viewport", protocol.Window{OuterWidth: 1000, OuterHeight: 700}, viewport(1000, 613, 1.5, 0, 0), 1.5, 0, 87},
		{"zoom 1.5 moved window with borders", protocol.Window{ScreenX: 200, ScreenY: 100, OuterWidth: 1016, OuterHeight: 716},
			viewport(1000, 613, 1.5, 0, 0), 1.5, 208, 195},
		{"zoom 1.25", protocol.Window{ScreenX: 3, ScreenY: 4, OuterWidth: 1280, OuterHeight: 800}, viewport(1280, 713, 1.25, 0, 0), 1.25, 3, 91},
		// visualViewport.width leaves the scrollbar out; the browser's side
		// border does not grow because the page has one.
		{"vertical scrollbar", protocol.Window{OuterWidth: 1000, OuterHeight: 700}, viewport(1000, 613, 1, 15, 0), 1, 0, 87},
		{"vertical scrollbar with borders", protocol.Window{OuterWidth: 1016, OuterHeight: 716}, viewport(1000, 613, 1, 15, 0), 1, 8, 95},
		{"vertical scrollbar zoom 1.5", protocol.Window{OuterWidth: 1000, OuterHeight: 700}, viewport(1000, 613, 1.5, 15, 0), 1.5, 0, 87},
		{"horizontal scrollbar", protocol.Window{OuterWidth: 1000, OuterHeight: 700}, viewport(1000, 613, 1, 0, 15), 1, 0, 87},
		{"both scrollbars", protocol.Window{OuterWidth: 1016, OuterHeight: 716}, viewport(1000, 613, 1, 15, 15), 1, 8, 95},
		{"unknown zoom counts as 1", protocol.Window{OuterWidth: 1000, OuterHeight: 700}, viewport(1000, 613, 1, 0, 0), 0, 0, 87},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y := grounding.ContentOrigin(c.w, c.v, c.zoom)
			if !near(x, c.wx) || !near(y, c.wy) {
				t.Errorf("ContentOrigin = (%v, %v), want (%v, %v)", x, y, c.wx, c.wy)
			}
		})
	}
}

func TestDeviceScale(t *testing.T) {
	cases := []struct {
		dpr, zoom, want float64
	}{
		{1, 1, 1},
		{2, 1, 2},
		{3, 1.5, 2}, // devicePixelRatio includes the page zoom
		{1.5, 1.5, 1},
		{2.2, 1.1, 2}, // 2.2/1.1 is 2.0000000000000004 in floats
		{1.25, 1, 1.25},
		{2, 0, 2},
		{0, 1.5, 1}, // not reported
	}
	for _, c := range cases {
		if got := grounding.DeviceScale(protocol.Window{DPR: c.dpr}, c.zoom); got != c.want {
			t.Errorf("DeviceScale(dpr %v, zoom %v) = %v, want %v", c.dpr, c.zoom, got, c.want)
		}
	}
}

var (
	win1000 = protocol.Window{OuterWidth: 1000, OuterHeight: 700, DPR: 1}
	vp1000  = viewport(1000, 613, 1, 0, 0)
)

func TestToScreenMapsCSSPixelsToDIP(t *testing.T) {
	p, err := grounding.ToScreen(protocol.Point{X: 10, Y: 20}, win1000, vp1000, 1, nil)
	if err != nil || p != (grounding.ScreenPoint{X: 10, Y: 107, Scale: 1}) {
		t.Errorf("zoom 1: %+v, %v", p, err)
	}
	w := protocol.Window{ScreenX: 200, ScreenY: 100, OuterWidth: 1016, OuterHeight: 716, DPR: 3}
	p, err = grounding.ToScreen(protocol.Point{X: 100, Y: 200.5}, w, viewport(1000, 613, 1.5, 0, 0), 1.5, nil)
	if err != nil || !near(p.X, 358) || !near(p.Y, 495.75) || p.Scale != 2 {
		t.Errorf("zoom 1.5 at device scale 2: %+v, %v; want (358, 495.75) scale 2", p, err)
	}
}

func TestToScreenRefusesPointsOutsideTheViewport(t *testing.T) {
	for _, c := range []struct {
		name string
		p    protocol.Point
		v    protocol.Viewport
		zoom float64
	}{
		{"left of it", protocol.Point{X: -0.5, Y: 10}, vp1000, 1},
		{"above it", protocol.Point{X: 10, Y: -1}, vp1000, 1},
		{"at the right edge", protocol.Point{X: 1000, Y: 10}, vp1000, 1},
		{"at the bottom edge", protocol.Point{X: 10, Y: 613}, vp1000, 1},
		{"far below", protocol.Point{X: 10, Y: 5000}, vp1000, 1},
		{"past a zoomed viewport", protocol.Point{X: 666.7, Y: 10}, viewport(1000, 613, 1.5, 0, 0), 1.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := grounding.ToScreen(c.p, win1000, c.v, c.zoom, nil)
			if !errors.Is(err, grounding.ErrNotVisible) {
				t.Errorf("ToScreen = %+v, %v; want ErrNotVisible", p, err)
			}
		})
	}
	if _, err := grounding.ToScreen(protocol.Point{X: 666.6, Y: 408.6}, win1000, viewport(1000, 613, 1.5, 0, 0), 1.5, nil); err != nil {
		t.Errorf("the last sliver of a zoomed viewport was refused: %v", err)
	}
}

func TestCalibrateGivesTheExactOrigin(t *testing.T) {
	// A pointermove at fractional client coordinates, zoom 1.5, with the
	// content really at (0.5, 87.25).
	w := protocol.Window{OuterWidth: 1000, OuterHeight: 700, DPR: 1.5}
	c := grounding.Calibrate(protocol.Calibration{
		ScreenX: 0.5 + 1.5*100.25, ScreenY: 87.25 + 1.5*50.5, ClientX: 100.25, ClientY: 50.5, Window: w,
	}, 1.5)
	if !near(c.X, 0.5) || !near(c.Y, 87.25) || c.Zoom != 1.5 || c.Window != w {
		t.Errorf("Calibrate = %+v", c)
	}
	if c := grounding.Calibrate(protocol.Calibration{ScreenX: 110, ScreenY: 190, ClientX: 10, ClientY: 100}, 0); c.X != 100 || c.Y != 90 || c.Zoom != 1 {
		t.Errorf("Calibrate at unknown zoom = %+v, want origin (100, 90) at zoom 1", c)
	}
}

func TestToScreenCalibration(t *testing.T) {
	z := 1.5
	w := protocol.Window{ScreenX: 0, ScreenY: 0, OuterWidth: 1000, OuterHeight: 700, DPR: 1.5}
	v := viewport(1000, 613, z, 0, 0)
	pt := protocol.Point{X: 100, Y: 100}
	computed := grounding.ScreenPoint{X: 150, Y: 237, Scale: 1} // origin (0, 87)
	cases := []struct {
		name string
		cal  *grounding.Calibrated
		want grounding.ScreenPoint
	}{
		{"none", nil, computed},
		{"same window and zoom wins", &grounding.Calibrated{X: 0.5, Y: 86.5, Window: w, Zoom: z},
			grounding.ScreenPoint{X: 150.5, Y: 236.5, Scale: 1}},
		{"4 DIP off still trusted", &grounding.Calibrated{X: 4, Y: 83, Window: w, Zoom: z},
			grounding.ScreenPoint{X: 154, Y: 233, Scale: 1}},
		{"over 4 DIP off is ignored", &grounding.Calibrated{X: 0, Y: 91.5, Window: w, Zoom: z}, computed},
		{"over 4 DIP off sideways is ignored", &grounding.Calibrated{X: -4.5, Y: 87, Window: w, Zoom: z}, computed},
		{"window since moved is ignored", &grounding.Calibrated{X: 0.5, Y: 86.5, Window: protocol.Window{ScreenX: 1, OuterWidth: 1000, OuterHeight: 700, DPR: 1.5}, Zoom: z}, computed},
		{"window since resized is ignored", &grounding.Calibrated{X: 0.5, Y: 86.5, Window: protocol.Window{OuterWidth: 1000, OuterHeight: 701, DPR: 1.5}, Zoom: z}, computed},
		{"other zoom is ignored", &grounding.Calibrated{X: 0.5, Y: 86.5, Window: w, Zoom: 1.25}, computed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := grounding.ToScreen(pt, w, v, z, c.cal)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.X, c.want.X) || !near(got.Y, c.want.Y) || got.Scale != c.want.Scale {
				t.Errorf("ToScreen = %+v, want %+v", got, c.want)
			}
		})
	}
}
