package ui

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

// shopSketch is a 1000×600 page with a search field, a link and a button.
func shopSketch() *vocab.Sketch {
	return &vocab.Sketch{W: 1000, H: 600, Boxes: []vocab.SketchBox{
		{X: 40, Y: 40, W: 600, H: 36, Role: "searchbox"},
		{X: 40, Y: 120, W: 120, H: 20, Role: "link"},
		{X: 420, Y: 300, W: 160, H: 44, Role: "button"},
	}}
}

func TestASketchIsDrawnFromTheBoxesWhenThereIsNoPicture(t *testing.T) {
	if img := renderPicture(nil, &box{420, 300, 160, 44}, nil); img != nil {
		t.Fatal("a picture was made from nothing")
	}
	sk := shopSketch()
	img := renderPicture(nil, &box{420, 300, 160, 44}, sk)
	if img == nil {
		t.Fatal("no picture from a sketch")
	}
	// The target's outline is drawn in the accent colour somewhere, and
	// the picture is not one flat colour: the page's boxes are in it.
	accent, colours := 0, map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.At(x, y).(color.RGBA)
			colours[c] = true
			if c.R == Accent.R && c.G == Accent.G && c.B == Accent.B {
				accent++
			}
		}
	}
	if accent == 0 {
		t.Error("the target is not outlined")
	}
	if len(colours) < 4 {
		t.Errorf("the sketch has %d colours; the page's boxes are missing", len(colours))
	}
	// The whole sketch: each box shows where the sketch puts it.
	whole := drawSketch(sk, nil)
	bg := whole.At(10, 10)
	for _, e := range sk.Boxes {
		edge := image.Pt(int((e.X+e.W/2)*sketchScale), int(e.Y*sketchScale))
		if whole.At(edge.X, edge.Y) == bg {
			t.Errorf("the %s's top edge at %v is not drawn", e.Role, edge)
		}
	}
}

func TestThePopupSaysWhenItShowsASketch(t *testing.T) {
	req := click("a1", true)
	req.Picture, req.Sketch = nil, shopSketch()
	SetBox(&req, 420, 300, 160, 44)
	r := newPopupRig(t, req)
	if !r.p.pictureArea.Visible() || r.p.explainArea.Visible() {
		t.Fatal("the sketch is not shown in the picture's place")
	}
	if got := richText(r.p.frame); !strings.Contains(got, "Drawn from the page's layout") {
		t.Fatalf("the line under the picture is %q", got)
	}
	withPicture := newPopupRig(t, click("a2", true))
	if got := richText(withPicture.p.frame); strings.Contains(got, "Drawn") {
		t.Fatalf("a captured picture is called a drawing: %q", got)
	}
}
