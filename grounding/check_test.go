package grounding_test

import (
	"errors"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// nested is a tab with a top frame (e1 "Top", e2 the iframe "Outer"), a
// child frame 11 in it (f1e1 "Middle", f1e2 the iframe "Inner"), a
// grandchild frame 12 in that (f2e1 "Pay"), and frame 13 that no iframe
// holds (f3e1 "Lost", rendered as not placed on the page).
func nested() *protocol.SnapshotResult {
	return result(
		topFrame("top-doc", 4, node("button", "Top", 1), iframe("Outer", 2, 0)),
		frame(11, 0, 0, "https://shop.example/outer", "child-doc", 1, node("button", "Middle", 1), iframe("Inner", 2, 0)),
		frame(12, 11, 0, "https://pay.example/card", "gc-doc", 0, node("button", "Pay", 1)),
		frame(13, 0, -1, "https://lost.example/", "lost-doc", 0, node("button", "Lost", 1)),
	)
}

func nestedSnapshot(t testing.TB) *grounding.Snapshot {
	t.Helper()
	s := mustBuild(t, nested(), grounding.NewRefs())
	for _, ref := range []string{"e1", "e2", "f1e1", "f1e2", "f2e1", "f3e1"} {
		if _, ok := s.Elements[ref]; !ok {
			t.Fatalf("fixture lacks %s:\n%s", ref, s.Text)
		}
	}
	return s
}

func TestCheckReturnsTheElementWhenNothingMoved(t *testing.T) {
	s := nestedSnapshot(t)
	for _, ref := range []string{"e1", "f1e1", "f2e1"} {
		el, err := s.Check(ref, s.Frames())
		if err != nil {
			t.Errorf("Check(%s) = %v", ref, err)
			continue
		}
		if !equalElement(el, s.Elements[ref]) {
			t.Errorf("Check(%s) = %+v, want %+v", ref, el, s.Elements[ref])
		}
	}
	el, _ := s.Check("f2e1", s.Frames())
	if el.Frame != 12 || el.Doc != "gc-doc" || el.ID != 1 || el.Name != "Pay" {
		t.Errorf("f2e1 resolved to %+v", el)
	}
}

func TestCheckUnknownRefIsStale(t *testing.T) {
	s := nestedSnapshot(t)
	for _, ref := range []string{"", "e99", "f2e2", "f9e1", "E1", "e1 ", "[ref=e1]"} {
		if el, err := s.Check(ref, s.Frames()); !errors.Is(err, grounding.ErrStaleRef) {
			t.Errorf("Check(%q) = %+v, %v; want ErrStaleRef", ref, el, err)
		}
	}
}

func TestCheckStaleWhenTheElementsFrameMovedOn(t *testing.T) {
	cases := []struct {
		name  string
		ref   string
		frame int
		to    func(grounding.FrameState) (grounding.FrameState, bool)
	}{
		{"top frame new document", "e1", 0, func(f grounding.FrameState) (grounding.FrameState, bool) {
			f.Doc = "other"
			return f, true
		}},
		{"top frame epoch bump", "e1", 0, func(f grounding.FrameState) (grounding.FrameState, bool) {
			f.Epoch++
			return f, true
		}},
		{"grandchild new document", "f2e1", 12, func(f grounding.FrameState) (grounding.FrameState, bool) {
			f.Doc = "other"
			return f, true
		}},
		{"grandchild epoch bump", "f2e1", 12, func(f grounding.FrameState) (grounding.FrameState, bool) {
			f.Epoch++
			return f, true
		}},
		{"grandchild frame gone", "f2e1", 12, func(f grounding.FrameState) (grounding.FrameState, bool) {
			return f, false
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := nestedSnapshot(t)
			cur := s.Frames()
			if next, keep := c.to(cur[c.frame]); keep {
				cur[c.frame] = next
			} else {
				delete(cur, c.frame)
			}
			if el, err := s.Check(c.ref, cur); !errors.Is(err, grounding.ErrStaleRef) {
				t.Errorf("Check(%s) = %+v, %v; want ErrStaleRef", c.ref, el, err)
			}
		})
	}
}

func TestCheckStaleWhenAnAncestorFrameMovedOn(t *testing.T) {
	// The grandchild's own document is unchanged, but the page around it
	// navigated: its place on screen can no longer be trusted.
	for _, anc := range []int{0, 11} {
		for _, bump := range []string{"doc", "epoch", "gone"} {
			s := nestedSnapshot(t)
			cur := s.Frames()
			f := cur[anc]
			switch bump {
			case "doc":
				f.Doc += "-new"
				cur[anc] = f
			case "epoch":
				f.Epoch++
				cur[anc] = f
			case "gone":
				delete(cur, anc)
			}
			if el, err := s.Check("f2e1", cur); !errors.Is(err, grounding.ErrStaleRef) {
				t.Errorf("frame %d %s: Check(f2e1) = %+v, %v; want ErrStaleRef", anc, bump, el, err)
			}
		}
	}
}

func TestCheckIgnoresFramesOffTheElementsPath(t *testing.T) {
	s := nestedSnapshot(t)
	cur := s.Frames()
	cur[12] = grounding.FrameState{Doc: "elsewhere", Epoch: 9}
	delete(cur, 13)
	cur[99] = grounding.FrameState{Doc: "new frame"}
	if _, err := s.Check("f1e1", cur); err != nil {
		t.Errorf("a change below or beside the element's frame made Check fail: %v", err)
	}
}

func TestCheckUnplacedFrameIsNoFrameUnlessStale(t *testing.T) {
	s := nestedSnapshot(t)
	if _, err := s.Check("f3e1", s.Frames()); !errors.Is(err, grounding.ErrNoFrame) {
		t.Errorf("Check(f3e1) = %v, want ErrNoFrame", err)
	}
	cur := s.Frames()
	cur[13] = grounding.FrameState{Doc: "lost-doc", Epoch: 1}
	if _, err := s.Check("f3e1", cur); !errors.Is(err, grounding.ErrStaleRef) {
		t.Errorf("Check(f3e1) after its epoch moved = %v, want ErrStaleRef", err)
	}
}

func TestFramesIsACopy(t *testing.T) {
	s := nestedSnapshot(t)
	cur := s.Frames()
	cur[0] = grounding.FrameState{Doc: "tampered"}
	if _, err := s.Check("e1", s.Frames()); err != nil {
		t.Errorf("editing the map Frames returned changed the snapshot: %v", err)
	}
	want := map[int]grounding.FrameState{
		0: {Doc: "top-doc", Epoch: 4}, 11: {Doc: "child-doc", Epoch: 1}, 12: {Doc: "gc-doc"}, 13: {Doc: "lost-doc"},
	}
	got := s.Frames()
	if len(got) != len(want) {
		t.Fatalf("Frames = %v, want %v", got, want)
	}
	for id, f := range want {
		if got[id] != f {
			t.Errorf("Frames[%d] = %+v, want %+v", id, got[id], f)
		}
	}
}
