package core_test

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

func TestWithoutAPictureTheRequestCarriesASketchOfThePage(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	seen := f.answerWith(func(vocab.Request) vocab.Decision { return vocab.AllowOnce })

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
	// The shop page's four elements, top to bottom, with their roles.
	var roles []string
	for _, b := range r.Sketch.Boxes {
		roles = append(roles, b.Role)
	}
	if len(r.Sketch.Boxes) != 4 || !slices.IsSortedFunc(r.Sketch.Boxes, func(a, b vocab.SketchBox) int { return cmp.Compare(a.Y, b.Y) }) {
		t.Fatalf("sketch boxes %+v, want the page's four elements top to bottom", r.Sketch.Boxes)
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

// A target inside a frame: the sketch draws the frame's elements where they
// show through the iframe, moved as the target moved, and the page's own
// elements moved as the page scrolled.
func TestTheSketchDrawsTheTargetsFrame(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	top := coretest.Frame(
		coretest.Button(1, "Top", 100, 50),
		&protocol.Node{Role: "iframe", Name: "Payment", ID: 2, Box: &protocol.Rect{X: 45, Y: 295, W: 410, H: 110},
			Frame: &protocol.Child{Content: protocol.Rect{X: 50, Y: 300, W: 400, H: 100}, Index: 0}},
	)
	top.Viewport = coretest.Viewport
	top.Viewport.ScrollY = 40 // the page is scrolled 40 px when the agent reads it
	pay := protocol.FrameReport{Frame: 5, Parent: 0, Index: 0, URL: "https://pay.example/card", Origin: "https://pay.example",
		Root: &protocol.Node{Role: "document", Children: []*protocol.Node{
			coretest.Button(1, "Pay", 10, 20),
			coretest.Button(2, "Below", 10, 150), // under the frame's bottom edge
			coretest.Button(3, "Edge", 380, 20),  // across its right edge
		}}}
	e.Browser.Open(3, coretest.Page{URL: shopURL, Title: "Checkout", Frames: []protocol.FrameReport{top, pay}})
	f := &fixture{Engine: e, t: t, tab: e.WaitTab(t, shopURL), agent: e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})}
	f.SetShare(f.tab, vocab.Control)
	s, err := f.agent.Snapshot(context.Background(), f.tab)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`button "Pay" \[ref=(f\d+e\d+)\]`).FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no Pay button in a frame:\n%s", s.Text)
	}
	seen := f.answerWith(func(vocab.Request) vocab.Decision { return vocab.AllowOnce })
	click := func() vocab.Request {
		t.Helper()
		if err := f.click(m[1]); err != nil {
			t.Fatal(err)
		}
		reqs := seen()
		r := reqs[len(reqs)-1]
		if r.Sketch == nil || r.Box == nil {
			t.Fatalf("no sketch (%+v) or target box (%+v)", r.Sketch, r.Box)
		}
		return r
	}
	want := func(r vocab.Request, role string, b protocol.Rect) {
		t.Helper()
		for _, got := range r.Sketch.Boxes {
			if got.Role == role && got.X == b.X && got.Y == b.Y && got.W == b.W && got.H == b.H {
				return
			}
		}
		t.Errorf("no %s at %+v among %+v", role, b, r.Sketch.Boxes)
	}

	// The page has scrolled back to the top: its boxes, the frame with them,
	// are 40 px lower than the agent read them.
	e.Browser.Mutate(3, func(p *coretest.Page) {
		for _, n := range p.Frames[0].Root.Children {
			n.Box.Y += 40
			if n.Frame != nil {
				n.Frame.Content.Y += 40
			}
		}
	})
	e.Browser.FailCapture(true)
	r := click()
	if *r.Box != (vocab.Box{X: 60, Y: 360, W: 100, H: 30}) {
		t.Errorf("target box %+v, want Pay's place on the page now", *r.Box)
	}
	want(r, "button", protocol.Rect{X: 100, Y: 90, W: 100, H: 30}) // Top
	want(r, "iframe", protocol.Rect{X: 45, Y: 335, W: 410, H: 110})
	want(r, "button", protocol.Rect{X: 60, Y: 360, W: 100, H: 30}) // Pay, the target
	want(r, "button", protocol.Rect{X: 430, Y: 360, W: 20, H: 30}) // Edge, cut at the frame's edge
	if n := len(r.Sketch.Boxes); n != 4 {
		t.Errorf("%d boxes, want 4 (Below is hidden by its frame): %+v", n, r.Sketch.Boxes)
	}

	// Now only the frame scrolls, 30 px: its elements move, the page's stay.
	e.Browser.Mutate(3, func(p *coretest.Page) {
		for _, n := range p.Frames[1].Root.Children {
			n.Box.Y -= 30
		}
	})
	r = click()
	want(r, "button", protocol.Rect{X: 100, Y: 90, W: 100, H: 30})
	want(r, "button", protocol.Rect{X: 60, Y: 340, W: 100, H: 20}) // Pay, cut at the frame's top
	want(r, "button", protocol.Rect{X: 430, Y: 340, W: 20, H: 20})
}
