package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// Once Accessibility is given, the permission step's button asks for Input
// Monitoring, once, then opens its pane; the step ticks only when both are
// given.
func TestFirstRunAsksForInputMonitoringAfterAccessibility(t *testing.T) {
	testApp(t)
	trusted, watching := false, false
	askedAX, askedIn := 0, 0
	var opened []string
	f := NewFirstRun(FirstRunOptions{
		Engine: NewFakeEngine(), GOOS: "darwin",
		Accessibility:          func() bool { return trusted },
		RequestAccessibility:   func() bool { askedAX++; trusted = true; return true },
		InputMonitoring:        func() bool { return watching },
		RequestInputMonitoring: func() bool { askedIn++; return watching },
		OpenURL:                func(u string) error { opened = append(opened, u); return nil },
	})
	test.NewTempWindow(t, f.Content())
	if f.Done()[1] {
		t.Fatal("the step is done before anything was allowed")
	}
	test.Tap(f.access) // Accessibility, granted on asking
	if askedAX != 1 || askedIn != 0 || f.Done()[1] {
		t.Fatalf("first press: asked Accessibility %d, Input Monitoring %d, done %v", askedAX, askedIn, f.Done()[1])
	}
	if f.access.Text != "Allow Input Monitoring…" {
		t.Errorf("with Accessibility given, the button reads %q", f.access.Text)
	}
	test.Tap(f.access) // Input Monitoring: macOS asks, not granted yet
	if askedIn != 1 || len(opened) != 0 || !f.notes[1].Visible() || !strings.Contains(richText(f.notes[1]), "Input Monitoring") {
		t.Fatalf("second press: asked %d, opened %q, note %q", askedIn, opened, richText(f.notes[1]))
	}
	if f.access.Text != "Open Input Monitoring settings" {
		t.Errorf("after asking, the button reads %q", f.access.Text)
	}
	test.Tap(f.access)
	if askedIn != 1 || len(opened) != 1 || opened[0] != InputMonitoringPane {
		t.Errorf("third press: asked %d, opened %q; want the Input Monitoring pane", askedIn, opened)
	}
	watching = true
	f.Refresh()
	if !f.Done()[1] || f.ticks[1].Text != "✓" {
		t.Error("the step does not tick once both are given")
	}
}
