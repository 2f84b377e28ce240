package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/core"
)

func newPrefsRig(t *testing.T) (*FakeEngine, *Preferences) {
	t.Helper()
	testApp(t)
	e := NewFakeEngine()
	p := NewPreferences(e, Settings{BridgePort: 41234, DataDir: "/home/ada/.local/share/reins"})
	test.NewTempWindow(t, p.Content())
	return e, p
}

func TestPreferencesShowTheEnginesSettings(t *testing.T) {
	e, p := newPrefsRig(t)
	if p.timeout.Selected != "30 seconds" || p.remember.Selected != "10 minutes" || p.login.Checked || p.port.Text != "" {
		t.Fatalf("shown: timeout %q, remember %q, login %v, port %q", p.timeout.Selected, p.remember.Selected, p.login.Checked, p.port.Text)
	}
	var deny []string
	for _, o := range p.deny.Objects {
		deny = append(deny, richText(o.(*widget.RichText)))
	}
	if strings.Join(deny, " ") != strings.Join(e.Settings().DenyList, ", ") {
		t.Fatalf("the deny list shown is %q, want %v", deny, e.Settings().DenyList)
	}
	if !strings.Contains(p.portNote.String(), "127.0.0.1:41234") || !strings.Contains(p.portNote.String(), "from the next start") {
		t.Fatalf("port note: %q", p.portNote.String())
	}
	// A value saved outside the offered choices is shown, not lost.
	e.SetSettings(core.Settings{ApprovalTimeout: 25 * time.Second, RememberFor: 20 * time.Minute, BridgePort: 48211, StartAtLogin: true})
	p.Refresh()
	if p.timeout.Selected != "25 seconds" || p.remember.Selected != "20 minutes" || !p.login.Checked || p.port.Text != "48211" {
		t.Fatalf("after refresh: timeout %q, remember %q, login %v, port %q", p.timeout.Selected, p.remember.Selected, p.login.Checked, p.port.Text)
	}
	if len(e.Changes()) != 0 {
		t.Fatalf("showing the settings changed them: %v", e.Changes())
	}
}

func TestPreferencesChangeTheEngine(t *testing.T) {
	e, p := newPrefsRig(t)
	p.timeout.SetSelected("45 seconds")
	p.remember.SetSelected("30 minutes")
	test.Tap(p.login)
	p.port.SetText("48211")
	test.Tap(p.portSave)
	s := e.Settings()
	if s.ApprovalTimeout != 45*time.Second || s.RememberFor != 30*time.Minute || !s.StartAtLogin || s.BridgePort != 48211 {
		t.Fatalf("engine settings = %+v", s)
	}
	if n := len(e.Changes()); n != 4 {
		t.Fatalf("want 4 changes, got %v", e.Changes())
	}
	if got := p.StatusText(); !strings.Contains(got, "48211") || !strings.Contains(got, "audit log") {
		t.Fatalf("status = %q", got)
	}
	// Clearing the port picks a free one again.
	p.port.SetText("")
	test.Tap(p.portSave)
	if e.Settings().BridgePort != 0 || !strings.Contains(p.StatusText(), "pick a free port") {
		t.Fatalf("port %d, status %q", e.Settings().BridgePort, p.StatusText())
	}
}

func TestPreferencesShowErrorsPlainlyAndKeepTheOldValue(t *testing.T) {
	e, p := newPrefsRig(t)
	p.port.SetText("80")
	test.Tap(p.portSave)
	if got := p.StatusText(); !strings.HasPrefix(got, "Not changed. ") || !strings.Contains(got, "between 1024 and 65535") {
		t.Fatalf("status = %q", got)
	}
	if p.port.Text != "" || e.Settings().BridgePort != 0 {
		t.Fatalf("a refused port stayed: entry %q, engine %d", p.port.Text, e.Settings().BridgePort)
	}
	p.port.SetText("eighty")
	test.Tap(p.portSave)
	if got := p.StatusText(); !strings.Contains(got, "Type a port number") {
		t.Fatalf("status = %q", got)
	}
	// The engine refuses (say, the audit log cannot record the change): the
	// choice goes back to what the engine holds.
	e.FailSettings(errors.New("the setting was not changed, because the audit log could not record the change: disk full"))
	p.timeout.SetSelected("2 minutes")
	if got := p.StatusText(); !strings.Contains(got, "Not changed. The setting was not changed, because the audit log could not record the change: disk full") {
		t.Fatalf("status = %q", got)
	}
	if p.timeout.Selected != "30 seconds" || e.Settings().ApprovalTimeout != 30*time.Second {
		t.Fatalf("after a refusal: shown %q, engine %v", p.timeout.Selected, e.Settings().ApprovalTimeout)
	}
	test.Tap(p.login)
	if p.login.Checked || e.Settings().StartAtLogin {
		t.Fatal("a refused start-at-login stayed ticked")
	}
	if len(e.Changes()) != 0 {
		t.Fatalf("changes made: %v", e.Changes())
	}
}

func TestWordsAndLabels(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1 second", 45 * time.Second: "45 seconds", time.Minute: "1 minute",
		10 * time.Minute: "10 minutes", time.Hour: "1 hour", 90 * time.Second: "90 seconds",
	} {
		if got := words(d); got != want {
			t.Errorf("words(%v) = %q, want %q", d, got, want)
		}
		if back, ok := parseWords(want, nil); !ok || back != d {
			t.Errorf("parseWords(%q) = %v, %v", want, back, ok)
		}
	}
	for d, want := range map[time.Duration]string{0: "Allow 10 min", 10 * time.Minute: "Allow 10 min", time.Hour: "Allow 1 hour", 5 * time.Minute: "Allow 5 min"} {
		if got := allowForLabel(d); got != want {
			t.Errorf("allowForLabel(%v) = %q, want %q", d, got, want)
		}
	}
}

// A change of settings reaches the open popup: its "allow on this tab"
// button says the new length.
func TestSettingsChangeReachesThePopup(t *testing.T) {
	a := testApp(t)
	e := NewFakeEngine()
	queue := make(chan func(), 64)
	u := Start(Options{App: a, Engine: e, Clock: NewFakeClock(t0), testOnlyDo: func(f func()) { queue <- f }})
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
	u.ShowPreferences()
	if err := e.SetRememberFor(30 * time.Minute); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return u.prefs.remember.Selected == "30 minutes" })
	e.Ask(click("a1", true))
	waitFor(t, func() bool { return u.Popup().Len() == 1 })
	if got := u.Popup().button("tab").Text; got != "Allow 30 min" {
		t.Fatalf("the popup's button says %q", got)
	}
}

func TestDenyListLinesKeepLabelsWhole(t *testing.T) {
	got := lines([]string{"Reins", "1Password", "Keychain Access", "Authentication dialog"}, 20)
	want := []string{"Reins, 1Password,", "Keychain Access,", "Authentication dialog"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines = %q, want %q", got, want)
	}
}
