package grounding_test

import (
	"fmt"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// syntheticFrame is a shop-like page of about n nodes per frame: sections of
// list items, each with a link, a text and a button, some of them checked,
// named or carrying a value, the way a long product listing looks.
func syntheticFrame(id, parent, index int, doc string, n int, iframes int) protocol.FrameReport {
	var kids []*protocol.Node
	el := 1
	count := 0
	for count < n {
		var items []*protocol.Node
		for j := 0; j < 10 && count < n; j++ {
			link := &protocol.Node{Role: "link", Name: fmt.Sprintf("Product %d \"deluxe\" [ref=e%d]", el, el), ID: el, URL: fmt.Sprintf("https://shop.example/p/%d", el),
				Box: &protocol.Rect{X: 10, Y: float64(el * 20), W: 200, H: 18}}
			el++
			btn := &protocol.Node{Role: "button", Name: "Add to cart", ID: el, Pressed: "false", Pointer: true}
			el++
			items = append(items, &protocol.Node{Role: "listitem", Children: []*protocol.Node{link, text("€ 19.99\nincl. VAT"), btn}})
			count += 4
		}
		kids = append(kids, &protocol.Node{Role: "region", Name: fmt.Sprint("Section ", len(kids)), Children: []*protocol.Node{
			{Role: "heading", Name: fmt.Sprint("Section ", len(kids)), Level: 2, ID: el},
			{Role: "list", Children: items},
		}})
		el++
		count += 3
	}
	for i := range iframes {
		kids = append(kids, iframe(fmt.Sprint("frame ", i), el, i))
		el++
	}
	return frame(id, parent, index, fmt.Sprintf("https://f%d.example/", id), doc, 0, kids...)
}

func syntheticTab() *protocol.SnapshotResult {
	return result(
		syntheticFrame(0, -1, -1, "top", 1000, 2),
		syntheticFrame(11, 0, 0, "a", 500, 0),
		syntheticFrame(12, 0, 1, "b", 500, 0),
	)
}

func BenchmarkBuild(b *testing.B) {
	res := syntheticTab()
	refs := grounding.NewRefs()
	s, err := grounding.Build(res, refs, grounding.BuildOptions{ID: "s"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		// The same Refs across builds: the steady state of an agent taking
		// snapshot after snapshot of one page.
		if _, err := grounding.Build(res, refs, grounding.BuildOptions{ID: "s"}); err != nil {
			b.Fatal(err)
		}
	}
	// Reported after the loop, which would otherwise reset them.
	b.ReportMetric(float64(len(s.Elements)), "refs")
	b.ReportMetric(float64(len(s.Text)), "textbytes")
}

func BenchmarkBuildFreshRefs(b *testing.B) {
	res := syntheticTab()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := grounding.Build(res, grounding.NewRefs(), grounding.BuildOptions{ID: "s"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	s, err := grounding.Build(syntheticTab(), grounding.NewRefs(), grounding.BuildOptions{ID: "s"})
	if err != nil {
		b.Fatal(err)
	}
	cur := s.Frames()
	var ref string
	for r, el := range s.Elements {
		if el.Frame == 12 {
			ref = r
			break
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Check(ref, cur); err != nil {
			b.Fatal(err)
		}
	}
}
