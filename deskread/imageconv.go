package deskread

import (
	"fmt"
	"image"
)

// bitmapLayout is how a CGImage's pixels lie in the bytes its data
// provider copies out: what CGImageGetWidth, …GetHeight,
// …GetBitsPerComponent, …GetBitsPerPixel, …GetBytesPerRow and
// …GetBitmapInfo report. It is here, apart from the darwin code, so that
// the conversion is tested on every system.
type bitmapLayout struct {
	Width, Height    int
	BitsPerComponent int
	BitsPerPixel     int
	BytesPerRow      int
	BitmapInfo       uint32 // CGBitmapInfo: alpha info, byte order, float and pixel format bits
}

// CGBitmapInfo and CGImageAlphaInfo (CGImage.h).
const (
	cgBitmapAlphaInfoMask   = 0x1F
	cgBitmapFloatInfoMask   = 0xF00
	cgBitmapByteOrderMask   = 0x7000
	cgBitmapByteOrder32Le   = 2 << 12
	cgBitmapByteOrder32Big  = 4 << 12
	cgBitmapPixelFormatMask = 0xF0000 // kCGImagePixelFormatMask: 0 is packed components

	cgImageAlphaNone               = 0
	cgImageAlphaPremultipliedLast  = 1
	cgImageAlphaPremultipliedFirst = 2
	cgImageAlphaLast               = 3
	cgImageAlphaFirst              = 4
	cgImageAlphaNoneSkipLast       = 5
	cgImageAlphaNoneSkipFirst      = 6
	cgImageAlphaOnly               = 7
)

// maxPictureSide bounds a picture's width and height in pixels, past any
// display's.
const maxPictureSide = 1 << 15

// rgbaFromBitmap converts the pixels of a bitmap laid out as l into an
// RGBA image: 8 bits a component, 32 bits a pixel (with alpha or a skipped
// byte, first or last, in either byte order) or 24 (no alpha). Other
// layouts, float or 16-bit components, packed 10-bit pixels, are refused
// rather than guessed at. Components are copied as they are: the display's
// colour space is not converted to sRGB.
func rgbaFromBitmap(data []byte, l bitmapLayout) (*image.RGBA, error) {
	if l.Width <= 0 || l.Height <= 0 || l.Width > maxPictureSide || l.Height > maxPictureSide {
		return nil, fmt.Errorf("the picture is %d×%d pixels, which is no picture of a screen", l.Width, l.Height)
	}
	info := l.BitmapInfo
	alpha := info & cgBitmapAlphaInfoMask
	order := info & cgBitmapByteOrderMask
	if l.BitsPerComponent != 8 || info&cgBitmapFloatInfoMask != 0 || info&cgBitmapPixelFormatMask != 0 {
		return nil, fmt.Errorf("the picture's pixels are laid out in a way Reins does not read (%d bits a component, bitmap info %#x)", l.BitsPerComponent, info)
	}
	var bpp int
	switch {
	case l.BitsPerPixel == 32 && alpha != cgImageAlphaNone && alpha != cgImageAlphaOnly && (order == 0 || order == cgBitmapByteOrder32Big || order == cgBitmapByteOrder32Le):
		bpp = 4
	case l.BitsPerPixel == 24 && alpha == cgImageAlphaNone && order == 0:
		bpp = 3
	default:
		return nil, fmt.Errorf("the picture's pixels are laid out in a way Reins does not read (%d bits a pixel, bitmap info %#x)", l.BitsPerPixel, info)
	}
	row := l.Width * bpp
	if l.BytesPerRow < row {
		return nil, fmt.Errorf("the picture's rows are %d bytes, fewer than its %d pixels need", l.BytesPerRow, l.Width)
	}
	if need := (l.Height-1)*l.BytesPerRow + row; len(data) < need {
		return nil, fmt.Errorf("the picture's data is %d bytes, fewer than the %d its size needs", len(data), need)
	}
	// Where red, green, blue and alpha are in each pixel's bytes; a < 0
	// for no alpha.
	r, g, b, a := 0, 1, 2, 3
	premultiplied := true
	switch alpha {
	case cgImageAlphaPremultipliedLast, cgImageAlphaLast, cgImageAlphaNoneSkipLast:
		r, g, b, a = 0, 1, 2, 3
	case cgImageAlphaPremultipliedFirst, cgImageAlphaFirst, cgImageAlphaNoneSkipFirst:
		a, r, g, b = 0, 1, 2, 3
	case cgImageAlphaNone:
		a = -1
	}
	if bpp == 4 && order == cgBitmapByteOrder32Le {
		// A little-endian 32-bit word holds its components backwards.
		r, g, b, a = 3-r, 3-g, 3-b, 3-a
	}
	switch alpha {
	case cgImageAlphaLast, cgImageAlphaFirst:
		premultiplied = false
	case cgImageAlphaNoneSkipLast, cgImageAlphaNoneSkipFirst:
		a = -1
	}
	img := image.NewRGBA(image.Rect(0, 0, l.Width, l.Height))
	for y := 0; y < l.Height; y++ {
		src := data[y*l.BytesPerRow : y*l.BytesPerRow+row]
		dst := img.Pix[y*img.Stride : y*img.Stride+l.Width*4]
		for x := 0; x < l.Width; x++ {
			p := src[x*bpp : x*bpp+bpp]
			q := dst[x*4 : x*4+4]
			if a < 0 {
				q[0], q[1], q[2], q[3] = p[r], p[g], p[b], 0xFF
				continue
			}
			av := p[a]
			if premultiplied {
				// A premultiplied component above its alpha is not a
				// colour; clamp it rather than let it wrap.
				q[0], q[1], q[2], q[3] = min(p[r], av), min(p[g], av), min(p[b], av), av
				continue
			}
			q[0], q[1], q[2], q[3] = mul8(p[r], av), mul8(p[g], av), mul8(p[b], av), av
		}
	}
	return img, nil
}

// mul8 is c×a/255, rounded.
func mul8(c, a uint8) uint8 {
	v := uint32(c)*uint32(a) + 128
	return uint8((v + v>>8) >> 8)
}
