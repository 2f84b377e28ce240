package deskread

import (
	"errors"
	"github.com/reins-app/reins/executor"
	"image"
	"image/color"
	"testing"
)

func TestParseMacVersion(t *testing.T) {
	for in, want := range map[string]macVersion{"14": {14}, "14.4": {14, 4}, "15.1.1\n": {15, 1, 1}, "10.16": {10, 16}} {
		if got, err := parseMacVersion(in); err != nil || got != want {
			t.Errorf("parseMacVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fourteen", "14.x", "1.2.3.4", "-1"} {
		if _, err := parseMacVersion(in); err == nil {
			t.Errorf("parseMacVersion(%q) gave no error", in)
		}
	}
}

// TestCaptureUsesScreenCaptureKitFromMacOS14: SCScreenshotManager from 14
// on, CGWindowListCreateImage only before, and never the old call on 15,
// where it brings the "bypass the system private window picker" alert.
func TestCaptureUsesScreenCaptureKitFromMacOS14(t *testing.T) {
	for _, tc := range []struct {
		v                   macVersion
		manager, windowList bool
		want                captureWay
		unsupported         bool
	}{
		{macVersion{12, 7, 4}, false, true, captureWithWindowList, false},
		{macVersion{13, 6, 0}, false, true, captureWithWindowList, false},
		{macVersion{14, 0, 0}, true, true, captureWithScreenshotManager, false},
		{macVersion{14, 4, 1}, true, true, captureWithScreenshotManager, false},
		{macVersion{15, 1, 0}, true, true, captureWithScreenshotManager, false},
		{macVersion{26, 0, 0}, true, false, captureWithScreenshotManager, false},
		// The version an old SDK's compatibility shim reports on 11 and
		// later: the class tells.
		{macVersion{10, 16, 0}, true, true, captureWithScreenshotManager, false},
		{macVersion{10, 16, 0}, false, true, captureWithWindowList, false},
		// A 14 whose ScreenCaptureKit would not load: the old call still
		// works there.
		{macVersion{14, 2, 0}, false, true, captureWithWindowList, false},
		{macVersion{15, 0, 0}, false, true, 0, true},
		{macVersion{13, 0, 0}, false, false, 0, true},
	} {
		got, err := chooseCapture(tc.v, tc.manager, tc.windowList)
		if tc.unsupported {
			if !errors.Is(err, executor.ErrUnsupported) {
				t.Errorf("macOS %v (manager %v, window list %v): %v, %v; want executor.ErrUnsupported", tc.v, tc.manager, tc.windowList, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("macOS %v (manager %v, window list %v): %v, %v; want %v", tc.v, tc.manager, tc.windowList, got, err, tc.want)
		}
	}
}

func TestCapturePlanTakesEveryDisplayAtTheHighestScale(t *testing.T) {
	displays := []macDisplay{
		{ID: 1, Bounds: executor.Screen{X: 0, Y: 0, W: 1512, H: 982}, PixelWidth: 3024},        // the built-in Retina display
		{ID: 2, Bounds: executor.Screen{X: 1512, Y: 0, W: 1920, H: 1080}, PixelWidth: 1920},    // an external one at 1×, to the right
		{ID: 3, Bounds: executor.Screen{X: -1920, Y: 0, W: 1920, H: 1080}, PixelWidth: 1920},   // left of the main one: left out
		{ID: 4, Bounds: executor.Screen{X: 200, Y: -1080, W: 1920, H: 1080}, PixelWidth: 1920}, // above it: left out
	}
	p, ok := planCapture(displays)
	if !ok {
		t.Fatal("no plan")
	}
	if p.Scale != 2 || p.Width != 2*(1512+1920) || p.Height != 2*1080 {
		t.Fatalf("plan %d×%d at %g; want %d×%d at 2", p.Width, p.Height, p.Scale, 2*(1512+1920), 2*1080)
	}
	want := []captureTile{{ID: 1, X: 0, Y: 0, W: 3024, H: 1964}, {ID: 2, X: 3024, Y: 0, W: 3840, H: 2160}}
	if len(p.Tiles) != len(want) {
		t.Fatalf("tiles %+v; want %+v", p.Tiles, want)
	}
	for i := range want {
		if p.Tiles[i] != want[i] {
			t.Errorf("tile %d: %+v; want %+v", i, p.Tiles[i], want[i])
		}
	}
	if _, ok := planCapture(displays[2:]); ok {
		t.Error("displays only left of and above the main one gave a plan")
	}
}

func TestCapturePlanComposesThePictures(t *testing.T) {
	p, _ := planCapture([]macDisplay{
		{ID: 1, Bounds: executor.Screen{X: 0, Y: 0, W: 4, H: 2}, PixelWidth: 4},
		{ID: 2, Bounds: executor.Screen{X: 4, Y: 0, W: 2, H: 3}, PixelWidth: 2},
	})
	fill := func(w, h int, c color.RGBA) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		return img
	}
	red, blue := color.RGBA{R: 0xff, A: 0xff}, color.RGBA{B: 0xff, A: 0xff}
	pic, err := p.compose([]*image.RGBA{fill(4, 2, red), fill(2, 3, blue)})
	if err != nil {
		t.Fatal(err)
	}
	if b := pic.Image.Bounds(); b.Dx() != 6 || b.Dy() != 3 || pic.Scale != 1 {
		t.Fatalf("picture %v at %g", b, pic.Scale)
	}
	for _, c := range []struct {
		x, y int
		want color.RGBA
	}{{0, 0, red}, {3, 1, red}, {4, 0, blue}, {5, 2, blue}, {0, 2, color.RGBA{A: 0xff}}} {
		if got := pic.Image.RGBAAt(c.x, c.y); got != c.want {
			t.Errorf("(%d, %d) = %v; want %v", c.x, c.y, got, c.want)
		}
	}
	if _, err := p.compose([]*image.RGBA{fill(4, 2, red), fill(4, 6, blue)}); err == nil {
		t.Error("a picture of another size than its display's was taken")
	}
}
