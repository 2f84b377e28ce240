package packaging

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"
)

// TestICNSHoldsEverySizeAsPNG reads the .icns back as macOS does: the
// magic and the file's length, then each entry's OSType and length, and a
// PNG of the entry's side in each.
func TestICNSHoldsEverySizeAsPNG(t *testing.T) {
	b, err := ICNS()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 8 || string(b[:4]) != "icns" || int(binary.BigEndian.Uint32(b[4:])) != len(b) {
		t.Fatalf("header %q, length %d of %d", b[:min(8, len(b))], binary.BigEndian.Uint32(b[4:]), len(b))
	}
	seen := map[string]int{}
	for off := 8; off < len(b); {
		if off+8 > len(b) {
			t.Fatalf("a short entry header at %d", off)
		}
		kind, n := string(b[off:off+4]), int(binary.BigEndian.Uint32(b[off+4:]))
		if n < 8 || off+n > len(b) {
			t.Fatalf("entry %s at %d claims %d bytes of %d", kind, off, n, len(b)-off)
		}
		img, err := png.Decode(bytes.NewReader(b[off+8 : off+n]))
		if err != nil {
			t.Fatalf("entry %s: %v", kind, err)
		}
		seen[kind] = img.Bounds().Dx()
		if img.Bounds().Dx() != img.Bounds().Dy() {
			t.Errorf("entry %s is %v, not square", kind, img.Bounds())
		}
		off += n
	}
	want := map[string]int{"icp4": 16, "ic11": 32, "icp5": 32, "ic12": 64, "ic07": 128, "ic13": 256, "ic08": 256, "ic14": 512, "ic09": 512, "ic10": 1024}
	if len(seen) != len(want) {
		t.Errorf("entries %v; want %v", seen, want)
	}
	for k, px := range want {
		if seen[k] != px {
			t.Errorf("entry %s is %d pixels; want %d", k, seen[k], px)
		}
	}
}

// TestAppIconIsTheMarkOnTheAccent: transparent outside the rounded body,
// the accent in it, white on the mark.
func TestAppIconIsTheMarkOnTheAccent(t *testing.T) {
	img := AppIcon(256)
	if c := img.NRGBAAt(2, 2); c.A != 0 {
		t.Errorf("a corner outside the body is %v; want transparent", c)
	}
	if c := img.NRGBAAt(128, 230); c.A != 0xff || c.B < 0xc0 || c.R > 0x40 {
		t.Errorf("the body below the mark is %v; want the opaque accent", c)
	}
	// The ring's outline, straight above its centre: the mark's 44 units
	// map onto 0.64 of the 824/1024 body, a little below the middle.
	unit := 256 * iconBody * iconMark / markUnits
	x0 := (256 - 256*iconBody*iconMark) / 2
	y0 := x0 + 256*iconBody*0.02
	x, y := int(x0+markCX*unit), int(y0+(markCY-markR+markStroke/2)*unit)
	if c := img.NRGBAAt(x, y); c.R < 0xf0 || c.G < 0xf0 || c.B < 0xf0 {
		t.Errorf("the ring at (%d, %d) is %v; want white", x, y, c)
	}
}
