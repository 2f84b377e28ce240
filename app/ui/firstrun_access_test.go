package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

func TestFirstRunAccessButtonAsksMacOSOnceThenOpensSettings(t *testing.T) {
	testApp(t)
	trusted, asked := false, 0
	var opened []string
	f := NewFirstRun(FirstRunOptions{
		Engine: NewFakeEngine(), GOOS: "darwin",
		Accessibility:        func() bool { return trusted },
		RequestAccessibility: func() bool { asked++; return trusted },
		OpenURL:              func(u string) error { opened = append(opened, u); return nil },
	})
	if f.Done()[1] {
		t.Fatal("the Accessibility step is done before the person allowed it")
	}
	if f.access.Text != "Allow Reins…" {
		t.Errorf("the button reads %q before asking", f.access.Text)
	}
	test.Tap(f.access)
	if asked != 1 || len(opened) != 0 {
		t.Fatalf("first press: asked %d times, opened %q; want one ask and no settings", asked, opened)
	}
	if !f.notes[1].Visible() || f.access.Text != "Open Accessibility settings" {
		t.Errorf("after asking: note shown %v, button %q", f.notes[1].Visible(), f.access.Text)
	}
	test.Tap(f.access)
	if asked != 1 || len(opened) != 1 || opened[0] != AccessibilityPane {
		t.Errorf("second press: asked %d times, opened %q; want the settings pane", asked, opened)
	}
	trusted = true
	f.Refresh()
	if !f.Done()[1] || f.ticks[1].Text != "✓" {
		t.Error("the step does not tick once Reins is trusted")
	}
}

func TestFirstRunAccessTicksAtOnceWhenMacOSAllows(t *testing.T) {
	testApp(t)
	trusted := false
	f := NewFirstRun(FirstRunOptions{
		Engine: NewFakeEngine(), GOOS: "darwin",
		Accessibility:        func() bool { return trusted },
		RequestAccessibility: func() bool { trusted = true; return true },
	})
	test.Tap(f.access)
	if f.ticks[1].Text != "✓" || f.notes[1].Visible() {
		t.Errorf("granted on asking: tick %q, note shown %v", f.ticks[1].Text, f.notes[1].Visible())
	}
}

func TestFirstRunAccessWithoutRequestOpensSettings(t *testing.T) {
	testApp(t)
	var opened []string
	f := NewFirstRun(FirstRunOptions{
		Engine: NewFakeEngine(), GOOS: "darwin",
		Accessibility: func() bool { return false },
		OpenURL:       func(u string) error { opened = append(opened, u); return nil },
	})
	if f.access.Text != "Open Accessibility settings" {
		t.Errorf("the button reads %q", f.access.Text)
	}
	test.Tap(f.access)
	if len(opened) != 1 || opened[0] != AccessibilityPane {
		t.Errorf("opened %q; want the settings pane", opened)
	}
}
