package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

var (
	chromium = executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 6000}
	xterm    = executor.App{Name: "XTerm", Exe: "/usr/bin/xterm", PID: 6100}
)

// tabWindowAt is the tab's browser window where coretest's browser says it
// is, as window 1 of the fake desktop.
func tabWindowAt() executor.Window {
	w := coretest.Window
	return executor.Window{ID: 1, App: chromium, Title: "Cart — Shop - Chromium", X: w.ScreenX, Y: w.ScreenY, W: w.OuterWidth, H: w.OuterHeight}
}

// answered counts the questions put to the person, answering each with d.
func answered(t *testing.T, f *fixture, d vocab.Decision) func() int {
	var mu sync.Mutex
	n := 0
	events, stop := f.Subscribe(64)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				mu.Lock()
				n++
				mu.Unlock()
				f.Answer(ev.Request.ID, d)
			}
		}
	}()
	return func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// An act on a tab fires under a plan naming the window that shows the
// tab, as the audit's fire row records it.
func TestATabActsPlanNamesTheTabsWindow(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	f.Exec.SetWindows([]executor.Window{tabWindowAt()})
	f.Exec.SetFocus(1)
	defer f.AnswerAll(vocab.AllowOnce)()
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	fired := f.Exec.Fired()
	if len(fired) != 1 || fired[0].Plan.Window != 1 || fired[0].Plan.PID != chromium.PID {
		t.Fatalf("fired %+v, want one click whose plan names window 1 of pid %d", fired, chromium.PID)
	}
	rows := f.rows(persondoor.AuditFilter{Tab: f.tab, Act: string(vocab.Click)})
	var plan struct {
		Window uint64 `json:"window"`
		PID    int    `json:"pid"`
	}
	for _, r := range rows {
		if r.Phase == "fire" {
			if err := json.Unmarshal(r.Plan, &plan); err != nil {
				t.Fatal(err)
			}
		}
	}
	if plan.Window != 1 || plan.PID != chromium.PID {
		t.Errorf("the fire row's plan names window %d of pid %d", plan.Window, plan.PID)
	}
}

// When no window can be told to show the tab (two of the browser's lie
// where it says, and nothing tells them apart), nothing is asked or fired.
func TestATabWhoseWindowCannotBeToldIsNotActedOn(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	twin := tabWindowAt()
	twin.ID = 2
	f.Exec.SetWindows([]executor.Window{twin, tabWindowAt(), {ID: 3, App: xterm, X: 1100, W: 100, H: 100}})
	f.Exec.SetFocus(3) // neither has the focus
	n := answered(t, f, vocab.AllowOnce)
	ref, _ := f.snapRef("Place order")
	err := f.click(ref)
	if codeOf(err) != vocab.CodeTabWindowUnknown || !strings.Contains(err.Error(), "2 windows") {
		t.Fatalf("a click = %v, want %s saying two windows lie there", err, vocab.CodeTabWindowUnknown)
	}
	if n() != 0 || len(f.Exec.Fired()) != 0 {
		t.Errorf("asked %d times, fired %d", n(), len(f.Exec.Fired()))
	}
	// The one with the focus, in front, is the tab's, as the browser says
	// its window has it.
	f.Exec.SetFocus(2)
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	if fired := f.Exec.Fired(); len(fired) != 1 || fired[0].Plan.Window != 2 {
		t.Errorf("fired %+v, want the click in window 2", fired)
	}
}

// browser_press_key asks the operating system where the keys go: the
// page's word that its window has the focus is not enough.
func TestKeysAreRefusedWhenTheOSSaysTheFocusIsElsewhere(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	f.Exec.SetWindows([]executor.Window{{ID: 3, App: xterm, X: 1100, W: 100, H: 100}, tabWindowAt()})
	f.Exec.SetFocus(3)
	n := answered(t, f, vocab.AllowOnce)
	_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}})
	if codeOf(err) != vocab.CodeFocusMoved || !strings.Contains(err.Error(), "XTerm (pid 6100)") {
		t.Fatalf("Enter with the focus in the terminal = %v, want %s naming it", err, vocab.CodeFocusMoved)
	}
	if n() != 0 || len(f.Exec.Fired()) != 0 {
		t.Errorf("asked %d times, fired %d", n(), len(f.Exec.Fired()))
	}
	f.Exec.SetFocus(1)
	if _, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}}); err != nil {
		t.Fatalf("Enter with the focus in the tab's window: %v", err)
	}
}

// Keys that stop because another window took the focus, and a press
// refused over another window, are answered with their codes, written in
// the audit log, and read in the strip as stopped.
func TestAnActStoppedOutsideTheTabsWindowIsSaidSo(t *testing.T) {
	for _, c := range []struct {
		what    string
		act     vocab.Act
		field   string
		stage   func(f *fixture)
		code    string
		words   string
		naming  string
		already bool // the first event goes out before the stop
	}{
		{
			what: "typing after a popup took the keys", act: vocab.Act{Kind: vocab.Type, Text: "4900", Submit: true}, field: "Search",
			stage: func(f *fixture) {
				f.Exec.WhileFiring = func(context.Context) error { f.Exec.SetFocus(2); return nil }
			},
			code: vocab.CodeFocusMoved, words: "stopped — another window took the keys", naming: "Chromium (pid 6000) holds it", already: true,
		},
		{
			what: "a click with a terminal over the button", act: vocab.Act{Kind: vocab.Click}, field: "Place order",
			stage: func(f *fixture) {
				f.Exec.WhileFiring = func(context.Context) error {
					f.Exec.SetWindows([]executor.Window{{ID: 3, App: xterm, W: 1000, H: 700}, tabWindowAt(), {ID: 2, App: chromium, X: 1100, W: 100, H: 100}})
					return nil
				}
			},
			code: vocab.CodeNotInTabWindow, words: "stopped — another window was under the pointer", naming: "XTerm (pid 6100) is under the press",
		},
	} {
		t.Run(c.what, func(t *testing.T) {
			f := newFixture(t, 2*time.Second)
			f.SetShare(f.tab, vocab.Control)
			popup := executor.Window{ID: 2, App: chromium, Title: "Win a prize - Chromium", X: 1100, W: 100, H: 100}
			f.Exec.SetWindows([]executor.Window{tabWindowAt(), popup})
			f.Exec.SetFocus(1)
			c.stage(f)
			events, stop := f.Subscribe(64)
			defer stop()
			answered(t, f, vocab.AllowOnce)
			ref, _ := f.snapRef(c.field)
			_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: c.act})
			if codeOf(err) != c.code || !strings.Contains(err.Error(), c.naming) {
				t.Fatalf("the act = %v, want %s saying %q", err, c.code, c.naming)
			}
			if c.already && !regexp.MustCompile(`after [1-9]\d* input events`).MatchString(err.Error()) {
				t.Errorf("the answer does not say the click went out first: %v", err)
			}
			rows := f.rows(persondoor.AuditFilter{Tab: f.tab, Act: string(c.act.Kind), Limit: 1})
			if len(rows) != 1 || rows[0].Code != c.code || rows[0].Outcome != vocab.OutcomeRefused {
				t.Errorf("the outcome row %+v, want refused with %s", rows, c.code)
			}
			deadline := time.After(5 * time.Second)
			for {
				select {
				case ev := <-events:
					if ev.Kind != persondoor.EventActivity || ev.Activity == nil || ev.Activity.Code != c.code {
						continue
					}
					if words, refused := persondoor.OutcomeWords(*ev.Activity); words != c.words || !refused {
						t.Errorf("the strip reads %q (marked %v), want %q", words, refused, c.words)
					}
					return
				case <-deadline:
					t.Fatal("no activity line for the stopped act")
				}
			}
		})
	}
}

// The desktop view finds the tabs on screen by where their windows are,
// never by titles: a page that sets its title to that of a window it was
// not given learns nothing from what the view then holds.
func TestTheDesktopViewIsNoTitleOracle(t *testing.T) {
	e, agent := desktopRig(t)
	ctx := context.Background()
	off := &protocol.Window{ScreenX: 3000, ScreenY: 0, OuterWidth: 800, OuterHeight: 600, DPR: 1}
	page := shop()
	page.Window = off // the shared tab's own window is off screen
	e.Browser.Open(7, page)
	tab := e.WaitTab(t, shopURL)
	if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	e.Browser.SetFocused(7, false)
	e.Exec.SetWindows([]executor.Window{
		{ID: 1, App: fixtureApp, Title: "Fixture", W: 600, H: 400, Active: true},
		{ID: 2, App: chromium, Title: "Payroll 2026 — Intranet - Chromium", X: 600, Y: 0, W: 600, H: 400}, // not shared
	})
	view := func(title string) string {
		t.Helper()
		e.Browser.SetTitle(7, title)
		testenv.WaitFor(t, "the tab's new title", func() bool {
			for _, ti := range e.Tabs() {
				if ti.ID == tab {
					return ti.Title == title
				}
			}
			return false
		})
		v, err := agent.Desktop(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v.Tabs
	}
	right, wrong := view("Payroll 2026 — Intranet"), view("Holiday photos")
	if right != wrong || right != "" {
		t.Errorf("the view with the unshared window's title: %q; with another: %q; want both the same, and empty", right, wrong)
	}
	// Where its window is on screen, the tab is read whatever its title.
	e.Browser.Mutate(7, func(p *coretest.Page) {
		p.Frames[0].Window = protocol.Window{ScreenX: 600, ScreenY: 0, OuterWidth: 600, OuterHeight: 400, DPR: 1}
	})
	if got := view("Holiday photos"); !strings.Contains(got, fmt.Sprintf("tab %s (open to you)", tab)) {
		t.Errorf("the tab whose window is on screen is not in the view: %q", got)
	}
}
