package grounding_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

func TestStitchChildFramesUnderTheirIframes(t *testing.T) {
	top := topFrame("top-doc", 3,
		node("button", "Top", 1),
		iframe("Same", 2, 0),
		iframe("Ads", 3, 1),
		node("button", "After", 4),
	)
	same := frame(11, 0, 0, "https://shop.example/help", "same-doc", 0, node("button", "Inner A", 1))
	cross := frame(20, 0, 1, "https://ads.example/slot", "ads-doc", 5, node("button", "Inner B", 1), text("Ad"))
	// The extension reports frames in whatever order webNavigation lists
	// them; pairing goes by (parent, index), not by position.
	s := mustBuild(t, result(cross, top, same), grounding.NewRefs())
	assertText(t, s.Text, testenv.Dedent(`
		- button "Top" [ref=e1]
		- iframe "Same" [ref=e2]:
		  - button "Inner A" [ref=f1e1]
		- iframe "Ads" [ref=e3]:
		  - button "Inner B" [ref=f2e1]
		  - text: "Ad"
		- button "After" [ref=e4]
	`))
	for ref, want := range map[string][]protocol.Hop{
		"f1e1": {{Frame: 0, Index: 0, Doc: "top-doc", Epoch: 3}},
		"f2e1": {{Frame: 0, Index: 1, Doc: "top-doc", Epoch: 3}},
	} {
		el := s.Elements[ref]
		if !reflect.DeepEqual(el.Path, want) {
			t.Errorf("%s Path = %+v, want %+v", ref, el.Path, want)
		}
		if !el.Placeable {
			t.Errorf("%s is not Placeable", ref)
		}
	}
	if el := s.Elements["f2e1"]; el.Frame != 20 || el.Doc != "ads-doc" || el.Epoch != 5 || el.FrameOrigin != "https://ads.example" {
		t.Errorf("f2e1 = %+v, want frame 20, doc ads-doc, epoch 5, origin https://ads.example", el)
	}
	if el := s.Elements["e2"]; len(el.Path) != 0 {
		t.Errorf("top-frame iframe element has Path %+v, want none", el.Path)
	}
}

func TestStitchGrandchildFrameGetsTwoHopPath(t *testing.T) {
	top := topFrame("top-doc", 1, iframe("Outer", 1, 0))
	child := frame(11, 0, 0, "https://shop.example/outer", "child-doc", 2,
		node("button", "Middle", 7),
		iframe("Inner", 8, 0),
	)
	grandchild := frame(12, 11, 0, "https://pay.example/card", "gc-doc", 0, node("button", "Pay", 3))
	s := mustBuild(t, result(grandchild, child, top), grounding.NewRefs())
	assertText(t, s.Text, testenv.Dedent(`
		- iframe "Outer" [ref=e1]:
		  - button "Middle" [ref=f1e1]
		  - iframe "Inner" [ref=f1e2]:
		    - button "Pay" [ref=f2e1]
	`))
	// Nearest ancestor first: the order in which the extension walks the
	// click point up to the top.
	want := []protocol.Hop{
		{Frame: 11, Index: 0, Doc: "child-doc", Epoch: 2},
		{Frame: 0, Index: 0, Doc: "top-doc", Epoch: 1},
	}
	if got := s.Elements["f2e1"].Path; !reflect.DeepEqual(got, want) {
		t.Errorf("grandchild Path = %+v, want %+v", got, want)
	}
	if !s.Elements["f2e1"].Placeable {
		t.Error("grandchild element is not Placeable")
	}
}

func TestStitchUnpairedFrameRenderedLastAndNotActable(t *testing.T) {
	top := topFrame("top-doc", 0,
		node("button", "Top", 1),
		// An iframe inside a shadow root: the browser gives no index.
		iframe("Widget", 2, -1),
		node("button", "Bottom", 3),
	)
	lost := frame(30, 0, -1, "https://widget.example/w", "lost-doc", 0, node("button", "Lost", 1))
	s := mustBuild(t, result(lost, top), grounding.NewRefs())
	assertText(t, s.Text, testenv.Dedent(`
		- button "Top" [ref=e1]
		- iframe "Widget" [ref=e2]
		- button "Bottom" [ref=e3]
		- iframe "https://widget.example/w" (not placed on the page):
		  - button "Lost" [ref=f1e1]
	`))
	el := s.Elements["f1e1"]
	if el.Placeable {
		t.Error("an element of an unpaired frame is Placeable")
	}
	if _, err := s.Check("f1e1", s.Frames()); !errors.Is(err, grounding.ErrNoFrame) {
		t.Errorf("Check(f1e1) error = %v, want ErrNoFrame", err)
	}
	// Reading it is fine; only acting is refused.
	if _, err := s.Check("e3", s.Frames()); err != nil {
		t.Errorf("Check(e3) = %v", err)
	}
}

func TestStitchFrameWithoutMatchingIframeIsUnplaced(t *testing.T) {
	// The child claims index 4, but the top frame has no iframe at 4: the
	// claim alone must not place it.
	top := topFrame("top-doc", 0, iframe("Only", 1, 0))
	stray := frame(9, 0, 4, "https://stray.example/", "stray-doc", 0, node("button", "Stray", 1))
	s := mustBuild(t, result(top, stray), grounding.NewRefs())
	assertText(t, s.Text, testenv.Dedent(`
		- iframe "Only" [ref=e1]
		- iframe "https://stray.example/" (not placed on the page):
		  - button "Stray" [ref=f1e1]
	`))
	if s.Elements["f1e1"].Placeable {
		t.Error("a frame with no matching iframe is Placeable")
	}
}

func TestStitchChildOfUnreadableFrameIsUnplaced(t *testing.T) {
	top := topFrame("top-doc", 0, iframe("Outer", 1, 0))
	// The extension could not read frame 11 (say, a chrome-error page).
	broken := protocol.FrameReport{Frame: 11, Parent: 0, Index: -1, URL: "https://down.example/", Error: "no content script"}
	inner := frame(12, 11, 0, "https://inner.example/", "inner-doc", 0, node("button", "Inner", 1))
	s := mustBuild(t, result(top, broken, inner), grounding.NewRefs())
	assertText(t, s.Text, testenv.Dedent(`
		- iframe "Outer" [ref=e1]
		- iframe "https://inner.example/" (not placed on the page):
		  - button "Inner" [ref=f1e1]
	`))
	if _, err := s.Check("f1e1", s.Frames()); !errors.Is(err, grounding.ErrNoFrame) {
		t.Errorf("Check = %v, want ErrNoFrame", err)
	}
}

func TestStitchFramesNestedInAnUnplacedFrameAppearOnce(t *testing.T) {
	// An unplaced frame may hold iframes of its own; their frames are paired
	// with it and belong under it, whichever frame id Chrome gave first.
	for _, ids := range []struct{ outer, inner int }{{5, 7}, {7, 5}} {
		top := topFrame("top-doc", 0, node("button", "Top", 1))
		outer := frame(ids.outer, 0, -1, "https://outer.example/", "outer-doc", 0,
			node("button", "Outer", 1),
			iframe("Nested", 2, 0),
		)
		inner := frame(ids.inner, ids.outer, 0, "https://inner.example/", "inner-doc", 0, node("button", "Deep", 1))
		s := mustBuild(t, result(top, outer, inner), grounding.NewRefs())
		want := testenv.Dedent(`
			- button "Top" [ref=e1]
			- iframe "https://outer.example/" (not placed on the page):
			  - button "Outer" [ref=f1e1]
			  - iframe "Nested" [ref=f1e2]:
			    - button "Deep" [ref=f2e1]
		`)
		if s.Text != want {
			t.Errorf("outer frame %d, inner frame %d:\n--- got ---\n%s--- want ---\n%s", ids.outer, ids.inner, s.Text, want)
			continue
		}
		deep := s.Elements["f2e1"]
		wantPath := []protocol.Hop{{Frame: ids.outer, Index: 0, Doc: "outer-doc", Epoch: 0}}
		if !reflect.DeepEqual(deep.Path, wantPath) || deep.Placeable {
			t.Errorf("Deep = %+v, want Path %+v and not Placeable", deep, wantPath)
		}
	}
}

func TestStitchSurvivesFramesClaimingEachOther(t *testing.T) {
	// Parent links come from the browser, but a confused report must not
	// make the walk loop or render a frame twice.
	top := topFrame("top-doc", 0, iframe("A", 1, 0))
	a := frame(1, 2, 0, "https://a.example/", "a-doc", 0, iframe("to B", 1, 0))
	b := frame(2, 1, 0, "https://b.example/", "b-doc", 0, iframe("to A", 1, 0))
	self := frame(3, 3, 0, "https://self.example/", "self-doc", 0, iframe("to self", 1, 0))
	s := mustBuild(t, result(top, a, b, self), grounding.NewRefs())
	lines := parseAll(t, s.Text)
	checkShape(t, s.Text, lines)
	seen := map[string]bool{}
	for _, l := range lines {
		if r := l.ref(); r != "" {
			if seen[r] {
				t.Errorf("ref %s rendered twice:\n%s", r, s.Text)
			}
			seen[r] = true
		}
	}
	if len(seen) != len(s.Elements) {
		t.Errorf("%d refs rendered, %d elements recorded", len(seen), len(s.Elements))
	}
}

func TestBuildRefusesTabWithoutReadableTopFrame(t *testing.T) {
	child := frame(4, 0, 0, "https://a.example/", "a-doc", 0, node("button", "B", 1))
	cases := []struct {
		name    string
		res     *protocol.SnapshotResult
		mention string
	}{
		{"no frames", result(), "not readable"},
		{"only a child frame", result(child), "not readable"},
		{"top frame failed", result(protocol.FrameReport{Frame: 0, Parent: -1, Index: -1, URL: "chrome://settings", Error: "Cannot access a chrome:// URL"}, child),
			"Cannot access a chrome:// URL"},
		{"top frame without root", result(protocol.FrameReport{Frame: 0, Parent: -1, Index: -1, URL: "https://slow.example/"}), "not readable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := grounding.Build(c.res, grounding.NewRefs(), grounding.BuildOptions{ID: "s1.1"})
			if err == nil {
				t.Fatalf("Build succeeded with text %q", s.Text)
			}
			if s != nil {
				t.Errorf("Build returned a snapshot with its error")
			}
			if !containsFold(err.Error(), c.mention) {
				t.Errorf("error %q does not mention %q", err, c.mention)
			}
		})
	}
}

// Each element also carries its box in the top frame's viewport and the part
// of that viewport its frames let it show through, for drawing the page.
func TestStitchPlacesFrameBoxesOnThePage(t *testing.T) {
	boxed := func(n *protocol.Node, r protocol.Rect) *protocol.Node { n.Box = &r; return n }
	outer := boxed(iframe("Outer", 2, 0), protocol.Rect{X: 5, Y: 15, W: 320, H: 160}) // content at 10,20 300×150
	top := topFrame("top-doc", 1, boxed(node("button", "Top", 1), protocol.Rect{X: 1, Y: 2, W: 3, H: 4}), outer)
	inner := iframe("Inner", 8, 0)
	inner.Frame.Content = protocol.Rect{X: 250, Y: 100, W: 200, H: 100}
	child := frame(11, 0, 0, "https://shop.example/outer", "child-doc", 2,
		boxed(node("button", "Middle", 7), protocol.Rect{X: 40, Y: 30, W: 100, H: 20}), boxed(inner, protocol.Rect{X: 250, Y: 100, W: 200, H: 100}))
	grandchild := frame(12, 11, 0, "https://pay.example/card", "gc-doc", 0,
		boxed(node("button", "Pay", 3), protocol.Rect{X: 20, Y: 10, W: 80, H: 30}))
	s := mustBuild(t, result(top, child, grandchild), grounding.NewRefs())

	if el := s.Elements["e1"]; el.Page != el.Box || el.Clip != nil {
		t.Errorf("top-frame button: Page %+v Clip %+v, want its own box and no clip", el.Page, el.Clip)
	}
	mid := s.Elements["f1e1"]
	if want := (protocol.Rect{X: 50, Y: 50, W: 100, H: 20}); mid.Page != want {
		t.Errorf("Middle on the page at %+v, want %+v", mid.Page, want)
	}
	if want := (protocol.Rect{X: 10, Y: 20, W: 300, H: 150}); mid.Clip == nil || *mid.Clip != want {
		t.Errorf("Middle shows through %+v, want the outer frame's content box %+v", mid.Clip, want)
	}
	pay := s.Elements["f2e1"]
	if want := (protocol.Rect{X: 280, Y: 130, W: 80, H: 30}); pay.Page != want {
		t.Errorf("Pay on the page at %+v, want %+v", pay.Page, want)
	}
	// The inner frame's content box (260,120 200×100) cut by the outer's.
	if want := (protocol.Rect{X: 260, Y: 120, W: 50, H: 50}); pay.Clip == nil || *pay.Clip != want {
		t.Errorf("Pay shows through %+v, want %+v", pay.Clip, want)
	}
	if v := s.Viewport(); v != top.Viewport {
		t.Errorf("Viewport() = %+v, want the top frame's %+v", v, top.Viewport)
	}
}

// A frame under a scaled container shows its boxes scaled: one of its CSS
// pixels covers Scale of its parent's, from the corner of its content box,
// and so on down a nested frame.
func TestStitchScaledFramesPlaceBoxesAsTheyShow(t *testing.T) {
	outer := iframe("Outer", 1, 0)
	outer.Frame.Content = protocol.Rect{X: 100, Y: 50, W: 225, H: 150}
	outer.Frame.Scale = &protocol.Scale{X: 0.75, Y: 0.75}
	top := topFrame("top-doc", 1, outer)
	inner := iframe("Inner", 8, 0)
	inner.Frame.Content = protocol.Rect{X: 20, Y: 10, W: 60, H: 30}
	inner.Frame.Scale = &protocol.Scale{X: 2, Y: 1.5}
	pay := node("button", "Pay", 3)
	pay.Box = &protocol.Rect{X: 4, Y: 8, W: 20, H: 10}
	mid := node("button", "Middle", 7)
	mid.Box = &protocol.Rect{X: 40, Y: 20, W: 80, H: 24}
	child := frame(11, 0, 0, "https://shop.example/outer", "child-doc", 2, mid, inner)
	grandchild := frame(12, 11, 0, "https://pay.example/card", "gc-doc", 0, pay)
	s := mustBuild(t, result(grandchild, child, top), grounding.NewRefs())
	for ref, want := range map[string]protocol.Rect{
		// 100 + 0.75·40, 50 + 0.75·20, 0.75·80, 0.75·24
		"f1e1": {X: 130, Y: 65, W: 60, H: 18},
		// The inner content box at 100 + 0.75·20, 50 + 0.75·10; its
		// scale 0.75·2 by 0.75·1.5.
		"f2e1": {X: 115 + 1.5*4, Y: 57.5 + 1.125*8, W: 1.5 * 20, H: 1.125 * 10},
	} {
		el := s.Elements[ref]
		if !el.Placeable || el.Page != want {
			t.Errorf("%s: Page %+v (placeable %v), want %+v", ref, el.Page, el.Placeable, want)
		}
	}
	if c := s.Elements["f2e1"].Clip; c == nil || *c != (protocol.Rect{X: 115, Y: 57.5, W: 45, H: 22.5}) {
		t.Errorf("f2e1 shows through %+v, want the inner frame's content box as it shows", c)
	}
}

// A rotated or skewed frame is read, but none of its elements is placed or
// acted on: Check says why.
func TestStitchTurnedFrameIsReadButNotPlaced(t *testing.T) {
	f := iframe("Tilted", 2, 0)
	f.Frame.Turned = "the frame is rotated (transform on div#stage)"
	top := topFrame("top-doc", 1, node("button", "Top", 1), f)
	in := node("button", "Inside", 5)
	in.Box = &protocol.Rect{X: 1, Y: 1, W: 10, H: 10}
	child := frame(11, 0, 0, "https://shop.example/tilted", "child-doc", 0, in)
	s := mustBuild(t, result(top, child), grounding.NewRefs())
	assertText(t, s.Text, testenv.Dedent(`
		- button "Top" [ref=e1]
		- iframe "Tilted" [ref=e2]:
		  - button "Inside" [ref=f1e1]
	`))
	el := s.Elements["f1e1"]
	if el.Placeable || el.Page != (protocol.Rect{}) {
		t.Errorf("f1e1 placed at %+v in a rotated frame", el.Page)
	}
	current := map[int]grounding.FrameState{0: {Doc: "top-doc", Epoch: 1}, 11: {Doc: "child-doc"}}
	_, err := s.Check("f1e1", current)
	if !errors.Is(err, grounding.ErrTurned) || !strings.Contains(err.Error(), "div#stage") {
		t.Errorf("Check of an element in a rotated frame = %v, want ErrTurned naming the transform", err)
	}
	if _, err := s.Check("e1", current); err != nil {
		t.Errorf("Check of the top frame's button = %v", err)
	}
}
