package deskread

import (
	"context"
	"fmt"
	"image"

	"github.com/jezek/xgb/xproto"
)

// captureBand is how many rows one GetImage asks for: a reply carries at
// most 16 MB.
const captureBand = 200

// Capture implements Reader: the root window's pixels, read with
// GetImage, in bands.
func (x *X11) Capture(ctx context.Context) (Picture, error) {
	if x.isClosed() {
		return Picture{}, errClosed
	}
	geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(x.root)).Reply()
	if err != nil {
		return Picture{}, err
	}
	w, h := int(geo.Width), int(geo.Height)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += captureBand {
		if err := ctx.Err(); err != nil {
			return Picture{}, err
		}
		bh := min(captureBand, h-y)
		r, err := xproto.GetImage(x.conn, xproto.ImageFormatZPixmap, xproto.Drawable(x.root), 0, int16(y), uint16(w), uint16(bh), 0xffffffff).Reply()
		if err != nil {
			return Picture{}, fmt.Errorf("reading the screen's pixels: %w", err)
		}
		if len(r.Data) < 4*w*bh {
			return Picture{}, fmt.Errorf("the screen's pixels came in a format Reins does not read (%d bytes for %d×%d)", len(r.Data), w, bh)
		}
		// 32 bits a pixel, blue, green, red, unused.
		for p := 0; p < w*bh; p++ {
			o := img.PixOffset(p%w, y+p/w)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = r.Data[4*p+2], r.Data[4*p+1], r.Data[4*p], 0xff
		}
	}
	return Picture{Image: img, Scale: x.scale()}, nil
}
