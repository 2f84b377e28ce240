package ui

import (
	"bytes"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/png"
	"math"

	"github.com/reins-app/reins/vocab"
	"golang.org/x/image/draw"
)

// pictureW×pictureH is the picture's size in the popup, in points; it is
// rendered at twice that for sharp Retina displays.
const (
	pictureW = 348
	pictureH = 212
	pixScale = 2
)

// box is a rectangle in a picture's pixels.
type box struct{ x, y, w, h float64 }

// requestBox reads a request's target box, if it has one.
func requestBox(x, y, w, h float64) *box {
	if w <= 0 || h <= 0 {
		return nil
	}
	return &box{x, y, w, h}
}

// renderPicture crops the captured tab around the target, dims what is not
// the target and outlines the target in the accent colour. When there is no
// capture it draws the sketch (the viewport as the snapshot's boxes) with
// the target's place in it. It returns nil when there is neither a capture
// nor a sketch.
func renderPicture(pngBytes []byte, b *box, sk *vocab.Sketch) image.Image {
	out := image.NewRGBA(image.Rect(0, 0, pictureW*pixScale, pictureH*pixScale))
	var src image.Image
	captured := false
	if len(pngBytes) > 0 {
		if img, err := png.Decode(bytes.NewReader(pngBytes)); err == nil {
			src, captured = img, true
		}
	}
	if src == nil {
		if sk == nil {
			return nil
		}
		src = drawSketch(sk, b)
	}
	sb := src.Bounds()
	crop := cropAround(sb, b, float64(pictureW)/float64(pictureH))
	draw.CatmullRom.Scale(out, out.Bounds(), src, crop, draw.Src, nil)
	if b == nil {
		return out
	}
	// The target's box in the output's pixels, a little larger than the
	// element so the outline does not cover it.
	sx := float64(out.Bounds().Dx()) / float64(crop.Dx())
	sy := float64(out.Bounds().Dy()) / float64(crop.Dy())
	const grow = 4 * pixScale
	tb := image.Rect(
		int(math.Round((b.x-float64(crop.Min.X))*sx))-grow,
		int(math.Round((b.y-float64(crop.Min.Y))*sy))-grow,
		int(math.Round((b.x+b.w-float64(crop.Min.X))*sx))+grow,
		int(math.Round((b.y+b.h-float64(crop.Min.Y))*sy))+grow,
	)
	if captured {
		dimOutside(out, tb, 5*pixScale, color.NRGBA{R: 0x18, G: 0x1a, B: 0x22, A: 0x40})
	}
	outline(out, tb, 2*pixScale, 5*pixScale, Accent)
	return out
}

// cropAround picks the part of the picture to show: the target with room
// around it (the whole picture when it is small), at the given aspect.
func cropAround(sb image.Rectangle, b *box, aspect float64) image.Rectangle {
	W, H := float64(sb.Dx()), float64(sb.Dy())
	if b == nil {
		w, h := W, W/aspect
		if h > H {
			h, w = H, H*aspect
		}
		x0 := float64(sb.Min.X) + (W-w)/2
		return image.Rect(int(x0), sb.Min.Y, int(x0+w), sb.Min.Y+int(h))
	}
	// Show about three times the target, but never less than a readable
	// 480 px of page, nor more than the page.
	w := math.Max(math.Max(b.w*3, b.h*3*aspect), 480)
	h := w / aspect
	if w > W {
		w, h = W, W/aspect
	}
	if h > H {
		h, w = H, H*aspect
	}
	cx, cy := b.x+b.w/2, b.y+b.h/2
	x0 := clamp(cx-w/2, float64(sb.Min.X), float64(sb.Max.X)-w)
	y0 := clamp(cy-h/2, float64(sb.Min.Y), float64(sb.Max.Y)-h)
	return image.Rect(int(x0), int(y0), int(x0+w), int(y0+h))
}

func clamp(v, lo, hi float64) float64 {
	if hi < lo {
		return lo
	}
	return math.Max(lo, math.Min(hi, v))
}

// dimOutside darkens every pixel outside the rounded rectangle keep by
// blending c over it.
func dimOutside(img *image.RGBA, keep image.Rectangle, radius int, c color.NRGBA) {
	b := img.Bounds()
	a := uint32(c.A)
	k := [4]float64{float64(keep.Min.X), float64(keep.Min.Y), float64(keep.Max.X), float64(keep.Max.Y)}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if inRoundRect(float64(x)+0.5, float64(y)+0.5, k[0], k[1], k[2], k[3], float64(radius)) {
				continue
			}
			i := img.PixOffset(x, y)
			p := img.Pix[i : i+3 : i+3]
			p[0] = uint8((uint32(p[0])*(255-a) + uint32(c.R)*a) / 255)
			p[1] = uint8((uint32(p[1])*(255-a) + uint32(c.G)*a) / 255)
			p[2] = uint8((uint32(p[2])*(255-a) + uint32(c.B)*a) / 255)
		}
	}
}

// outline strokes a rounded rectangle of the given width just inside r,
// antialiased by sampling each pixel four times in each direction.
func outline(img *image.RGBA, r image.Rectangle, width, radius int, c color.NRGBA) {
	fr := [4]float64{float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y)}
	rad := float64(radius)
	inside := func(x, y, inset float64) bool {
		return inRoundRect(x, y, fr[0]+inset, fr[1]+inset, fr[2]-inset, fr[3]-inset, math.Max(rad-inset, 0))
	}
	b := r.Inset(-2).Intersect(img.Bounds())
	const n = 4
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			hits := 0
			for sy := 0; sy < n; sy++ {
				for sx := 0; sx < n; sx++ {
					px, py := float64(x)+(float64(sx)+0.5)/n, float64(y)+(float64(sy)+0.5)/n
					if inside(px, py, 0) && !inside(px, py, float64(width)) {
						hits++
					}
				}
			}
			if hits == 0 {
				continue
			}
			blend(img, x, y, c, float64(hits)/(n*n))
		}
	}
}

func inRoundRect(x, y, x0, y0, x1, y1, r float64) bool {
	if x < x0 || x >= x1 || y < y0 || y >= y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
}

func blend(img *image.RGBA, x, y int, c color.NRGBA, cover float64) {
	i := img.PixOffset(x, y)
	a := cover * float64(c.A) / 255
	p := img.Pix[i : i+4 : i+4]
	p[0] = uint8(float64(p[0])*(1-a) + float64(c.R)*a)
	p[1] = uint8(float64(p[1])*(1-a) + float64(c.G)*a)
	p[2] = uint8(float64(p[2])*(1-a) + float64(c.B)*a)
	p[3] = uint8(math.Max(float64(p[3]), a*255))
}

// sketchScale is how many sketch pixels a CSS pixel gets: the sketch is
// cropped and scaled like a capture, so it is drawn as a screen would be.
const sketchScale = 2

// drawSketch is the stand-in when no capture could be taken: the viewport
// as a plain page, each element the agent saw as a soft box (fields and
// controls a little stronger than the rest), and the target's place filled.
// Its pixels are sketchScale per CSS pixel; b is in CSS pixels and is
// scaled with it.
func drawSketch(sk *vocab.Sketch, b *box) image.Image {
	w, h := int(math.Ceil(sk.W*sketchScale)), int(math.Ceil(sk.H*sketchScale))
	img := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	stddraw.Draw(img, img.Bounds(), image.NewUniform(color.NRGBA{R: 0xfb, G: 0xfb, B: 0xfc, A: 0xff}), image.Point{}, stddraw.Src)
	rect := func(x, y, bw, bh float64) image.Rectangle {
		return image.Rect(int(x*sketchScale), int(y*sketchScale), int((x+bw)*sketchScale), int((y+bh)*sketchScale))
	}
	plain := color.NRGBA{R: 0xd8, G: 0xdc, B: 0xe2, A: 0xff}
	control := color.NRGBA{R: 0xb4, G: 0xbb, B: 0xc6, A: 0xff}
	fill := image.NewUniform(color.NRGBA{R: 0xf0, G: 0xf2, B: 0xf5, A: 0xff})
	for _, e := range sk.Boxes {
		c := plain
		r := rect(e.X, e.Y, e.W, e.H)
		if sketchControl(e.Role) {
			c = control
			stddraw.Draw(img, r.Inset(sketchScale), fill, image.Point{}, stddraw.Src)
		}
		outline(img, r, 1*sketchScale, 3*sketchScale, c)
	}
	if b != nil {
		target := image.NewUniform(color.NRGBA{R: 0xd4, G: 0xe1, B: 0xf7, A: 0xff})
		stddraw.Draw(img, rect(b.x, b.y, b.w, b.h), target, image.Point{}, stddraw.Src)
		*b = box{b.x * sketchScale, b.y * sketchScale, b.w * sketchScale, b.h * sketchScale}
	}
	return img
}

// sketchControl reports whether role is one the person acts on, drawn a
// little stronger in a sketch.
func sketchControl(role string) bool {
	switch role {
	case "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "switch", "slider", "spinbutton", "tab", "menuitem", "option":
		return true
	}
	return false
}
