package core

import (
	"slices"
	"testing"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/vocab"
)

// A tab list the extension read before another is never applied after it,
// however the two reach the engine: an answer read before a pushed list
// would close the tab that list opened, and its share with it. A new
// connection numbers its lists anew.
func TestAnOlderTabListIsNotApplied(t *testing.T) {
	e := &Engine{
		shares: approvals.NewShares(nil), broker: approvals.NewBroker(approvals.BrokerOptions{}),
		tabs: map[string]*tabState{}, byChrome: map[chromeTab]string{}, connected: map[string]bool{},
		tabLists: map[string]uint64{}, tabSeq: map[string]uint64{},
	}
	ids := func() []int {
		var out []int
		for k := range e.byChrome {
			out = append(out, k.id)
		}
		slices.Sort(out)
		return out
	}
	tab := protocol.Tab{ID: 7, URL: "https://shop.example.com/", Title: "Shop", Active: true}
	gen := e.tabLists["p"] // refreshTabs asks
	e.applyTabs("p", protocol.TabsResult{Seq: 2, Tabs: []protocol.Tab{tab}}, true, 0)
	id := e.byChrome[chromeTab{"p", 7}]
	if err := e.shares.Set(id, "https://shop.example.com", vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	e.applyTabs("p", protocol.TabsResult{Seq: 1}, false, gen) // the answer, read first, comes last
	if got := ids(); !slices.Equal(got, []int{7}) || e.shares.Get(id).Level != vocab.ReadOnly {
		t.Fatalf("after an older list: tabs %v, share %v", got, e.shares.Get(id).Level)
	}
	e.applyTabs("p", protocol.TabsResult{Seq: 3}, false, gen) // newer: the tab was closed
	if got := ids(); len(got) != 0 {
		t.Fatalf("after a newer list without it, tabs %v", got)
	}
	// Unnumbered lists (an older extension): an answer after a pushed list is dropped.
	gen = e.tabLists["q"]
	e.applyTabs("q", protocol.TabsResult{Tabs: []protocol.Tab{tab}}, true, 0)
	e.applyTabs("q", protocol.TabsResult{}, false, gen)
	if got := ids(); !slices.Equal(got, []int{7}) {
		t.Fatalf("an unnumbered answer after a pushed list was applied: %v", got)
	}
}
