package grounding_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

func TestRefsKeptForSameElementAcrossBuilds(t *testing.T) {
	refs := grounding.NewRefs()
	child := frame(5, 0, 0, "https://shop.example/help", "help-doc", 0, node("button", "Ask", 1))
	s1 := mustBuild(t, result(topFrame("d1", 0,
		node("button", "A", 10),
		node("button", "B", 11),
		iframe("Help", 12, 0),
	), child), refs)
	assertText(t, s1.Text, testenv.Dedent(`
		- button "A" [ref=e1]
		- button "B" [ref=e2]
		- iframe "Help" [ref=e3]:
		  - button "Ask" [ref=f1e1]
	`))
	// A new element ahead of the others must not shift their refs.
	s2 := mustBuild(t, result(topFrame("d1", 0,
		node("button", "New", 13),
		node("button", "A", 10),
		node("button", "B", 11),
		iframe("Help", 12, 0),
	), child), refs)
	assertText(t, s2.Text, testenv.Dedent(`
		- button "New" [ref=e4]
		- button "A" [ref=e1]
		- button "B" [ref=e2]
		- iframe "Help" [ref=e3]:
		  - button "Ask" [ref=f1e1]
	`))
}

func TestRefsNewDocumentGetsRefsNeverSeenBefore(t *testing.T) {
	refs := grounding.NewRefs()
	build := func(topDoc, childDoc string) *grounding.Snapshot {
		// Element ids restart at 1 in every new document, so the ids repeat
		// on purpose.
		return mustBuild(t, result(
			topFrame(topDoc, 0, node("button", "A", 1), node("button", "B", 2), iframe("Help", 3, 0)),
			frame(5, 0, 0, "https://shop.example/help", childDoc, 0, node("button", "Ask", 1)),
		), refs)
	}
	s1 := build("d1", "c1")
	s2 := build("d2", "c1") // the top frame loaded a new document
	s3 := build("d2", "c2") // then the iframe did
	assertText(t, s2.Text, testenv.Dedent(`
		- button "A" [ref=e4]
		- button "B" [ref=e5]
		- iframe "Help" [ref=e6]:
		  - button "Ask" [ref=f1e1]
	`))
	assertText(t, s3.Text, testenv.Dedent(`
		- button "A" [ref=e4]
		- button "B" [ref=e5]
		- iframe "Help" [ref=e6]:
		  - button "Ask" [ref=f1e2]
	`))
	for ref, el := range s2.Elements {
		if el.Frame == 0 {
			if _, ok := s1.Elements[ref]; ok {
				t.Errorf("ref %s of the new document was already used in the old one", ref)
			}
		}
	}
	if _, ok := s3.Elements["f1e1"]; ok {
		t.Error("the iframe's new document reuses f1e1")
	}
}

func TestRefsNewElementIDAfterEpochBumpGetsNewRef(t *testing.T) {
	refs := grounding.NewRefs()
	s1 := mustBuild(t, result(topFrame("d1", 0, node("button", "Next", 1))), refs)
	// After pushState the extension forgets its ids and numbers on.
	s2 := mustBuild(t, result(topFrame("d1", 1, node("button", "Next", 2))), refs)
	assertText(t, s2.Text, "- button \"Next\" [ref=e2]\n")
	if _, err := s1.Check("e1", s2.Frames()); !errors.Is(err, grounding.ErrStaleRef) {
		t.Errorf("old snapshot's e1 after the epoch bump: %v, want ErrStaleRef", err)
	}
	if _, err := s2.Check("e1", s2.Frames()); !errors.Is(err, grounding.ErrStaleRef) {
		t.Errorf("e1 through the new snapshot: %v, want ErrStaleRef", err)
	}
}

func TestForgetKeepsCounters(t *testing.T) {
	refs := grounding.NewRefs()
	res := result(topFrame("d1", 0, node("button", "A", 1), node("button", "B", 2)))
	mustBuild(t, res, refs)

	refs.Forget(map[int]string{0: "d1"}) // still live: nothing changes
	assertText(t, mustBuild(t, res, refs).Text, "- button \"A\" [ref=e1]\n- button \"B\" [ref=e2]\n")

	refs.Forget(map[int]string{})
	// Forgotten mappings come back as new refs, never as e1 and e2 again.
	assertText(t, mustBuild(t, res, refs).Text, "- button \"A\" [ref=e3]\n- button \"B\" [ref=e4]\n")
}

func TestRefsNeverReusedAcrossRandomBuilds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sim := newTabSim(rng)
	refs := grounding.NewRefs()
	owner := map[string]elemKey{} // every ref ever shown → what it named
	var prev map[elemKey]string
	for i := 0; i < 1000; i++ {
		s := mustBuild(t, sim.step(), refs)
		lines := parseAll(t, s.Text)
		shown := map[string]bool{}
		for _, l := range lines {
			if r := l.ref(); r != "" {
				if shown[r] {
					t.Fatalf("build %d shows %s twice:\n%s", i, r, s.Text)
				}
				shown[r] = true
			}
		}
		if len(shown) != len(s.Elements) {
			t.Fatalf("build %d: %d refs shown, %d recorded", i, len(shown), len(s.Elements))
		}
		cur := map[elemKey]string{}
		for ref, el := range s.Elements {
			if !shown[ref] {
				t.Fatalf("build %d: %s recorded but not shown", i, ref)
			}
			k := elemKey{el.Frame, el.Doc, el.ID}
			if was, ok := owner[ref]; ok && was != k {
				t.Fatalf("build %d: %s named %+v, now %+v", i, ref, was, k)
			}
			owner[ref] = k
			if old, ok := prev[k]; ok && old != ref {
				t.Fatalf("build %d: %+v moved from %s to %s between consecutive builds", i, k, old, ref)
			}
			cur[k] = ref
		}
		prev = cur
	}
	if len(owner) < 1000 {
		t.Errorf("only %d distinct refs in 1000 builds: the simulation is too tame", len(owner))
	}
}

func TestRefsConcurrentBuildsStayUnique(t *testing.T) {
	// core may snapshot one tab for two agent sessions at once.
	refs := grounding.NewRefs()
	var mu sync.Mutex
	owner := map[string]elemKey{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			sim := newTabSim(rand.New(rand.NewPCG(uint64(g), 7)))
			for range 100 {
				s, err := grounding.Build(sim.step(), refs, grounding.BuildOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for ref, el := range s.Elements {
					// Docs are per goroutine, so keys never collide between them.
					k := elemKey{el.Frame, el.Doc, el.ID}
					if was, ok := owner[ref]; ok && was != k {
						t.Errorf("%s named %+v and %+v", ref, was, k)
					}
					owner[ref] = k
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

type elemKey struct {
	frame int
	doc   string
	id    int
}

// tabSim plays a tab over time the way the extension reports it: documents
// get fresh generations and restart their element ids at 1, same-document
// navigations renumber every element, elements come and go, and child
// frames vanish and return.
type tabSim struct {
	rng    *rand.Rand
	frames map[int]*simFrame
	docs   int
}

type simFrame struct {
	parent, index int
	doc           string
	epoch         int
	next          int
	live          []int
}

func newTabSim(rng *rand.Rand) *tabSim {
	s := &tabSim{rng: rng, frames: map[int]*simFrame{}}
	// frame 3 and 8 sit in the top frame; 9 sits in frame 3.
	for id, pi := range map[int][2]int{0: {-1, -1}, 3: {0, 0}, 8: {0, 1}, 9: {3, 0}} {
		f := &simFrame{parent: pi[0], index: pi[1]}
		s.newDoc(f)
		s.frames[id] = f
	}
	return s
}

func (s *tabSim) newDoc(f *simFrame) {
	s.docs++
	f.doc = fmt.Sprintf("doc%p-%d", s, s.docs)
	f.epoch, f.next, f.live = 0, 1, nil
}

func (s *tabSim) step() *protocol.SnapshotResult {
	res := &protocol.SnapshotResult{Zoom: 1}
	for _, id := range []int{0, 3, 8, 9} {
		f := s.frames[id]
		switch r := s.rng.IntN(20); {
		case r == 0:
			s.newDoc(f)
		case r == 1:
			f.epoch++
			f.live = nil
		}
		var keep []int
		for _, e := range f.live {
			if s.rng.IntN(8) != 0 {
				keep = append(keep, e)
			}
		}
		for n := s.rng.IntN(4); n > 0; n-- {
			keep = append(keep, f.next)
			f.next++
		}
		s.rng.Shuffle(len(keep), func(i, j int) { keep[i], keep[j] = keep[j], keep[i] })
		f.live = keep
		if id != 0 && s.rng.IntN(6) == 0 {
			continue // not readable this time
		}
		var kids []*protocol.Node
		for _, e := range keep {
			if s.rng.IntN(5) == 0 {
				kids = append(kids, node("button", "", 0)) // not hit-testable: no id
			}
			kids = append(kids, node("button", fmt.Sprint("b", e), e))
		}
		// Iframe elements carry ids of their own, far from the buttons'.
		switch id {
		case 0:
			kids = append(kids, iframe("three", 100000, 0), iframe("eight", 100001, 1))
		case 3:
			kids = append(kids, iframe("nine", 100000, 0))
		}
		res.Frames = append(res.Frames, frame(id, f.parent, f.index, fmt.Sprint("https://f", id, ".example/"), f.doc, f.epoch, kids...))
	}
	return res
}
