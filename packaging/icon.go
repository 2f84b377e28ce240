package packaging

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
)

// Reins' application icon, drawn here at every size an .icns holds, so
// that the bundle needs no drawing program and no Mac to get one: without
// it, System Settings' Accessibility and Login Items lists and the
// notification that Reins runs in the background show a generic icon.
//
// The picture is the tray's mark (app/ui/icons.go draws it for the menu
// bar: a ring held by two straps), white on a rounded square of Reins'
// accent, inside the margin of macOS's icon grid.

// The mark, in the 44-unit square the tray icon is drawn in.
const (
	markUnits              = 44.0
	markCX, markCY, markR  = 22.0, 17.0, 11.0
	markStroke             = 3.6
	strapDX, strapDY       = 7.0, 8.0
	strapEndL, strapEndR   = 8.0, 36.0
	strapEndY              = 40.0
	iconBody               = 824.0 / 1024 // the body's side in macOS's 1024-point grid
	iconCorner             = 185.0 / 824  // its corner radius, of the side
	iconMark               = 0.64         // the mark's square, of the body's side
	iconSamples            = 4            // per pixel, each way
	icnsHeader             = 8
	icnsMagic              = "icns"
	icnsEntryHeaderPadding = 8
)

// accentTop and accentBottom shade the body, Reins' accent (app/ui's
// Accent) at the bottom.
var (
	accentTop    = color.NRGBA{R: 0x2f, G: 0x78, B: 0xe8, A: 0xff}
	accentBottom = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xd1, A: 0xff}
)

// inMark reports whether (x, y), in the mark's 44 units, is on the mark:
// the ring's outline, or a strap.
func inMark(x, y float64) bool {
	d := math.Hypot(x-markCX, y-markCY)
	if d <= markR && d >= markR-markStroke {
		return true
	}
	strap := func(x0, y0, x1, y1 float64) bool { return segDistance(x, y, x0, y0, x1, y1) <= markStroke/2 }
	return strap(markCX-strapDX, markCY+strapDY, strapEndL, strapEndY) || strap(markCX+strapDX, markCY+strapDY, strapEndR, strapEndY)
}

// segDistance is the distance from (x, y) to the segment (x0, y0)–(x1, y1).
func segDistance(x, y, x0, y0, x1, y1 float64) float64 {
	dx, dy := x1-x0, y1-y0
	t := math.Max(0, math.Min(1, ((x-x0)*dx+(y-y0)*dy)/(dx*dx+dy*dy)))
	return math.Hypot(x-(x0+t*dx), y-(y0+t*dy))
}

// inRoundedSquare reports whether (x, y) lies in the square of side s at
// (x0, y0) whose corners are rounded with radius r.
func inRoundedSquare(x, y, x0, y0, s, r float64) bool {
	if x < x0 || y < y0 || x > x0+s || y > y0+s {
		return false
	}
	cx := math.Max(x0+r, math.Min(x, x0+s-r))
	cy := math.Max(y0+r, math.Min(y, y0+s-r))
	return math.Hypot(x-cx, y-cy) <= r
}

// AppIcon draws the icon px pixels square, each pixel the mean of
// iconSamples² samples.
func AppIcon(px int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, px, px))
	side := float64(px)
	body := side * iconBody
	bx := (side - body) / 2
	corner := body * iconCorner
	mark := body * iconMark
	mx, my := (side-mark)/2, (side-mark)/2+body*0.02
	unit := mark / markUnits
	for y := 0; y < px; y++ {
		shade := float64(y) / math.Max(1, side-1)
		bg := color.NRGBA{
			R: mix(accentTop.R, accentBottom.R, shade),
			G: mix(accentTop.G, accentBottom.G, shade),
			B: mix(accentTop.B, accentBottom.B, shade),
		}
		for x := 0; x < px; x++ {
			var inBody, onMark int
			for sy := 0; sy < iconSamples; sy++ {
				for sx := 0; sx < iconSamples; sx++ {
					fx := float64(x) + (float64(sx)+0.5)/iconSamples
					fy := float64(y) + (float64(sy)+0.5)/iconSamples
					if !inRoundedSquare(fx, fy, bx, bx, body, corner) {
						continue
					}
					inBody++
					if inMark((fx-mx)/unit, (fy-my)/unit) {
						onMark++
					}
				}
			}
			if inBody == 0 {
				continue
			}
			// White over the accent, as much as the mark covers of what
			// the body covers; the body's own coverage is the alpha.
			f := float64(onMark) / float64(inBody)
			img.SetNRGBA(x, y, color.NRGBA{
				R: mix(bg.R, 0xff, f), G: mix(bg.G, 0xff, f), B: mix(bg.B, 0xff, f),
				A: uint8(math.Round(float64(inBody) * 255 / (iconSamples * iconSamples))),
			})
		}
	}
	return img
}

func mix(a, b uint8, f float64) uint8 {
	return uint8(math.Round(float64(a) + (float64(b)-float64(a))*f))
}

// icnsSizes are the entries an .icns holds, as iconutil writes them from an
// iconset: the OSType of each and its side in pixels, every one a PNG
// (macOS 10.7 and later read PNG in all of them).
var icnsSizes = []struct {
	kind string
	px   int
}{
	{"icp4", 16}, {"ic11", 32}, // 16 pt at 1× and 2×
	{"icp5", 32}, {"ic12", 64}, // 32 pt
	{"ic07", 128}, {"ic13", 256}, // 128 pt
	{"ic08", 256}, {"ic14", 512}, // 256 pt
	{"ic09", 512}, {"ic10", 1024}, // 512 pt
}

// ICNS is the icon as an .icns file: "icns" and the file's length, then
// for each entry its OSType, its length with this 8-byte header, and the
// PNG (all lengths big-endian).
func ICNS() ([]byte, error) {
	pngs := map[int][]byte{}
	var body bytes.Buffer
	for _, e := range icnsSizes {
		p, ok := pngs[e.px]
		if !ok {
			var b bytes.Buffer
			if err := png.Encode(&b, AppIcon(e.px)); err != nil {
				return nil, fmt.Errorf("drawing the %d-pixel icon: %w", e.px, err)
			}
			p = b.Bytes()
			pngs[e.px] = p
		}
		body.WriteString(e.kind)
		binary.Write(&body, binary.BigEndian, uint32(icnsEntryHeaderPadding+len(p)))
		body.Write(p)
	}
	var out bytes.Buffer
	out.WriteString(icnsMagic)
	binary.Write(&out, binary.BigEndian, uint32(icnsHeader+body.Len()))
	out.Write(body.Bytes())
	return out.Bytes(), nil
}
