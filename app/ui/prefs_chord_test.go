package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// A pause chord held with only Option and Shift is refused in
// Preferences with the sentence that says why and what to choose.
func TestPreferencesSayWhyAnOptionShiftChordIsRefused(t *testing.T) {
	testApp(t)
	e := NewFakeEngine()
	p := NewPreferences(e, Settings{GlobalKeys: true})
	test.NewTempWindow(t, p.Content())
	p.report(e.SetPauseChord("Alt+Shift+P"), "")
	got := p.StatusText()
	if !strings.HasPrefix(got, "Not changed. On macOS 15 and later") || !strings.Contains(got, "Control or Command") {
		t.Errorf("status %q; want the refusal that names macOS 15 and what to choose", got)
	}
	if e.Settings().PauseChord != "Control+Alt+Meta+P" {
		t.Errorf("the pause chord became %q", e.Settings().PauseChord)
	}
}
