package deskread

import (
	"image/color"
	"strings"
	"testing"
)

// Two pixels, opaque red and half-transparent green (premultiplied
// 0,128,0,128 where alpha is premultiplied), in each layout CGImage can
// hand over, with two bytes of row padding.
func TestRGBAFromBitmapReadsEachLayout(t *testing.T) {
	red := color.RGBA{0xFF, 0, 0, 0xFF}
	halfGreen := color.RGBA{0, 0x80, 0, 0x80}
	opaqueGreen := color.RGBA{0, 0x80, 0, 0xFF}
	for _, tc := range []struct {
		name   string
		bpp    int
		info   uint32
		pixels []byte
		want   [2]color.RGBA
	}{
		{"BGRA premultiplied, 32-bit little-endian: what a screen capture gives", 32,
			cgImageAlphaPremultipliedFirst | cgBitmapByteOrder32Le,
			[]byte{0, 0, 0xFF, 0xFF, 0, 0x80, 0, 0x80}, [2]color.RGBA{red, halfGreen}},
		{"BGRX, the alpha byte skipped", 32,
			cgImageAlphaNoneSkipFirst | cgBitmapByteOrder32Le,
			[]byte{0, 0, 0xFF, 0x11, 0, 0x80, 0, 0x22}, [2]color.RGBA{red, opaqueGreen}},
		{"RGBA premultiplied, default order", 32,
			cgImageAlphaPremultipliedLast,
			[]byte{0xFF, 0, 0, 0xFF, 0, 0x80, 0, 0x80}, [2]color.RGBA{red, halfGreen}},
		{"ARGB premultiplied, 32-bit big-endian", 32,
			cgImageAlphaPremultipliedFirst | cgBitmapByteOrder32Big,
			[]byte{0xFF, 0xFF, 0, 0, 0x80, 0, 0x80, 0}, [2]color.RGBA{red, halfGreen}},
		{"ABGR not premultiplied, 32-bit little-endian RGBA words", 32,
			cgImageAlphaLast | cgBitmapByteOrder32Le,
			[]byte{0xFF, 0, 0, 0xFF, 0x80, 0, 0xFF, 0}, [2]color.RGBA{red, halfGreen}},
		{"RGBX", 32, cgImageAlphaNoneSkipLast,
			[]byte{0xFF, 0, 0, 0, 0, 0x80, 0, 0}, [2]color.RGBA{red, opaqueGreen}},
		{"RGB, 24 bits", 24, cgImageAlphaNone,
			[]byte{0xFF, 0, 0, 0, 0x80, 0}, [2]color.RGBA{red, opaqueGreen}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Two rows, the second the first again, each padded by two bytes.
			row := append(append([]byte{}, tc.pixels...), 0xEE, 0xEE)
			data := append(append([]byte{}, row...), tc.pixels...)
			img, err := rgbaFromBitmap(data, bitmapLayout{Width: 2, Height: 2, BitsPerComponent: 8, BitsPerPixel: tc.bpp, BytesPerRow: len(row), BitmapInfo: tc.info})
			if err != nil {
				t.Fatal(err)
			}
			for y := range 2 {
				for x := range 2 {
					if got := img.RGBAAt(x, y); got != tc.want[x] {
						t.Errorf("pixel (%d, %d) = %v; want %v", x, y, got, tc.want[x])
					}
				}
			}
		})
	}
}

func TestRGBAFromBitmapRefusesWhatItCannotRead(t *testing.T) {
	ok := bitmapLayout{Width: 2, Height: 2, BitsPerComponent: 8, BitsPerPixel: 32, BytesPerRow: 8, BitmapInfo: cgImageAlphaPremultipliedFirst | cgBitmapByteOrder32Le}
	data := make([]byte, 16)
	if _, err := rgbaFromBitmap(data, ok); err != nil {
		t.Fatalf("the good layout: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(l *bitmapLayout)
		data   int
		want   string
	}{
		{"16 bits a component", func(l *bitmapLayout) { l.BitsPerComponent, l.BitsPerPixel, l.BytesPerRow = 16, 64, 16 }, 32, "bits a component"},
		{"float components", func(l *bitmapLayout) { l.BitmapInfo |= 1 << 8 }, 16, "bitmap info"},
		{"10-bit packed pixels", func(l *bitmapLayout) { l.BitmapInfo |= 3 << 16 }, 16, "bitmap info"},
		{"alpha only", func(l *bitmapLayout) { l.BitmapInfo = cgImageAlphaOnly }, 16, "bits a pixel"},
		{"16-bit byte order", func(l *bitmapLayout) { l.BitmapInfo = cgImageAlphaPremultipliedFirst | 1<<12 }, 16, "bits a pixel"},
		{"rows shorter than their pixels", func(l *bitmapLayout) { l.BytesPerRow = 7 }, 16, "rows"},
		{"too little data", func(l *bitmapLayout) {}, 15, "fewer than the 16"},
		{"no pixels", func(l *bitmapLayout) { l.Width = 0 }, 16, "no picture"},
		{"absurdly wide", func(l *bitmapLayout) { l.Width = 1 << 20 }, 16, "no picture"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ok
			tc.change(&l)
			_, err := rgbaFromBitmap(make([]byte, tc.data), l)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v; want an error saying %q", l, err, tc.want)
			}
		})
	}
}

func TestMul8(t *testing.T) {
	for _, tc := range [][3]uint8{{255, 255, 255}, {255, 128, 128}, {0, 200, 0}, {100, 0, 0}, {200, 100, 78}} {
		if got := mul8(tc[0], tc[1]); got != tc[2] {
			t.Errorf("mul8(%d, %d) = %d; want %d", tc[0], tc[1], got, tc[2])
		}
	}
}

// BenchmarkRGBAFromBitmap converts a 2880×1800 capture (a 15-inch
// Retina display), BGRA premultiplied as CGWindowListCreateImage gives it.
func BenchmarkRGBAFromBitmap(b *testing.B) {
	l := bitmapLayout{Width: 2880, Height: 1800, BitsPerComponent: 8, BitsPerPixel: 32, BytesPerRow: 2880 * 4, BitmapInfo: cgImageAlphaPremultipliedFirst | cgBitmapByteOrder32Le}
	data := make([]byte, l.BytesPerRow*l.Height)
	for i := range data {
		data[i] = 0xFF
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := rgbaFromBitmap(data, l); err != nil {
			b.Fatal(err)
		}
	}
}
