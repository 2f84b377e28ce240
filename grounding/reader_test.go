package grounding

import (
	"errors"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
)

func readerPage(version int, same bool, name string) *protocol.SnapshotResult {
	id := version // the extension gives an element a new id when its name changes
	top := protocol.FrameReport{Frame: 0, Parent: -1, Index: -1, URL: "https://a.example/", Origin: "https://a.example", Doc: "d1", Version: version, Same: same}
	if !same {
		top.Root = &protocol.Node{Role: "document", Children: []*protocol.Node{{Role: "button", Name: name, ID: id, Box: &protocol.Rect{W: 10, H: 10}}}}
	}
	return &protocol.SnapshotResult{Zoom: 1, Frames: []protocol.FrameReport{top}}
}

func TestReaderReusesHeldTrees(t *testing.T) {
	r, refs := NewReader(), NewRefs()
	first, err := r.Build(readerPage(1, false, "Go"), refs, BuildOptions{ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Known(); got["0"] != "d1:1" {
		t.Fatalf("Known = %v", got)
	}
	again, err := r.Build(readerPage(1, true, ""), refs, BuildOptions{ID: "s2"})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != "s2" || again.Text != first.Text || again.Elements["e1"].Name != "Go" {
		t.Fatalf("a same tree did not give the same snapshot under the new id: %+v", again)
	}
	changed, err := r.Build(readerPage(2, false, "Stop"), refs, BuildOptions{ID: "s3"})
	if err != nil {
		t.Fatal(err)
	}
	if changed.Text == first.Text || changed.Elements["e2"].Name != "Stop" {
		t.Fatalf("a changed tree was not rebuilt:\n%s", changed.Text)
	}
	// "Same" for a version the reader does not hold is refused, and the
	// reader then asks for everything.
	if _, err := r.Build(readerPage(1, true, ""), refs, BuildOptions{ID: "s4"}); !errors.Is(err, ErrMissingTree) {
		t.Fatalf("got %v", err)
	}
	if len(r.Known()) != 0 {
		t.Fatal("the reader kept trees after a mismatch")
	}
}
