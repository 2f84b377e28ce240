package core

import (
	"cmp"
	"slices"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/vocab"
)

// maxSketchBoxes bounds a sketch: past a few hundred boxes a picture this
// small shows nothing more.
const maxSketchBoxes = 300

// sketchOf draws the viewport vp from the boxes of snap, each placed where it
// most likely is now. The elements of the target's frame moved as the target
// did since the snapshot (by moved: the scroll of the page, of its frames and
// of whatever holds the target); every other element moved as the page
// scrolled, which is vp's scroll against the snapshot's. An element in a frame
// shows only through its frames' content boxes, and one in a frame the
// snapshot could not place is left out. It is nil when the viewport has no
// size.
func sketchOf(snap *grounding.Snapshot, vp protocol.Viewport, target grounding.Element, moved protocol.Point) *vocab.Sketch {
	w, h := vp.Width, vp.Height
	if w <= 0 || h <= 0 {
		w, h = vp.ClientWidth, vp.ClientHeight
	}
	if w <= 0 || h <= 0 {
		return nil
	}
	sk := &vocab.Sketch{W: w, H: h}
	if snap == nil {
		return sk
	}
	then := snap.Viewport()
	px, py := then.ScrollX-vp.ScrollX, then.ScrollY-vp.ScrollY
	view := protocol.Rect{W: w, H: h}
	for _, el := range snap.Elements {
		if !el.Placeable {
			continue
		}
		b := el.Page.Move(px, py)
		if el.Frame == target.Frame && el.Doc == target.Doc {
			b = el.Page.Move(moved.X, moved.Y)
		}
		if el.Clip != nil {
			b = b.Intersect(el.Clip.Move(px, py))
		}
		if b = b.Intersect(view); b.W <= 0 || b.H <= 0 {
			continue
		}
		sk.Boxes = append(sk.Boxes, vocab.SketchBox{X: b.X, Y: b.Y, W: b.W, H: b.H, Role: el.Role})
	}
	slices.SortFunc(sk.Boxes, func(a, b vocab.SketchBox) int {
		return cmp.Or(cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X), cmp.Compare(a.W, b.W), cmp.Compare(a.H, b.H))
	})
	if len(sk.Boxes) > maxSketchBoxes {
		sk.Boxes = sk.Boxes[:maxSketchBoxes]
	}
	return sk
}
