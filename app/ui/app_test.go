package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

func TestStartFollowsTheEngine(t *testing.T) {
	a := testApp(t)
	e := NewFakeEngine()
	e.SetTabs(vocab.TabInfo{ID: "1", Title: "Shop", Origin: "https://shop.example.com"})
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
	waitFor(t, "the popup to show one request", func() bool { return u.Popup().Len() == 1 && u.PopupWindow() != nil })
	if find(u.TrayItems(), "Pending approvals (1)…") == nil {
		t.Fatal("tray does not count the pending approval")
	}
	clock.Advance(ArmDelay)
	test.Tap(u.Popup().button("once"))
	waitFor(t, "the popup to empty", func() bool { return u.Popup().Len() == 0 })
	if got := e.Answers(); len(got) != 1 || got[0] != (Answered{ID: "a1", Decision: vocab.AllowOnce}) {
		t.Fatalf("answers = %v", got)
	}
	// Sharing from the menu reaches the engine.
	find(under(find(u.TrayItems(), "Tabs").Children, "Shop (shop.example.com)"), "Control").Do()
	if e.Share("1") != vocab.Control {
		t.Fatal("choosing Control in the menu did not share the tab")
	}
	find(u.TrayItems(), "Pause all agents").Do()
	if !e.Paused() {
		t.Fatal("Pause all agents did not pause")
	}
}

// spyApp records what becomes of the windows the UI makes.
type spyApp struct {
	fyne.App
}

func (a spyApp) NewWindow(title string) fyne.Window {
	return &spyWindow{Window: a.App.NewWindow(title)}
}

// spyWindow is a window that tells whether it is shown, and keeps its close
// intercept so a test can press the close button.
type spyWindow struct {
	fyne.Window
	visible   bool
	hides     int
	intercept func()
}

func (w *spyWindow) Show()                      { w.visible = true; w.Window.Show() }
func (w *spyWindow) Hide()                      { w.visible = false; w.hides++; w.Window.Hide() }
func (w *spyWindow) SetCloseIntercept(f func()) { w.intercept = f; w.Window.SetCloseIntercept(f) }

// startSpied starts the UI on a spied test app; engine events run on the
// test's goroutine, in waitFor.
func startSpied(t *testing.T, e *FakeEngine) (*UI, *FakeClock) {
	t.Helper()
	clock := NewFakeClock(t0)
	queue := make(chan func(), 64)
	u := Start(Options{App: spyApp{testApp(t)}, Engine: e, Clock: clock, testOnlyDo: func(f func()) { queue <- f }})
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
	t.Cleanup(func() {
		u.Stop()
		drain = func() {}
	})
	return u, clock
}

func popupWindow(t *testing.T, u *UI) *spyWindow {
	t.Helper()
	w, ok := u.PopupWindow().(*spyWindow)
	if !ok {
		t.Fatalf("popup window is %T", u.PopupWindow())
	}
	return w
}

func TestAllowHidesThePopupWindowForARest(t *testing.T) {
	e := NewFakeEngine()
	u, clock := startSpied(t, e)
	e.Ask(click("a1", true))
	e.Ask(payNow("a2"))
	waitFor(t, "the popup to show two requests", func() bool { return u.Popup().Len() == 2 && u.PopupWindow() != nil })
	w := popupWindow(t, u)
	if !w.visible {
		t.Fatal("the popup window is not shown with two requests waiting")
	}
	clock.Advance(ArmDelay)
	test.Tap(u.Popup().button("once"))
	if w.visible {
		t.Fatal("the popup window stays up after Allow: Reins would be in front when the act fires, and it would be refused")
	}
	// A request arriving meanwhile waits for the rest to end.
	e.Ask(click("a3", true))
	waitFor(t, "the popup to hold two requests", func() bool { return u.Popup().Len() == 2 })
	// The person looks for the pending approvals in the menu: still resting.
	find(u.TrayItems(), "Pending approvals (2)…").Do()
	if w.visible {
		t.Fatal("the popup window came back during the rest")
	}
	clock.Advance(AllowRest - time.Millisecond)
	if w.visible {
		t.Fatal("the popup window came back before the rest ended")
	}
	clock.Advance(time.Millisecond)
	if !w.visible || u.Popup().Current() == nil || u.Popup().Current().ID != "a2" {
		t.Fatalf("after the rest: window shown %v, request %v; want a2 shown", w.visible, u.Popup().Current())
	}
	if got := e.Answers(); len(got) != 1 || got[0] != (Answered{ID: "a1", Decision: vocab.AllowOnce}) {
		t.Fatalf("answers = %v", got)
	}
}

func TestDenyKeepsThePopupWindowUpForTheNext(t *testing.T) {
	e := NewFakeEngine()
	u, _ := startSpied(t, e)
	e.Ask(click("a1", true))
	e.Ask(payNow("a2"))
	waitFor(t, "the popup to show two requests", func() bool { return u.Popup().Len() == 2 && u.PopupWindow() != nil })
	w := popupWindow(t, u)
	test.Tap(u.Popup().button("deny"))
	if !w.visible || w.hides != 0 || u.Popup().Current() == nil || u.Popup().Current().ID != "a2" {
		t.Fatalf("after Deny: window shown %v (hidden %d times), request %v; want a2 at once", w.visible, w.hides, u.Popup().Current())
	}
}

func TestClosingThePopupDeniesAllAndHidesLikeAnAnswer(t *testing.T) {
	e := NewFakeEngine()
	u, _ := startSpied(t, e)
	e.Ask(click("a1", true))
	e.Ask(click("a2", true))
	waitFor(t, "the popup to show two requests", func() bool { return u.Popup().Len() == 2 && u.PopupWindow() != nil })
	w := popupWindow(t, u)
	if w.intercept == nil {
		t.Fatal("the popup window has no close intercept")
	}
	w.intercept()
	if got := e.Answers(); len(got) != 2 || got[0] != (Answered{ID: "a1", Decision: vocab.Deny}) || got[1] != (Answered{ID: "a2", Decision: vocab.Deny}) {
		t.Fatalf("answers = %v, want both denied", got)
	}
	if w.visible || w.hides != 1 || u.popupUp {
		t.Fatalf("after closing: window shown %v, hidden %d times, UI thinks it up %v; want one hide through hidePopup", w.visible, w.hides, u.popupUp)
	}
}

// waitFor waits for ok, running the UI work queued by engine events
// (drain) between looks: the events arrive on the subscription's
// goroutine.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	looked := false
	testenv.WaitFor(t, what, func() bool {
		if looked {
			drain()
		}
		looked = true
		return ok()
	})
}

// drain runs the UI work queued by engine events, on the test's goroutine.
var drain = func() {}

// testApp is a test app with the Reins theme.
func testApp(t *testing.T) fyne.App {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(NewTheme())
	return a
}

// trayApp is a spied app with a system tray: it records what the UI hands
// the tray, in order.
type trayApp struct {
	spyApp
	calls []string
	menus []*fyne.Menu
	icons []fyne.Resource
}

func (a *trayApp) SetSystemTrayMenu(m *fyne.Menu) {
	a.calls = append(a.calls, "menu")
	a.menus = append(a.menus, m)
}

func (a *trayApp) SetSystemTrayIcon(r fyne.Resource) {
	a.calls = append(a.calls, "icon")
	a.icons = append(a.icons, r)
}

func (a *trayApp) SetSystemTrayWindow(fyne.Window) {}

func startTray(t *testing.T, e *FakeEngine, a fyne.App, tray bool, host <-chan bool) *UI {
	t.Helper()
	queue := make(chan func(), 64)
	u := New(Options{App: a, Engine: e, Clock: NewFakeClock(t0), Tray: tray, TrayHost: host, testOnlyDo: func(f func()) { queue <- f }})
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
	t.Cleanup(func() {
		u.Stop()
		drain = func() {}
	})
	return u
}

func TestTheTrayHasItsIconAndMenuBeforeTheAppRuns(t *testing.T) {
	e := NewFakeEngine()
	e.SetConnected(true)
	a := &trayApp{spyApp: spyApp{testApp(t)}}
	u := startTray(t, e, a, true, nil)
	// fyne starts its tray only if a menu is set before Run, and a Linux
	// host shows an empty icon unless a PNG came first.
	if len(a.calls) < 2 || a.calls[0] != "icon" || a.calls[1] != "menu" {
		t.Fatalf("tray calls before Run = %v, want the icon, then the menu", a.calls)
	}
	if a.icons[0] != TrayIcon(IconIdle) {
		t.Fatalf("first icon = %v, want the idle PNG", a.icons[0].Name())
	}
	if u.StandIn() != nil {
		t.Fatal("a window was made before the app runs")
	}
	u.Show()
	if u.StandInShown() {
		t.Fatal("the stand-in shows although the tray has a host")
	}
	e.Ask(click("a1", true))
	waitFor(t, "the waiting tray icon", func() bool { return a.icons[len(a.icons)-1] == TrayIcon(IconWaiting) })
	// Every menu handed over is the first one, refilled: fyne refreshes
	// from the first menu once its tray is ready.
	for _, m := range a.menus {
		if m != a.menus[0] {
			t.Fatal("the tray was handed a second menu; fyne would show the first one, stale")
		}
	}
	if !hasLabel(a.menus[0], "Pending approvals (1)…") {
		t.Fatal("the tray's menu does not count the pending approval")
	}
	// An event that changes nothing the menu shows does not rebuild it
	// under the person's pointer.
	n := len(a.menus)
	e.SetTabs() // no tabs before, none now
	drain()
	if len(a.menus) != n {
		t.Fatal("the menu was rebuilt though nothing in it changed")
	}
	find(u.TrayItems(), "Pause all agents").Do()
	if a.icons[len(a.icons)-1] != TrayIcon(IconPaused) {
		t.Fatal("pausing did not put the slash on the icon")
	}
}

func hasLabel(m *fyne.Menu, label string) bool {
	for _, it := range m.Items {
		if it.Label == label {
			return true
		}
	}
	return false
}

func TestTheStandInFollowsTheTrayHost(t *testing.T) {
	e := NewFakeEngine()
	e.SetConnected(true)
	host := make(chan bool, 4)
	host <- false
	a := &trayApp{spyApp: spyApp{testApp(t)}}
	u := startTray(t, e, a, true, host)
	if a.calls[len(a.calls)-1] != "menu" {
		t.Fatal("without a host yet, the tray still gets its menu: a host may come")
	}
	u.Show()
	if !u.StandInShown() {
		t.Fatal("no stand-in while no tray host is there")
	}
	w := u.StandIn().(*spyWindow)
	host <- true
	waitFor(t, "the stand-in to hide", func() bool { return !u.StandInShown() })
	if w.visible {
		t.Fatal("the stand-in stays on screen with a tray host")
	}
	host <- false
	waitFor(t, "the stand-in to show", u.StandInShown)
	if !w.visible || u.StandIn() != fyne.Window(w) {
		t.Fatal("the stand-in did not come back when the host went away")
	}
	// Closing the stand-in quits, as Quit Reins does.
	quit := false
	u.opts.OnQuit = func() { quit = true }
	w.intercept()
	if !quit {
		t.Fatal("closing the stand-in did not quit")
	}
}

func TestWithoutASessionBusTheTrayIsNeverStarted(t *testing.T) {
	e := NewFakeEngine()
	e.SetConnected(true)
	a := &trayApp{spyApp: spyApp{testApp(t)}}
	u := startTray(t, e, a, false, nil)
	u.Show()
	e.Ask(click("a1", true))
	waitFor(t, "the popup to hold one request", func() bool { return u.Popup().Len() == 1 })
	if len(a.calls) != 0 {
		t.Fatalf("tray calls = %v without a session bus; fyne's tray would panic when Reins quits", a.calls)
	}
	if !u.StandInShown() {
		t.Fatal("no stand-in without a tray")
	}
}
