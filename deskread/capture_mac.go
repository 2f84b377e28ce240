package deskread

import (
	"errors"
	"fmt"
	"github.com/reins-app/reins/executor"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"
)

// The pure half of pictures of the desktop on macOS: which API takes them
// on which macOS, and how the pictures of several displays make one. It
// lives in a file every platform compiles so that its tests run anywhere;
// capture_darwin.go and capture_sck_darwin.go make the calls.

// macVersion is a macOS version: major, minor and patch.
type macVersion [3]int

// parseMacVersion reads "14.4.1" (the kern.osproductversion sysctl).
func parseMacVersion(s string) (macVersion, error) {
	var v macVersion
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) == 0 || len(parts) > 3 {
		return v, fmt.Errorf("%q is not a macOS version", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, fmt.Errorf("%q is not a macOS version", s)
		}
		v[i] = n
	}
	return v, nil
}

func (v macVersion) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// atLeast reports whether v is major.minor or later.
func (v macVersion) atLeast(major, minor int) bool {
	return v[0] > major || v[0] == major && v[1] >= minor
}

// captureWay is the API a picture is taken with.
type captureWay int

const (
	// captureWithScreenshotManager: ScreenCaptureKit's SCScreenshotManager,
	// macOS 14 and later.
	captureWithScreenshotManager captureWay = iota + 1
	// captureWithWindowList: CGWindowListCreateImage, deprecated in
	// macOS 14 and obsoleted in the macOS 15 SDK; from 14.4 it brings a
	// screen recording prompt that apps using ScreenCaptureKit do not get,
	// and on 15 the "…is requesting to bypass the system private window
	// picker" alert, again and again.
	captureWithWindowList
)

// chooseCapture picks the API for macOS v: SCScreenshotManager from 14 on,
// CGWindowListCreateImage before. haveManager and haveWindowList say which
// this macOS has: a program built against an old SDK may be told 10.16 on
// macOS 11 and later, so a version below 14 that has SCScreenshotManager
// (which only 14 and later have) is taken for 14 or later.
func chooseCapture(v macVersion, haveManager, haveWindowList bool) (captureWay, error) {
	switch {
	case haveManager && (v.atLeast(14, 0) || v == macVersion{10, 16, 0}):
		return captureWithScreenshotManager, nil
	case v.atLeast(15, 0):
		return 0, fmt.Errorf("%w: macOS %v has no SCScreenshotManager, and its CGWindowListCreateImage would ask the person again and again", executor.ErrUnsupported, v)
	case haveWindowList:
		return captureWithWindowList, nil
	case haveManager:
		return captureWithScreenshotManager, nil
	}
	return 0, fmt.Errorf("%w: macOS %v has neither SCScreenshotManager nor CGWindowListCreateImage", executor.ErrUnsupported, v)
}

// macDisplay is one active display: its CGDirectDisplayID, its bounds in
// global points, and its width in pixels (CGDisplayModeGetPixelWidth).
type macDisplay struct {
	ID         uint32
	Bounds     executor.Screen
	PixelWidth int
}

// scale is the display's pixels per point; 1 when it cannot be told.
func (d macDisplay) scale() float64 {
	if d.PixelWidth <= 0 || d.Bounds.W <= 0 {
		return 1
	}
	return float64(d.PixelWidth) / d.Bounds.W
}

// captureTile is one display's part of the picture: the display, the size
// its picture is taken at, in pixels, and where its top left lands in the
// whole picture (negative for a display that reaches left of or above the
// main one's corner, whose part there is cut off).
type captureTile struct {
	ID         uint32
	X, Y, W, H int
}

// capturePlan is how a picture of the desktop is made from one picture per
// display: every display in the main display's quadrant (as captureArea
// takes it), each taken at the same scale, the highest of theirs, so that
// the whole picture has one scale, as CGWindowListCreateImage's at its best
// resolution does.
type capturePlan struct {
	Width, Height int
	Scale         float64
	Tiles         []captureTile
}

// planCapture plans the picture of displays; false when no display lies in
// the main display's quadrant.
func planCapture(displays []macDisplay) (capturePlan, bool) {
	var p capturePlan
	var w, h float64
	for _, d := range displays {
		b := d.Bounds
		if b.X+b.W > 0 && b.Y+b.H > 0 && b.W > 0 && b.H > 0 {
			w, h = max(w, b.X+b.W), max(h, b.Y+b.H)
			p.Scale = max(p.Scale, d.scale())
		}
	}
	if w <= 0 || h <= 0 {
		return capturePlan{}, false
	}
	s := p.Scale
	p.Width, p.Height = int(math.Ceil(w*s)), int(math.Ceil(h*s))
	for _, d := range displays {
		b := d.Bounds
		if b.X+b.W > 0 && b.Y+b.H > 0 && b.W > 0 && b.H > 0 {
			p.Tiles = append(p.Tiles, captureTile{
				ID: d.ID,
				X:  int(math.Round(b.X * s)), Y: int(math.Round(b.Y * s)),
				W: int(math.Round(b.W * s)), H: int(math.Round(b.H * s)),
			})
		}
	}
	return p, true
}

// compose puts each tile's picture in its place in one picture; pics are
// in the order of p.Tiles. A picture of another size than its tile's is
// refused: the display changed between the plan and the picture.
func (p capturePlan) compose(pics []*image.RGBA) (Picture, error) {
	if len(pics) != len(p.Tiles) {
		return Picture{}, fmt.Errorf("%d pictures for %d displays", len(pics), len(p.Tiles))
	}
	out := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	// Where no display is, black, as an opaque picture of the screen shows.
	draw.Draw(out, out.Bounds(), image.NewUniform(color.RGBA{A: 0xff}), image.Point{}, draw.Src)
	for i, t := range p.Tiles {
		pic := pics[i]
		if pic == nil {
			return Picture{}, errors.New("a display's picture is missing")
		}
		if b := pic.Bounds(); b.Dx() != t.W || b.Dy() != t.H {
			return Picture{}, fmt.Errorf("display %d's picture is %d×%d pixels, not the %d×%d asked for; its resolution may have changed: try again", t.ID, b.Dx(), b.Dy(), t.W, t.H)
		}
		draw.Draw(out, image.Rect(t.X, t.Y, t.X+t.W, t.Y+t.H), pic, pic.Bounds().Min, draw.Src)
	}
	return Picture{Image: out, Scale: p.Scale}, nil
}
