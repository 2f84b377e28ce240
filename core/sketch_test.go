package core_test

import (
	"testing"
	"time"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
)

func TestWithoutAPictureTheRequestCarriesASketchOfThePage(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, core.Control)
	ref, _ := f.snapRef("Place order")
	seen := f.answerWith(func(core.Request) core.Decision { return core.AllowOnce })

	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	f.Browser.FailCapture(true)
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	reqs := seen()
	if len(reqs) != 2 {
		t.Fatalf("asked %d times", len(reqs))
	}
	if len(reqs[0].Picture) == 0 || reqs[0].Sketch != nil {
		t.Fatalf("with a capture: picture %d bytes, sketch %+v; want the picture alone", len(reqs[0].Picture), reqs[0].Sketch)
	}
	r := reqs[1]
	if len(r.Picture) != 0 || r.Sketch == nil {
		t.Fatalf("without a capture: picture %d bytes, sketch %+v; want a sketch", len(r.Picture), r.Sketch)
	}
	if r.Sketch.W != 1000 || r.Sketch.H != 613 {
		t.Errorf("sketch of a %gx%g viewport, want the tab's 1000x613", r.Sketch.W, r.Sketch.H)
	}
	// The shop page's three elements, top to bottom, with their roles.
	var roles []string
	for _, b := range r.Sketch.Boxes {
		roles = append(roles, b.Role)
	}
	if len(r.Sketch.Boxes) != 3 || r.Sketch.Boxes[0].Y > r.Sketch.Boxes[1].Y || r.Sketch.Boxes[1].Y > r.Sketch.Boxes[2].Y {
		t.Fatalf("sketch boxes %+v, want the page's three elements top to bottom", r.Sketch.Boxes)
	}
	// The target's box is in the sketch's units, and is one of its boxes.
	found := false
	for _, b := range r.Sketch.Boxes {
		if r.Box != nil && b.X == r.Box.X && b.Y == r.Box.Y && b.W == r.Box.W && b.H == r.Box.H && b.Role == "button" {
			found = true
		}
	}
	if !found {
		t.Fatalf("target box %+v is not the button's box among %+v (%v)", r.Box, r.Sketch.Boxes, roles)
	}

	// The page scrolls 40 px after the snapshot: the sketch moves with the
	// target, so the highlight stays on the button it draws.
	f.Browser.Mutate(7, func(p *coretest.Page) {
		var walk func(n *protocol.Node)
		walk = func(n *protocol.Node) {
			if n == nil {
				return
			}
			if n.Box != nil {
				n.Box.Y -= 40
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		for i := range p.Frames {
			walk(p.Frames[i].Root)
		}
	})
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	r = seen()[2]
	for i, b := range r.Sketch.Boxes {
		if want := reqs[1].Sketch.Boxes[i].Y - 40; b.Y != want {
			t.Errorf("box %d at y %g after the scroll, want %g", i, b.Y, want)
		}
	}
	found = false
	for _, b := range r.Sketch.Boxes {
		if r.Box != nil && b.X == r.Box.X && b.Y == r.Box.Y && b.Role == "button" {
			found = true
		}
	}
	if !found {
		t.Fatalf("after the scroll, target box %+v is not the button's box among %+v", r.Box, r.Sketch.Boxes)
	}
}
