package ui

import (
	"bytes"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/png"
	"math"
	"strconv"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/reins-app/reins/vocab"
)

// renderPlanPicture is a plan's picture: the captured tab (or, without a
// capture, the sketch) cropped to hold every step's target, each outlined
// in the accent colour with its step's number beside it. boxes has one
// entry per step, nil for a step not in view. It returns nil when there is
// neither a capture nor a sketch.
func renderPlanPicture(pngBytes []byte, boxes []*box, sk *vocab.Sketch) image.Image {
	var src image.Image
	if len(pngBytes) > 0 {
		if img, err := png.Decode(bytes.NewReader(pngBytes)); err == nil {
			src = img
		}
	}
	scale := 1.0
	if src == nil {
		if sk == nil {
			return nil
		}
		src, scale = drawSketch(sk, nil), sketchScale
	}
	var union *box
	for _, b := range boxes {
		if b == nil {
			continue
		}
		b := box{b.x * scale, b.y * scale, b.w * scale, b.h * scale}
		if union == nil {
			union = &b
			continue
		}
		x0, y0 := math.Min(union.x, b.x), math.Min(union.y, b.y)
		x1, y1 := math.Max(union.x+union.w, b.x+b.w), math.Max(union.y+union.h, b.y+b.h)
		union = &box{x0, y0, x1 - x0, y1 - y0}
	}
	out := image.NewRGBA(image.Rect(0, 0, pictureW*pixScale, pictureH*pixScale))
	crop := cropAround(src.Bounds(), union, float64(pictureW)/float64(pictureH))
	if union != nil && (union.w > float64(crop.Dx()) || union.h > float64(crop.Dy())) {
		crop = cropAround(src.Bounds(), nil, float64(pictureW)/float64(pictureH))
	}
	draw.CatmullRom.Scale(out, out.Bounds(), src, crop, draw.Src, nil)
	sx := float64(out.Bounds().Dx()) / float64(crop.Dx())
	sy := float64(out.Bounds().Dy()) / float64(crop.Dy())
	for i, b := range boxes {
		if b == nil {
			continue
		}
		r := image.Rect(
			int(math.Round((b.x*scale-float64(crop.Min.X))*sx))-pixScale,
			int(math.Round((b.y*scale-float64(crop.Min.Y))*sy))-pixScale,
			int(math.Round(((b.x+b.w)*scale-float64(crop.Min.X))*sx))+pixScale,
			int(math.Round(((b.y+b.h)*scale-float64(crop.Min.Y))*sy))+pixScale,
		)
		outline(out, r, pixScale, 3*pixScale, Accent)
		numberBadge(out, r.Min, i+1)
	}
	return out
}

// numberBadge draws n in white on an accent badge beside the top left
// corner of a target's outline, at.
func numberBadge(img *image.RGBA, at image.Point, n int) {
	text := strconv.Itoa(n)
	face := basicfont.Face7x13
	w := font.MeasureString(face, text).Ceil() + 4
	const h = 13
	small := image.NewRGBA(image.Rect(0, 0, w, h))
	stddraw.Draw(small, small.Bounds(), image.NewUniform(Accent), image.Point{}, stddraw.Src)
	d := font.Drawer{Dst: small, Src: image.NewUniform(color.White), Face: face, Dot: fixed.P(2, 10)}
	d.DrawString(text)
	// Drawn at the picture's scale, so the number reads like the text
	// around it.
	// Left of the outline, so that it hides nothing of the target; inside
	// it when the target is at the picture's left edge.
	dst := image.Rect(at.X-w*pixScale, at.Y, at.X, at.Y+h*pixScale)
	if dst.Min.Y < 0 {
		dst = dst.Add(image.Pt(0, -dst.Min.Y))
	}
	if dst.Min.X < 0 {
		dst = dst.Add(image.Pt(-dst.Min.X, 0))
	}
	draw.NearestNeighbor.Scale(img, dst, small, small.Bounds(), draw.Src, nil)
}
