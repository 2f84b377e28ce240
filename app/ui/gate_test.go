package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// pressOnKeyboard activates a button as the keyboard does: focused, then
// Space.
func pressOnKeyboard(w fyne.Window, b fyne.Focusable) {
	w.Canvas().Focus(b)
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
}

// Allow takes effect only on the person's own click: a program's click, a
// press from the keyboard, no press seen or a desktop that cannot tell
// change nothing, and the popup says why in one line.
func TestAllowTakesOnlyThePersonsOwnClick(t *testing.T) {
	for _, tc := range []struct {
		name  string
		last  LastPress
		press func(r *popupRig)
		why   string
	}{
		{"a program's click", PressByProgram, func(r *popupRig) { test.Tap(r.p.button("once")) }, "Allow takes a click of your own mouse; that press came from a program"},
		{"the keyboard", PressByKey, func(r *popupRig) { pressOnKeyboard(r.w, r.p.button("once")) }, "Allow takes a click of your own mouse; it was pressed from the keyboard"},
		{"no press", PressNone, func(r *popupRig) { test.Tap(r.p.button("tab")) }, "Allow takes a click of your own mouse; Reins saw no mouse button pressed"},
		{"a desktop that cannot tell", PressUntold, func(r *popupRig) { test.Tap(r.p.button("once")) }, "Allow takes a click of your own mouse; this desktop cannot tell your mouse from a program's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := NewFakeEngine()
			eng.SetLastPress(tc.last)
			r := newPopupRigOn(t, eng, click("a1", true))
			r.clock.Advance(ArmDelay)
			tc.press(r)
			r.answers(t)
			if r.p.Current() == nil || r.p.Current().ID != "a1" {
				t.Fatal("the request left the popup")
			}
			if got := r.p.Refused(); got != tc.why {
				t.Fatalf("the popup says %q, want %q", got, tc.why)
			}
			// Then the person clicks Allow with their own mouse. Where no
			// watch could start, the press that finds one on again is
			// judged by what comes after it.
			eng.SetLastPress(PressByPerson)
			test.Tap(r.p.button("once"))
			if tc.last == PressUntold {
				r.answers(t)
				test.Tap(r.p.button("once"))
			}
			r.answers(t, Answered{ID: "a1", Decision: vocab.AllowOnce})
		})
	}
}

// Deny needs no gate: taking power away is never refused.
func TestDenyTakesAnyPress(t *testing.T) {
	eng := NewFakeEngine()
	eng.SetLastPress(PressByProgram)
	r := newPopupRigOn(t, eng, click("a1", true))
	test.Tap(r.p.button("deny"))
	r.answers(t, Answered{ID: "a1", Decision: vocab.Deny})
}

// The popup's watch starts with each request it shows, counts keys, and
// ends when the popup hides; the refusal line goes with the request.
func TestThePopupWatchesPressesWhileARequestIsOnScreen(t *testing.T) {
	eng := NewFakeEngine()
	r := newPopupRigOn(t, eng, click("a1", true), click("a2", true))
	if started, open, keys := eng.PressWatches(); started != 1 || open != 1 || keys != 1 {
		t.Fatalf("with a request on screen: %d watches started, %d on, %d counting keys; want 1, 1, 1", started, open, keys)
	}
	r.clock.Advance(ArmDelay)
	eng.SetLastPress(PressByProgram)
	test.Tap(r.p.button("once"))
	if r.p.Refused() == "" {
		t.Fatal("no word of why Allow did nothing")
	}
	test.Tap(r.p.button("deny"))
	if r.p.Refused() != "" {
		t.Fatalf("the next request shows the last one's refusal: %q", r.p.Refused())
	}
	test.Tap(r.p.button("deny"))
	if _, open, _ := eng.PressWatches(); open != 0 {
		t.Fatalf("%d watches still on with the popup hidden", open)
	}
}

func TestHandoffDoneTakesOnlyThePersonsOwnClick(t *testing.T) {
	r := newHandoffRig(t, loginHandoff("h1"))
	if _, open, keys := r.eng.PressWatches(); open != 1 || keys != 0 {
		t.Fatalf("with a hand-off on screen: %d watches on, %d counting keys; want one, of buttons alone", open, keys)
	}
	r.clock.Advance(ArmDelay)
	r.eng.SetLastPress(PressByProgram)
	test.Tap(r.p.button("done"))
	r.finished(t)
	if got, want := r.p.Problem(), "Done takes a click of your own mouse; that press came from a program"; got != want {
		t.Fatalf("the window says %q, want %q", got, want)
	}
	r.eng.SetLastPress(PressByPerson)
	test.Tap(r.p.button("done"))
	r.finished(t, FinishedHandoff{ID: "h1", Done: true})
}

func TestHandoffStopTakesAnyPress(t *testing.T) {
	r := newHandoffRig(t, loginHandoff("h1"))
	r.eng.SetLastPress(PressByProgram)
	test.Tap(r.p.button("stop"))
	r.finished(t, FinishedHandoff{ID: "h1", Done: false})
}

// A choice of the tray's menu that gives power follows only the person's
// own click; one that takes power away follows any.
func TestTheMenuGivesPowerOnlyAfterThePersonsOwnClick(t *testing.T) {
	e := NewFakeEngine()
	e.SetTabs(vocab.TabInfo{ID: "1", Title: "Cart — Shop", Origin: "https://shop.example.com"})
	e.SetAgents(persondoor.AgentInfo{Key: "k1", Name: "Claude Code", PID: 4121, Exe: "/usr/bin/claude", Sessions: 1})
	u, _ := startSpied(t, e)
	if _, open, keys := e.PressWatches(); open != 1 || keys != 0 {
		t.Fatalf("while Reins runs: %d watches on, %d counting keys; want one, of buttons alone", open, keys)
	}
	do := func(path ...string) {
		t.Helper()
		items := u.TrayItems()
		var it *Item
		for _, label := range path {
			it = nil
			for i := range items {
				if strings.HasPrefix(items[i].Label, label) && !items[i].Disabled {
					it = &items[i]
					break
				}
			}
			if it == nil {
				t.Fatalf("no %q in the menu", label)
			}
			items = it.Children
		}
		it.Do()
	}

	e.SetLastPress(PressByProgram)
	do("Tabs", "Control")
	if got := e.Share("1"); got != vocab.None {
		t.Fatalf("a program's choice shared the tab at %v", got)
	}
	if got, want := u.MenuRefused(), "Sharing takes a click of your own mouse; that press came from a program"; got != want {
		t.Fatalf("the menu's refusal says %q, want %q", got, want)
	}
	do("Agents", "Allow until Reins quits")
	if e.Agents()[0].Allowed {
		t.Fatal("a program's choice allowed the agent")
	}
	do("Pause all agents")
	if !e.Paused() {
		t.Fatal("pausing was refused")
	}
	do("Resume agents")
	if !e.Paused() {
		t.Fatal("a program's choice resumed the agents")
	}

	e.SetLastPress(PressByPerson)
	do("Resume agents")
	do("Tabs", "Control")
	do("Agents", "Allow until Reins quits")
	if e.Paused() || e.Share("1") != vocab.Control || !e.Agents()[0].Allowed || u.MenuRefused() != "" {
		t.Fatalf("after the person's own clicks: paused %v, share %v, agent allowed %v, refusal %q", e.Paused(), e.Share("1"), e.Agents()[0].Allowed, u.MenuRefused())
	}
	e.SetLastPress(PressByProgram)
	do("Tabs", "Not shared")
	if e.Share("1") != vocab.None {
		t.Fatal("unsharing was refused")
	}
}

func TestPreferencesRemoveTakesOnlyThePersonsOwnClick(t *testing.T) {
	e, p := newPrefsRig(t)
	if err := e.AddDenied("Signal"); err != nil {
		t.Fatal(err)
	}
	p.Refresh()
	_, removes := addedRows(t, p)
	e.SetLastPress(PressByKey)
	test.Tap(removes[0])
	if got := e.Settings().DenyAdded; strings.Join(got, ",") != "Signal" {
		t.Fatalf("a Remove from the keyboard took Signal off: %q", got)
	}
	if got := p.StatusText(); !strings.Contains(got, "Remove takes a click of your own mouse; it was pressed from the keyboard") {
		t.Fatalf("status = %q", got)
	}
	e.SetLastPress(PressByPerson)
	test.Tap(removes[0])
	if got := e.Settings().DenyAdded; len(got) != 0 {
		t.Fatalf("the person's Remove left %q", got)
	}
}
