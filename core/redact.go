package core

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// shownBox is a secret field's box in the top frame's viewport, in CSS
// pixels, and the width of that viewport with its scrollbars, which a
// capture of the tab spans.
type shownBox struct {
	box protocol.Rect
	vw  float64
}

// secretBoxes reads the tab and returns where its password and payment
// fields are on screen, for the pictures an agent gets: the snapshot never
// reads their values out, and a picture must not show them either. A
// secret field in a frame Reins cannot place is a reason to give no
// picture, not to guess.
func (e *Engine) secretBoxes(ctx context.Context, t *tabState, tab, title string) ([]shownBox, error) {
	snap, res, err := e.readTree(ctx, t, tab, title)
	if err != nil {
		return nil, err
	}
	// A frame that did not report may hold such a field too.
	for _, f := range res.Frames {
		if f.Error != "" {
			return nil, errorf(vocab.CodeFailed, "a frame of the page (%s) did not say what it shows (%s), so Reins cannot tell whether a password or payment field is in it; no picture was taken: try again", plain.Text(f.URL, plain.URLMax), plain.Text(f.Error, plain.DetailMax))
		}
	}
	vp := snap.Viewport()
	vw := vp.InnerWidth
	if vw <= 0 {
		vw = max(vp.Width, vp.ClientWidth)
	}
	var out []shownBox
	for _, el := range snap.Elements {
		if !el.Secret {
			continue
		}
		if !el.Placeable {
			return nil, errorf(vocab.CodeFailed, "a password or payment field is in a frame whose place on the page Reins does not know, so it cannot be hidden in a picture; no picture was taken")
		}
		b := el.Page
		if el.Clip != nil {
			b = b.Intersect(*el.Clip)
		}
		if b.W <= 0 || b.H <= 0 {
			continue
		}
		out = append(out, shownBox{box: b, vw: vw})
	}
	return out, nil
}

// redact blacks out boxes in a PNG capture of a tab, each a little larger
// than its field. With no boxes the picture is returned as it came.
func redact(pic []byte, boxes []shownBox) ([]byte, error) {
	if len(boxes) == 0 {
		return pic, nil
	}
	src, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "the browser's picture could not be read, so its secret fields could not be hidden: %v", err)
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	const grow = 2 // CSS pixels around the field
	for _, sb := range boxes {
		if sb.vw <= 0 {
			// No viewport to scale by: hide the whole picture rather
			// than guess where the field is.
			draw.Draw(img, img.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
			break
		}
		px := float64(img.Bounds().Dx()) / sb.vw
		b := sb.box
		r := image.Rect(
			int(math.Floor((b.X-grow)*px)), int(math.Floor((b.Y-grow)*px)),
			int(math.Ceil((b.X+b.W+grow)*px)), int(math.Ceil((b.Y+b.H+grow)*px)),
		).Add(img.Bounds().Min).Intersect(img.Bounds())
		draw.Draw(img, r, image.NewUniform(color.Black), image.Point{}, draw.Src)
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, errorf(vocab.CodeFailed, "%v", err)
	}
	return out.Bytes(), nil
}
