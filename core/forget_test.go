package core_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

// A closed tab is forgotten whole: a menu-bar app that runs for weeks while
// the person opens and closes thousands of tabs keeps only the open ones,
// with their snapshots. A closed tab's id names nothing; a tab that comes
// back under its Chrome number (a tab list that was already old when it
// came) comes back unshared, with none of its old snapshots and none of its
// old refs given again.
func TestClosedTabsAreForgotten(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	ctx := context.Background()
	events, stop := f.Subscribe(256)
	defer stop()
	closed := func(id string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for slices.ContainsFunc(f.Tabs(), func(ti vocab.TabInfo) bool { return ti.ID == id }) {
			select {
			case <-events:
			case <-deadline:
				t.Fatalf("tab %s is still listed after it was closed", id)
			}
		}
	}
	var last string
	seen := map[string]bool{} // refs given on the tabs opened under Chrome's number 100
	for i := 0; i < 100; i++ {
		url := fmt.Sprintf("https://shop.example.com/item/%d", i)
		p := shop()
		p.URL = url
		f.Browser.Open(100, p)
		id := f.WaitTab(t, url)
		if err := f.SetShare(id, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 3; j++ {
			snap, err := f.agent.Snapshot(ctx, id)
			if err != nil {
				t.Fatalf("snapshot %d of tab %s: %v", j, id, err)
			}
			for _, ref := range regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1) {
				seen[ref[1]] = true
			}
		}
		f.Browser.Close(100)
		closed(id)
		last = id
	}
	if n := f.TabStates(); n != 1 {
		t.Fatalf("the engine keeps %d tabs after 100 were opened and closed beside one open tab, want 1", n)
	}
	var ce *vocab.Error
	if _, err := f.agent.Snapshot(ctx, last); !errors.As(err, &ce) || ce.Code != vocab.CodeNoTab {
		t.Fatalf("a snapshot of the closed tab %s: %v, want no_tab", last, err)
	}
	p := shop()
	p.URL = "https://shop.example.com/new"
	f.Browser.Open(100, p)
	id := f.WaitTab(t, p.URL)
	if l := f.Share(id); l != vocab.None {
		t.Fatalf("a tab back under a closed tab's Chrome number is shared at %v", l)
	}
	if err := f.SetShare(id, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	if _, err := f.agent.Find(ctx, id, "Place order", ""); err != nil {
		t.Fatal(err)
	}
	if n := f.TabStates(); n != 2 {
		t.Fatalf("the engine keeps %d tabs with two open", n)
	}
	// Back under its id, the tab never gives a ref it gave before.
	snap, err := f.agent.Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1) {
		if seen[ref[1]] {
			t.Errorf("the tab back under id %s gives %s again", id, ref[1])
		}
	}
}
