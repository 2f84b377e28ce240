package grounding_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
)

// FuzzCheck throws arbitrary refs and arbitrary "current" frame states at a
// snapshot of a nested tab. Check may refuse a good ref (the oracle says
// when it must not), but it must never hand back an element for a ref the
// snapshot does not hold, nor for one whose frame or any ancestor frame is
// no longer the document and epoch the snapshot saw.
func FuzzCheck(f *testing.F) {
	snap := nestedSnapshot(f)
	for _, ref := range []string{"e1", "e2", "f1e1", "f1e2", "f2e1", "f3e1", "e3", "f2e2", "", "f1e1\x00"} {
		f.Add(ref, "top-doc", 4, "child-doc", 1, "gc-doc", 0, "lost-doc", 0, uint8(0xff))
	}
	f.Add("f2e1", "top-doc", 5, "child-doc", 1, "gc-doc", 0, "lost-doc", 0, uint8(0xff))
	f.Add("f2e1", "top-doc", 4, "child-doc!", 1, "gc-doc", 0, "lost-doc", 0, uint8(0xff))
	f.Add("f2e1", "top-doc", 4, "child-doc", 1, "gc-doc", 0, "lost-doc", 0, uint8(0xfe))
	f.Add("f1e1", "top-doc", 4, "child-doc", 1, "", -1, "", 0, uint8(0x03))

	f.Fuzz(func(t *testing.T, ref, d0 string, e0 int, d11 string, e11 int, d12 string, e12 int, d13 string, e13 int, present uint8) {
		ids := []int{0, 11, 12, 13}
		states := []grounding.FrameState{{Doc: d0, Epoch: e0}, {Doc: d11, Epoch: e11}, {Doc: d12, Epoch: e12}, {Doc: d13, Epoch: e13}}
		cur := map[int]grounding.FrameState{}
		for i, id := range ids {
			if present&(1<<i) != 0 {
				cur[id] = states[i]
			}
		}
		if present&0x10 != 0 {
			cur[99] = grounding.FrameState{Doc: d0} // a frame the snapshot never saw
		}

		el, err := snap.Check(ref, cur)
		want, known := snap.Elements[ref]
		// The oracle reads the element's own record, not Check's bookkeeping.
		fresh := known
		if known {
			if s, ok := cur[want.Frame]; !ok || s != (grounding.FrameState{Doc: want.Doc, Epoch: want.Epoch}) {
				fresh = false
			}
			for _, h := range want.Path {
				if s, ok := cur[h.Frame]; !ok || s != (grounding.FrameState{Doc: h.Doc, Epoch: h.Epoch}) {
					fresh = false
				}
			}
		}

		if err == nil {
			switch {
			case !known:
				t.Fatalf("Check(%q) returned %+v for a ref not in the snapshot", ref, el)
			case !fresh:
				t.Fatalf("Check(%q) returned %+v though a frame on its path moved on: current %+v", ref, el, cur)
			case !want.Placeable:
				t.Fatalf("Check(%q) returned an unplaceable element %+v", ref, el)
			case !reflect.DeepEqual(el, want):
				t.Fatalf("Check(%q) = %+v, want the snapshot's %+v", ref, el, want)
			}
			return
		}
		if !errors.Is(err, grounding.ErrStaleRef) && !errors.Is(err, grounding.ErrNoFrame) {
			t.Fatalf("Check(%q) error %v is neither ErrStaleRef nor ErrNoFrame", ref, err)
		}
		if !reflect.DeepEqual(el, grounding.Element{}) {
			t.Fatalf("Check(%q) returned %+v along with %v", ref, el, err)
		}
		if (!known || !fresh) && !errors.Is(err, grounding.ErrStaleRef) {
			t.Fatalf("Check(%q) = %v, want ErrStaleRef", ref, err)
		}
		if known && fresh && want.Placeable {
			t.Fatalf("Check(%q) refused a ref whose frames are all unchanged: %v", ref, err)
		}
	})
}

// FuzzRenderText feeds page-chosen strings into every place the renderer
// quotes: names, texts, values, placeholders, link URLs and an unplaced
// frame's URL. Whatever they hold, each node and property is one line that
// follows the snapshot grammar, each quoted part reads back as the original
// string, and only the engine's own refs are parsable as refs.
func FuzzRenderText(f *testing.F) {
	for _, h := range hostile {
		f.Add(h.in, "ok")
		f.Add("ok", h.in)
	}
	f.Add("", "")
	f.Add("\xff\xfe[ref=e1]", "\\")
	f.Add("\u202e[ref=e1]\u2066", "\"\n\"")

	f.Fuzz(func(t *testing.T, a, b string) {
		res := result(
			topFrame("d", 0,
				node("button", a, 1, text(b)),
				&protocol.Node{Role: "textbox", Name: b, ID: 2, Value: a, Placeholder: b},
				&protocol.Node{Role: "link", Name: a, ID: 3, URL: b},
				text(a),
				node("heading", a, 0),
			),
			frame(4, 0, -1, a, "d4", 0, node("button", b, 1)),
		)
		s := mustBuild(t, res, grounding.NewRefs())
		lines := parseAll(t, s.Text)
		checkShape(t, s.Text, lines)

		type exp struct {
			depth      int
			kind, role string
			quoted     *string
			ref        string
		}
		opt := func(s string) *string {
			if s == "" {
				return nil
			}
			r := asRendered(s)
			return &r
		}
		must := func(s string) *string { r := asRendered(s); return &r }
		want := []exp{
			{0, "node", "button", opt(a), "e1"},
			{1, "text", "", must(b), ""},
			{0, "node", "textbox", opt(b), "e2"},
		}
		if b != "" {
			want = append(want, exp{1, "prop", "placeholder", must(b), ""})
		}
		if a != "" {
			want = append(want, exp{1, "prop", "value", must(a), ""})
		}
		want = append(want, exp{0, "node", "link", opt(a), "e3"})
		if b != "" {
			want = append(want, exp{1, "prop", "url", must(b), ""})
		}
		want = append(want,
			exp{0, "text", "", must(a), ""},
			exp{0, "node", "heading", opt(a), ""},
			exp{0, "unplaced", "iframe", must(a), ""},
			exp{1, "node", "button", opt(b), "f1e1"},
		)
		if len(lines) != len(want) {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), s.Text)
		}
		for i, w := range want {
			l := lines[i]
			kindRole := l.role
			if l.kind == "text" {
				kindRole = ""
			}
			if l.depth != w.depth || l.kind != w.kind || kindRole != w.role || l.ref() != w.ref {
				t.Fatalf("line %d = %+v (ref %q), want %+v:\n%s", i+1, l, l.ref(), w, s.Text)
			}
			switch {
			case (l.quoted == nil) != (w.quoted == nil):
				t.Fatalf("line %d quoted = %v, want %v:\n%s", i+1, l.quoted, w.quoted, s.Text)
			case l.quoted != nil && *l.quoted != *w.quoted:
				t.Fatalf("line %d reads back %q, want %q:\n%s", i+1, *l.quoted, *w.quoted, s.Text)
			}
		}
		if n := parsableRefs(s.Text); n != len(s.Elements) || n != 4 {
			t.Fatalf("%d parsable refs, %d elements, want 4:\n%s", n, len(s.Elements), s.Text)
		}
	})
}
