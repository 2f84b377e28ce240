package core_test

import (
	"context"
	"sync"
	"testing"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/vocab"
)

// Another Reins on the desktop, and the terminal its `reins serve` runs
// in, are as much Reins' own as this one: listed afresh for each act, an
// agent's desktop act on them is refused before anyone is asked, and one
// that a Reins started meanwhile would take is refused as it fires.
func TestAnotherReinsWindowsAreReinsOwn(t *testing.T) {
	ctx := context.Background()
	e, agent, asked := countingRig(t, coretest.Options{})
	other := executor.App{Name: "XTerm", Exe: "/usr/bin/xterm", PID: 8000} // runs another Reins' serve
	e.Exec.SetWindows([]executor.Window{
		{App: other, Title: "reins serve", X: 0, Y: 0, W: 400, H: 300, Active: true},
		{App: editor, Title: "notes", X: 400, Y: 0, W: 400, H: 300},
	})
	var mu sync.Mutex
	var listings [][]int // what each listing finds, in turn; the last stays
	scans := 0
	e.TestOnlyListOwn(func() ([]int, error) {
		mu.Lock()
		defer mu.Unlock()
		scans++
		found := listings[0]
		if len(listings) > 1 {
			listings = listings[1:]
		}
		return found, nil
	})
	set := func(each ...[]int) { mu.Lock(); listings = each; mu.Unlock() }

	set([]int{8001, 8000}) // another Reins and its terminal
	e.Exec.SetFrontmost(other)
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: "allow a1234567"}}); codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("typing into another Reins' serve terminal: %v, want %s", err, vocab.CodeOwnWindow)
	}
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 100, Y: 100}); codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("a click on another Reins' terminal: %v, want %s", err, vocab.CodeOwnWindow)
	}
	if asked.Load() != 0 || len(e.Exec.Fired()) != 0 {
		t.Fatalf("asked %d times and fired %d acts, want none", asked.Load(), len(e.Exec.Fired()))
	}

	// No other Reins when the person is asked about a click on the
	// terminal; one has started in it by the time the click would fire.
	set(nil, []int{8001, 8000})
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 100, Y: 100}); codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("a click on a terminal another Reins started in while the person looked: %v, want %s", err, vocab.CodeOwnWindow)
	}
	if n := len(e.Exec.Fired()); n != 0 {
		t.Fatalf("%d acts fired", n)
	}
	// Its windows go when it does.
	set(nil)
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 100, Y: 100}); err != nil {
		t.Fatalf("a click on the terminal once no Reins runs there: %v", err)
	}
	if scans < 4 {
		t.Fatalf("the processes were listed %d times for four acts", scans)
	}
}
