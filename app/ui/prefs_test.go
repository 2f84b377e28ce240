package ui

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/reins-app/reins/settings"
)

func newPrefsRig(t *testing.T) (*FakeEngine, *Preferences) {
	t.Helper()
	testApp(t)
	e := NewFakeEngine()
	p := NewPreferences(e, Settings{BridgePort: 41234, DataDir: "/home/ada/.local/share/reins"})
	test.NewTempWindow(t, p.Content())
	p.Shown()
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
	e.SetSettings(settings.Settings{ApprovalTimeout: 25 * time.Second, RememberFor: 20 * time.Minute, BridgePort: 48211, StartAtLogin: true})
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

// addedRows are the person's additions as shown: each name with its button.
func addedRows(t *testing.T, p *Preferences) (names []string, removes []*widget.Button) {
	t.Helper()
	for _, o := range p.added.Objects {
		var name string
		var remove *widget.Button
		for _, c := range o.(*fyne.Container).Objects {
			switch c := c.(type) {
			case *widget.RichText:
				name = c.String()
			case *widget.Button:
				remove = c
			}
		}
		if remove == nil || remove.Text != "Remove" {
			t.Fatalf("the row for %q has no Remove button", name)
		}
		names = append(names, name)
		removes = append(removes, remove)
	}
	return names, removes
}

// buttonsIn lists the buttons anywhere inside o.
func buttonsIn(o fyne.CanvasObject) []*widget.Button {
	switch o := o.(type) {
	case *widget.Button:
		return []*widget.Button{o}
	case *fyne.Container:
		var out []*widget.Button
		for _, c := range o.Objects {
			out = append(out, buttonsIn(c)...)
		}
		return out
	}
	return nil
}

func TestPreferencesAddAndRemoveDeniedApplications(t *testing.T) {
	e, p := newPrefsRig(t)
	if names, _ := addedRows(t, p); len(names) != 0 {
		t.Fatalf("additions shown before any: %q", names)
	}
	test.Type(p.addName, "  Signal ")
	test.Tap(p.addButton)
	if got := e.Settings().DenyAdded; strings.Join(got, ",") != "Signal" {
		t.Fatalf("engine additions = %q", got)
	}
	if p.addName.Text != "" {
		t.Fatalf("the entry kept %q after the name was added", p.addName.Text)
	}
	if got := p.StatusText(); !strings.Contains(got, "Agents will never touch “Signal”.") || !strings.Contains(got, "audit log") {
		t.Fatalf("status = %q", got)
	}
	// Return adds as the button does.
	test.Type(p.addName, "org.example.Bank")
	p.addName.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	names, removes := addedRows(t, p)
	if strings.Join(names, ",") != "Signal,org.example.Bank" {
		t.Fatalf("shown additions = %q", names)
	}
	test.Tap(removes[0])
	if got := e.Settings().DenyAdded; strings.Join(got, ",") != "org.example.Bank" {
		t.Fatalf("after Remove the engine holds %q", got)
	}
	if names, _ := addedRows(t, p); strings.Join(names, ",") != "org.example.Bank" {
		t.Fatalf("after Remove the window shows %q", names)
	}
	if got := p.StatusText(); !strings.Contains(got, "“Signal” is off the list") {
		t.Fatalf("status = %q", got)
	}
	want := []string{`deny list + "Signal"`, `deny list + "org.example.Bank"`, `deny list − "Signal"`}
	if got := e.Changes(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("changes = %q, want %q", got, want)
	}
	// The built-in entries are text only: nothing there removes them.
	if b := buttonsIn(p.deny); len(b) != 0 {
		t.Fatalf("the built-in list has %d buttons", len(b))
	}
}

func TestPreferencesShowARefusedAdditionAndKeepTheName(t *testing.T) {
	e, p := newPrefsRig(t)
	test.Tap(p.addButton)
	if got := p.StatusText(); !strings.HasPrefix(got, "Not changed. Type the application's name") {
		t.Fatalf("status = %q", got)
	}
	test.Type(p.addName, "1password")
	test.Tap(p.addButton)
	if got := p.StatusText(); !strings.HasPrefix(got, "Not changed. “1password” is already never touched") {
		t.Fatalf("status = %q", got)
	}
	if p.addName.Text != "1password" {
		t.Fatalf("the refused name was cleared: %q", p.addName.Text)
	}
	if len(e.Changes()) != 0 || len(e.Settings().DenyAdded) != 0 {
		t.Fatalf("a refused name changed the list: %v", e.Changes())
	}
}

func TestPreferencesOfferTheApplicationsOpenNow(t *testing.T) {
	e, p := newPrefsRig(t)
	if p.openApps.Visible() {
		t.Fatal("the choice shows with no open applications to offer")
	}
	e.SetOpenApps("Slack", "Signal", "1Password")
	p.Refresh()
	if !p.openApps.Visible() || strings.Join(p.openApps.Options, ",") != "Slack,Signal" {
		t.Fatalf("offered %q (visible %v)", p.openApps.Options, p.openApps.Visible())
	}
	if len(e.Changes()) != 0 {
		t.Fatalf("offering changed the list: %v", e.Changes())
	}
	p.openApps.SetSelected("Signal")
	if got := e.Settings().DenyAdded; strings.Join(got, ",") != "Signal" {
		t.Fatalf("engine additions = %q", got)
	}
	if strings.Join(p.openApps.Options, ",") != "Slack" || p.openApps.Selected != "" {
		t.Fatalf("after choosing: options %q, selected %q", p.openApps.Options, p.openApps.Selected)
	}
	if names, _ := addedRows(t, p); strings.Join(names, ",") != "Signal" {
		t.Fatalf("shown additions = %q", names)
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
	waitFor(t, "the preferences to show 30 minutes", func() bool { return u.prefs.remember.Selected == "30 minutes" })
	e.Ask(click("a1", true))
	waitFor(t, "the popup to hold one request", func() bool { return u.Popup().Len() == 1 })
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

func TestPreferencesChangeThePauseChord(t *testing.T) {
	testApp(t)
	e := NewFakeEngine()
	p := NewPreferences(e, Settings{GlobalKeys: true})
	p.off = func(f func()) { f() }
	test.NewTempWindow(t, p.Content())
	if want := ChordLabel("Control+Alt+Meta+P", runtime.GOOS); p.pause.Selected != want {
		t.Fatalf("pause chord shown %q, want %q", p.pause.Selected, want)
	}
	p.pause.SetSelected(ChordLabel("Control+Alt+Meta+Escape", runtime.GOOS))
	if got := e.Settings().PauseChord; got != "Control+Alt+Meta+Escape" || !strings.Contains(p.StatusText(), "now pauses every agent") {
		t.Fatalf("chord %q, status %q", got, p.StatusText())
	}
	if want := ChordLabel("Control+Alt+Meta+Escape", runtime.GOOS); p.pause.Selected != want {
		t.Fatalf("pause chord shown %q, want %q", p.pause.Selected, want)
	}
	// A chord the engine cannot take is reported and the old one shown.
	e.FailSettings(errors.New("another program holds it"))
	p.pause.SetSelected(ChordLabel("Control+Alt+Meta+F12", runtime.GOOS))
	if !strings.Contains(p.StatusText(), "Not changed") || p.pause.Selected != ChordLabel("Control+Alt+Meta+Escape", runtime.GOOS) {
		t.Fatalf("after a refusal: status %q, shown %q", p.StatusText(), p.pause.Selected)
	}
	// A chord another program holds is not claimed to work.
	e.FailSettings(nil)
	e.SetPauseChordTaken(false)
	p.Refresh()
	if got := p.pauseNote.String(); !strings.Contains(got, "another program holds it") {
		t.Fatalf("pause note with the chord not held: %q", got)
	}
	// Without a chord on this desktop there is nothing to choose.
	none := NewPreferences(e, Settings{})
	test.NewTempWindow(t, none.Content())
	if holds(none.Content(), none.pause) || !holds(p.Content(), p.pause) {
		t.Error("the pause chord is offered where none can be taken, or not where it can")
	}
}

// holds reports whether target is drawn somewhere inside root.
func holds(root, target fyne.CanvasObject) bool {
	if root == target {
		return true
	}
	var children []fyne.CanvasObject
	switch o := root.(type) {
	case *fyne.Container:
		children = o.Objects
	case fyne.Widget:
		children = test.WidgetRenderer(o).Objects()
	}
	for _, c := range children {
		if holds(c, target) {
			return true
		}
	}
	return false
}

func TestChordLabel(t *testing.T) {
	for _, tc := range []struct{ chord, goos, want string }{
		{"Control+Alt+Meta+P", "darwin", "⌃⌥⌘P"},
		{"Control+Alt+Meta+P", "linux", "Control+Alt+Super+P"},
		{"Control+Alt+Shift+Meta+Escape", "darwin", "⌃⌥⇧⌘⎋"},
		{"Control+Alt+F12", "linux", "Control+Alt+F12"},
	} {
		if got := ChordLabel(tc.chord, tc.goos); got != tc.want {
			t.Errorf("ChordLabel(%q, %s) = %q, want %q", tc.chord, tc.goos, got, tc.want)
		}
	}
}
