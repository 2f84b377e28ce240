package grounding_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

func boxed(n *protocol.Node, y float64) *protocol.Node {
	n.Box = &protocol.Rect{X: 10, Y: y, W: 100, H: 20}
	return n
}

// page is a small tab: a navigation, prose under headings, controls near the
// top and far below the fold, and a cross-origin frame.
func page() *protocol.SnapshotResult {
	nav := boxed(node("navigation", "Main", 1,
		boxed(&protocol.Node{Role: "link", Name: "Home", ID: 2, URL: "https://shop.example/"}, 5),
	), 0)
	top := topFrame("d1", 0,
		nav,
		boxed(node("heading", "Intro", 3), 40),
		boxed(node("paragraph", "", 4, text("Long prose nobody acts on.")), 70),
		boxed(node("heading", "Empty section", 5), 100),
		boxed(node("heading", "Order", 6), 130),
		boxed(node("button", "Buy", 7), 160),
		boxed(&protocol.Node{Role: "iframe", Name: "Pay", ID: 8, Frame: &protocol.Child{Content: protocol.Rect{X: 0, Y: 200, W: 300, H: 100}, Index: 0}}, 200),
		boxed(node("heading", "Footer", 9), 2000),
		boxed(node("link", "Far", 10), 2030),
	)
	top.Viewport = protocol.Viewport{Width: 800, Height: 600, InnerWidth: 800, InnerHeight: 600, ClientWidth: 800, ClientHeight: 600}
	top.Window = protocol.Window{ScreenX: 100, ScreenY: 50, OuterWidth: 808, OuterHeight: 700, DPR: 1}
	child := frame(3, 0, 0, "https://pay.example/", "c1", 0, boxed(&protocol.Node{Role: "textbox", Name: "Card", ID: 1, Secret: true}, 10))
	return result(top, child)
}

func render(t *testing.T, s *grounding.Snapshot, o grounding.RenderOptions) grounding.Rendered {
	t.Helper()
	r, err := s.Render(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRenderInteractiveKeepsControlsUnderLandmarksAndNearestHeading(t *testing.T) {
	s := mustBuild(t, page(), grounding.NewRefs())
	r := render(t, s, grounding.RenderOptions{Mode: grounding.ModeInteractive})
	// The heading with nothing to act on under it, and the prose, go.
	assertText(t, r.Text, testenv.Dedent(`
		- navigation "Main" [ref=e1]:
		  - link "Home" [ref=e2]:
		    - /url: "https://shop.example/"
		- heading "Order" [ref=e6]
		- button "Buy" [ref=e7]
		- iframe "Pay" [ref=e8]:
		  - textbox "Card" [ref=f1e1]
		- heading "Footer" [ref=e9]
		- link "Far" [ref=e10]
	`))
	lines := parseAll(t, r.Text)
	checkShape(t, r.Text, lines)
}

func TestRenderViewportShowsWhatIsOnScreenAndCountsTheRest(t *testing.T) {
	s := mustBuild(t, page(), grounding.NewRefs())
	r := render(t, s, grounding.RenderOptions{Mode: grounding.ModeViewport})
	if strings.Contains(r.Text, "Far") || strings.Contains(r.Text, "Footer") || !strings.Contains(r.Text, `button "Buy"`) || !strings.Contains(r.Text, `textbox "Card"`) {
		t.Errorf("viewport text:\n%s", r.Text)
	}
	if r.Above != 0 || r.Below != 2 || !strings.Contains(r.Hint, "2 below") {
		t.Errorf("above %d below %d hint %q, want 0, 2 and a hint", r.Above, r.Below, r.Hint)
	}
	checkShape(t, r.Text, parseAll(t, r.Text))
}

func TestRenderAutoPicksFullForSmallPagesAndInteractiveForLarge(t *testing.T) {
	s := mustBuild(t, page(), grounding.NewRefs())
	if r := render(t, s, grounding.RenderOptions{}); r.Mode != grounding.ModeFull || r.Text != s.Text {
		t.Errorf("small page: mode %q", r.Mode)
	}
	var kids []*protocol.Node
	for i := range 600 {
		kids = append(kids, node("paragraph", "", 0, text(strings.Repeat("prose ", 8))), node("button", "B", i+1))
	}
	big := mustBuild(t, result(topFrame("d1", 0, kids...)), grounding.NewRefs())
	r := render(t, big, grounding.RenderOptions{Mode: grounding.ModeAuto})
	if r.Mode != grounding.ModeInteractive || strings.Contains(r.Text, "prose") || !strings.Contains(r.Hint, "full snapshot is") {
		t.Errorf("large page: mode %q, hint %q", r.Mode, r.Hint)
	}
}

func TestRenderBoxesInScreenPoints(t *testing.T) {
	res := page()
	res.Zoom = 1.5
	s := mustBuild(t, res, grounding.NewRefs())
	r := render(t, s, grounding.RenderOptions{Mode: grounding.ModeFull, Root: "f1e1", Boxes: true})
	// Origin: bx = (808 - 800×1.5)/2 < 0 → 0; y = 50 + 700 - 600×1.5 = -150.
	// The frame sits at y 200, the field at 10 inside it: (10, 210) CSS px.
	ox, oy := grounding.ContentOrigin(res.Frames[0].Window, res.Frames[0].Viewport, 1.5)
	want := `- textbox "Card" [ref=f1e1] [box=` + strconv.Itoa(int(ox+15)) + `,` + strconv.Itoa(int(oy+315)) + `,150,30]` + "\n"
	assertText(t, r.Text, want)
	parseAll(t, r.Text)
}

func TestRenderSubtreeOfUnknownRefIsStale(t *testing.T) {
	s := mustBuild(t, page(), grounding.NewRefs())
	if _, err := s.Render(grounding.RenderOptions{Root: "e99"}); !errors.Is(err, grounding.ErrStaleRef) {
		t.Errorf("err = %v, want ErrStaleRef", err)
	}
	if _, err := s.Render(grounding.RenderOptions{Mode: "everything"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
}

func TestFindPointsTextAtTheNearestRef(t *testing.T) {
	s := mustBuild(t, page(), grounding.NewRefs())
	got := s.Find("prose", "")
	want := []string{`- text: "Long prose nobody acts on." (in [ref=e4])`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Find = %q, want %q", got, want)
	}
	if got := s.Find("", "heading"); len(got) != 4 {
		t.Errorf("Find(role heading) = %q", got)
	}
}
