package ui

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
)

// anchoredFake is the fake engine with the audit log's copies as st.
type anchoredFake struct {
	*FakeEngine
	st persondoor.AnchorState
}

func (f anchoredFake) AuditAnchor() persondoor.AnchorState { return f.st }

var unanchored = persondoor.AnchorState{Copies: []persondoor.CopyState{
	{Where: "system log", Err: errors.New("gone"), Why: "the system log (/dev/log) cannot be reached"},
	{Where: "syslog+tls://logs.example.org:6514", Whole: true, Err: errors.New("x"), Why: "its certificate is not signed by /etc/reins/ca.pem, so nothing was sent to it", Behind: 12},
}}

var anchored = func() persondoor.AnchorState {
	c := persondoor.CopyState{Where: "syslog+tls://logs.example.org:6514", Whole: true}
	c.Seq = 40
	return persondoor.AnchorState{Anchored: true, Head: 40, Copies: []persondoor.CopyState{c}}
}()

func TestTheTrayAndPreferencesSayWhenTheLogIsNotAnchored(t *testing.T) {
	testApp(t)
	e := &anchoredFake{FakeEngine: NewFakeEngine(), st: unanchored}
	if it := find(BuildTray(ReadTrayState(e), TrayActions{}), "Audit log… (not anchored: no copy leaves this computer)"); it == nil {
		t.Fatalf("the tray's audit item does not say the log is not anchored: %+v", BuildTray(ReadTrayState(e), TrayActions{}))
	}
	e.SetSettings(settings.Settings{AuditCopies: settings.AuditCopies{RetainDays: 400}})
	p := NewPreferences(e, Settings{DataDir: "/home/ada/.local/share/reins"})
	test.NewTempWindow(t, p.Content())
	text := p.audit.String()
	for _, want := range []string{"Not anchored: no copy of the audit log leaves this computer", "not signed by /etc/reins/ca.pem", "12 rows wait", "older than 400 days"} {
		if !strings.Contains(text, want) {
			t.Errorf("Preferences' audit section lacks %q:\n%s", want, text)
		}
	}

	e.st = anchored
	if it := find(BuildTray(ReadTrayState(e), TrayActions{}), "Audit log…"); it == nil {
		t.Fatal("the tray's audit item is not plain once the log is anchored")
	}
	p = NewPreferences(e, Settings{DataDir: "/home/ada/.local/share/reins"})
	if text := p.audit.String(); strings.Contains(text, "Not anchored") || !strings.Contains(text, "has every row, up to 40") {
		t.Fatalf("anchored:\n%s", text)
	}
	// The viewer says so too, above its rows.
	e.st = unanchored
	v := NewAuditViewer(AuditViewerOptions{Engine: e})
	if !v.anchor.Visible() || !strings.Contains(v.anchor.String(), "Not anchored") {
		t.Fatalf("the viewer: %q", v.anchor.String())
	}
	e.st = anchored
	v.Reload()
	if v.anchor.Visible() {
		t.Fatal("the viewer still says not anchored")
	}
	// A door that cannot say leaves the item as it was.
	if it := find(BuildTray(ReadTrayState(NewFakeEngine()), TrayActions{}), "Audit log…"); it == nil {
		t.Fatal("a door without the capability changed the audit item")
	}
}
