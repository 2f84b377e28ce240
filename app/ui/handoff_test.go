package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

func loginHandoff(id string) persondoor.Handoff {
	return persondoor.Handoff{ID: id, Agent: vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "/usr/bin/claude", Session: "s1"},
		Tab: "1", Title: "Cart — Shop", Origin: "https://shop.example.com", Now: "https://shop.example.com",
		Level: vocab.Control, Reason: "Please log in; I must not see your password.", Since: t0}
}

type handoffRig struct {
	eng   *FakeEngine
	clock *FakeClock
	p     *HandoffPanel
	w     fyne.Window
	shown int
}

func newHandoffRig(t *testing.T, hs ...persondoor.Handoff) *handoffRig {
	t.Helper()
	testApp(t)
	r := &handoffRig{eng: NewFakeEngine(), clock: NewFakeClock(t0)}
	for _, h := range hs {
		r.eng.StartHandoff(h)
	}
	r.p = NewHandoffPanel(HandoffOptions{Engine: r.eng, Clock: r.clock, OnShow: func() { r.shown++ }})
	r.w = test.NewTempWindow(t, r.p.Content())
	r.w.Resize(HandoffSize)
	r.p.Sync()
	return r
}

func (r *handoffRig) finished(t *testing.T, want ...FinishedHandoff) {
	t.Helper()
	got := r.eng.FinishedHandoffs()
	if len(got) != len(want) {
		t.Fatalf("finished %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("finished %v, want %v", got, want)
		}
	}
}

func TestTheHandoffWindowSaysWhoAsksAndWhat(t *testing.T) {
	r := newHandoffRig(t, loginHandoff("h1"))
	if r.shown != 1 || r.p.Current() == nil {
		t.Fatal("the window was not shown for the hand-off")
	}
	if who := r.p.who.String(); !strings.HasPrefix(who, "claude (pid 4121)") || !strings.Contains(who, "“Claude Code”") {
		t.Errorf("header %q", who)
	}
	if reason := r.p.reason.String(); !strings.Contains(reason, "the agent says “Please log in; I must not see your password.”") ||
		!strings.Contains(reason, "agent's words") {
		t.Errorf("the reason is not shown as the agent's: %q", reason)
	}
	if where := r.p.where.String(); !strings.Contains(where, "shop.example.com") || !strings.Contains(where, "“Cart — Shop”") {
		t.Errorf("where line %q", where)
	}
}

func TestDoneIsInertBeforeItArmsAndStopIsNot(t *testing.T) {
	r := newHandoffRig(t, loginHandoff("h1"), loginHandoff("h2"))
	test.Tap(r.p.button("done"))
	r.finished(t)
	if !r.p.button("done").Disabled() {
		t.Fatal("Done is enabled before it arms")
	}
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("done"))
	r.finished(t, FinishedHandoff{ID: "h1", Done: true})
	if c := r.p.Current(); c == nil || c.ID != "h2" {
		t.Fatalf("after Done the window shows %+v, want h2", c)
	}
	test.Tap(r.p.button("stop"))
	r.finished(t, FinishedHandoff{ID: "h1", Done: true}, FinishedHandoff{ID: "h2"})
	if r.p.Current() != nil {
		t.Fatal("the window still shows a hand-off")
	}
}

// Done with the tab on another site asks first, naming the site, and the
// confirmation arms as Allow does.
func TestDoneOnAnotherSiteAsksForThatSite(t *testing.T) {
	h := loginHandoff("h1")
	h.Now = "https://login.example.net"
	r := newHandoffRig(t, h)
	if where := r.p.where.String(); !strings.Contains(where, "Now on login.example.net") || !strings.Contains(where, "Shared on shop.example.com") {
		t.Errorf("where line for a moved tab: %q", where)
	}
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("done"))
	r.finished(t)
	if r.p.Confirming() != "https://login.example.net" {
		t.Fatalf("confirming %q", r.p.Confirming())
	}
	if s := r.p.sentence.String(); s != "The tab now shows login.example.net" {
		t.Errorf("the question: %q", s)
	}
	confirm := r.p.button("confirm")
	if confirm.Text != "Share on login.example.net" || !confirm.Visible() || r.p.button("done").Visible() || !r.p.button("back").Visible() {
		t.Fatalf("the confirmation button: %q shown %v", confirm.Text, confirm.Visible())
	}
	test.Tap(confirm)
	r.finished(t)
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("back"))
	if r.p.Confirming() != "" {
		t.Fatal("Back kept the question")
	}
	test.Tap(r.p.button("done"))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("confirm"))
	r.finished(t, FinishedHandoff{ID: "h1", Done: true, Confirm: "https://login.example.net"})
}

func TestTheHandoffWindowShowsHostileTextTamed(t *testing.T) {
	h := loginHandoff("h1")
	h.Agent = hostileAgent
	h.Reason = plaintest.All
	h.Title = plaintest.All
	h.Now = "https://login.example\u202e\x1b[8m"
	r := newHandoffRig(t, h)
	for name, rt := range map[string]*widget.RichText{"header": r.p.who, "sentence": r.p.sentence, "reason": r.p.reason, "where": r.p.where, "note": r.p.note} {
		for _, s := range rt.Segments {
			plaintest.Check(t, name, s.Textual(), 0)
		}
	}
	if !strings.HasPrefix(r.p.who.String(), "python3 (pid 999)") {
		t.Errorf("the header does not start with the process: %q", r.p.who.String())
	}
	for _, s := range drawn(r.w.Canvas()) {
		plaintest.Check(t, "drawn text", s, 0)
	}
}

// The UI shows the window as a hand-off starts, offers Done and Stop in
// the tray, and hides the window once none is left.
func TestAHandoffShowsItsWindowAndTrayItems(t *testing.T) {
	e := NewFakeEngine()
	u, _ := startSpied(t, e)
	e.StartHandoff(loginHandoff("h1"))
	waitFor(t, "the hand-off window", func() bool { return u.HandoffWindow() != nil && u.Handoff().Len() == 1 })
	w, ok := u.HandoffWindow().(*spyWindow)
	if !ok || !w.visible {
		t.Fatal("the hand-off window is not shown")
	}
	turn := find(u.TrayItems(), "Your turn (1)")
	if turn == nil {
		t.Fatal("the tray has no hand-off")
	}
	if IconFor(ReadTrayState(e)) != IconWaiting {
		t.Fatal("the tray icon does not say something waits for the person")
	}
	if under(turn.Children, "Cart — Shop (shop.example.com)") == nil {
		t.Fatalf("the tray's hand-off does not name the tab: %+v", turn.Children)
	}
	find(turn.Children, "Stop").Do()
	waitFor(t, "the window to hide", func() bool { return u.Handoff().Len() == 0 && !w.visible })
	if got := e.FinishedHandoffs(); len(got) != 1 || got[0] != (FinishedHandoff{ID: "h1"}) {
		t.Fatalf("finished %v", got)
	}
	if find(u.TrayItems(), "Your turn (1)") != nil {
		t.Fatal("the tray still offers the hand-off")
	}
	// The window's close button hides it; the hand-off goes on.
	e.StartHandoff(loginHandoff("h2"))
	waitFor(t, "the window again", func() bool { return u.Handoff().Len() == 1 && w.visible })
	w.intercept()
	if w.visible || len(e.Handoffs()) != 1 {
		t.Fatal("closing the window did not just hide it")
	}
}

// Done from the tray on a tab now on another site opens the window with
// the question.
func TestDoneFromTheTrayOnAnotherSiteOpensTheQuestion(t *testing.T) {
	e := NewFakeEngine()
	u, _ := startSpied(t, e)
	h := loginHandoff("h1")
	h.Now = "https://login.example.net"
	e.StartHandoff(h)
	waitFor(t, "the hand-off", func() bool { return u.Handoff().Len() == 1 })
	u.HandoffWindow().(*spyWindow).intercept()
	turn := find(u.TrayItems(), "Your turn (1)")
	find(turn.Children, "Done… (the tab is on another site now)").Do()
	if u.Handoff().Confirming() != "https://login.example.net" || !u.HandoffWindow().(*spyWindow).visible {
		t.Fatal("Done from the tray did not ask about the new site")
	}
	if len(e.FinishedHandoffs()) != 0 {
		t.Fatal("Done from the tray ended the hand-off without the confirmation")
	}
}
