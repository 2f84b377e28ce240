package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/core"
)

func TestStartFollowsTheEngine(t *testing.T) {
	a := testApp(t)
	e := NewFakeEngine()
	e.SetTabs(core.TabInfo{ID: "1", Title: "Shop", Origin: "https://shop.example.com"})
	clock := NewFakeClock(t0)
	queue := make(chan func(), 64)
	u := Start(Options{App: a, Engine: e, Clock: clock, testOnlyDo: func(f func()) { queue <- f }})
	drain = func() {
		for {
			select {
			case f := <-queue:
				f()
			default:
				return
			}
		}
	}
	defer func() { drain = func() {} }()
	defer u.Stop()
	// No tray host: the stand-in window carries the same menu.
	if u.StandIn() == nil {
		t.Fatal("no stand-in window without a tray host")
	}
	if _, ok := u.StandIn().Content().(*widget.Menu); !ok {
		t.Fatalf("stand-in shows %T, want the menu", u.StandIn().Content())
	}
	e.Ask(click("a1", true))
	waitFor(t, func() bool { return u.Popup().Len() == 1 && u.PopupWindow() != nil })
	if find(u.TrayItems(), "Pending approvals (1)…") == nil {
		t.Fatal("tray does not count the pending approval")
	}
	clock.Advance(ArmDelay)
	test.Tap(u.Popup().button("once"))
	waitFor(t, func() bool { return u.Popup().Len() == 0 })
	if got := e.Answers(); len(got) != 1 || got[0] != (Answered{"a1", core.AllowOnce}) {
		t.Fatalf("answers = %v", got)
	}
	// Sharing from the menu reaches the engine.
	shop := find(find(u.TrayItems(), "Tabs").Children, "Shop (shop.example.com)")
	find(shop.Children, "Control").Do()
	if e.Share("1") != core.Control {
		t.Fatal("choosing Control in the menu did not share the tab")
	}
	find(u.TrayItems(), "Pause all agents").Do()
	if !e.Paused() {
		t.Fatal("Pause all agents did not pause")
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for i := 0; i < 200 && !ok(); i++ {
		time.Sleep(10 * time.Millisecond) // events arrive on the subscription's goroutine
		drain()
	}
	if !ok() {
		t.Fatal("timed out")
	}
}

// drain runs the UI work queued by engine events, on the test's goroutine.
var drain = func() {}

// testApp is a test app with the Reins theme.
func testApp(t *testing.T) fyne.App {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(NewTheme())
	return a
}
