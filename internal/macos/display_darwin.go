package macos

import "fmt"

// CoreGraphics' geometry, as its functions take and return it: CGPoint,
// CGSize and CGRect, in points.
type (
	Point struct{ X, Y float64 }
	Size  struct{ W, H float64 }
	Rect  struct {
		Origin Point
		Size   Size
	}
)

// The displays, from CoreGraphics.
var displays struct {
	// CGError CGGetActiveDisplayList(uint32_t, CGDirectDisplayID *, uint32_t *)
	activeList func(max uint32, ids *uint32, count *uint32) int32
	// CGRect CGDisplayBounds(CGDirectDisplayID)
	bounds func(id uint32) Rect
}

func bindDisplays(b *Binder, cg uintptr) {
	b.Func(cg, "CGGetActiveDisplayList", &displays.activeList)
	b.Func(cg, "CGDisplayBounds", &displays.bounds)
}

// maxDisplays is more displays than any Mac drives at once.
const maxDisplays = 32

// ActiveDisplays lists the IDs (CGDirectDisplayID) of the active displays.
func ActiveDisplays() ([]uint32, error) {
	var ids [maxDisplays]uint32
	var n uint32
	if rc := displays.activeList(maxDisplays, &ids[0], &n); rc != 0 {
		return nil, fmt.Errorf("cannot list the displays (CoreGraphics error %d)", rc)
	}
	return append([]uint32(nil), ids[:min(n, maxDisplays)]...), nil
}

// DisplayBounds is the display's frame in global points, the main
// display's top left at (0, 0).
func DisplayBounds(id uint32) Rect { return displays.bounds(id) }
