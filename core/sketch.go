package core

import (
	"cmp"
	"slices"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// maxSketchBoxes bounds a sketch: past a few hundred boxes a picture this
// small shows nothing more.
const maxSketchBoxes = 300

// sketchOf draws the viewport vp from the top frame's elements in snap,
// each moved by (dx, dy): how far the page has scrolled since the snapshot.
// Elements in frames are left out, since their frame's place on the page is
// not in the snapshot. It is nil when the viewport has no size.
func sketchOf(snap *grounding.Snapshot, vp protocol.Viewport, dx, dy float64) *approvals.Sketch {
	w, h := vp.Width, vp.Height
	if w <= 0 || h <= 0 {
		w, h = vp.ClientWidth, vp.ClientHeight
	}
	if w <= 0 || h <= 0 {
		return nil
	}
	sk := &approvals.Sketch{W: w, H: h}
	if snap == nil {
		return sk
	}
	for _, el := range snap.Elements {
		b := el.Box
		b.X, b.Y = b.X+dx, b.Y+dy
		if el.Path != nil || b.W <= 0 || b.H <= 0 || b.X >= w || b.Y >= h || b.X+b.W <= 0 || b.Y+b.H <= 0 {
			continue
		}
		sk.Boxes = append(sk.Boxes, approvals.SketchBox{X: b.X, Y: b.Y, W: b.W, H: b.H, Role: el.Role})
	}
	slices.SortFunc(sk.Boxes, func(a, b approvals.SketchBox) int {
		return cmp.Or(cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X), cmp.Compare(a.W, b.W), cmp.Compare(a.H, b.H))
	})
	if len(sk.Boxes) > maxSketchBoxes {
		sk.Boxes = sk.Boxes[:maxSketchBoxes]
	}
	return sk
}
