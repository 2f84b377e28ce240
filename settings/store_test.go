package settings_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reins-app/reins/settings"
)

// A settings.json as Reins has written it reads back whole, and saving what
// was read writes the same bytes: the file format is the store's contract.
func TestFileReadsAndWritesTheSavedFormat(t *testing.T) {
	const saved = `{
  "approvalTimeoutSeconds": 45,
  "rememberForSeconds": 900,
  "bridgePort": 41234,
  "startAtLogin": true,
  "denyAdded": [
    "Signal",
    "org.example.Bank"
  ],
  "pauseChord": "Control+Alt+Meta+Escape",
  "auditAnchor": {
    "remote": "logs.example.org:514",
    "required": true
  }
}
`
	path := filepath.Join(t.TempDir(), settings.FileName)
	if err := os.WriteFile(path, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	f := settings.File{Path: path}
	s, problems := f.Load()
	if len(problems) > 0 {
		t.Fatalf("problems: %q", problems)
	}
	want := settings.Settings{
		ApprovalTimeout: 45 * time.Second, RememberFor: 15 * time.Minute, BridgePort: 41234, StartAtLogin: true,
		DenyAdded: []string{"Signal", "org.example.Bank"}, PauseChord: "Control+Alt+Meta+Escape",
		AuditRemote: "logs.example.org:514", AuditRemoteRequired: true,
	}
	if s.ApprovalTimeout != want.ApprovalTimeout || s.RememberFor != want.RememberFor || s.BridgePort != want.BridgePort ||
		s.StartAtLogin != want.StartAtLogin || len(s.DenyAdded) != 2 || s.DenyAdded[1] != "org.example.Bank" ||
		s.PauseChord != want.PauseChord || s.AuditRemote != want.AuditRemote || !s.AuditRemoteRequired {
		t.Fatalf("loaded %+v, want %+v", s, want)
	}
	if err := f.Save(s); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != saved {
		t.Fatalf("saved again as\n%s\nwant\n%s", b, saved)
	}
}

// Each change checks its value before it touches the settings, and says in
// its audit words what it changed.
func TestChangesCheckThenSay(t *testing.T) {
	s := settings.Defaults()
	s.ApprovalTimeout = 30 * time.Second
	if _, err := settings.ApprovalTimeout(time.Second)(&s); err == nil || s.ApprovalTimeout != 30*time.Second {
		t.Fatalf("a second to answer: err %v, timeout now %s", err, s.ApprovalTimeout)
	}
	detail, err := settings.ApprovalTimeout(time.Minute)(&s)
	if err != nil || detail != "approval timeout 30s → 1m" || s.ApprovalTimeout != time.Minute {
		t.Fatalf("a minute: %q, %v, %s", detail, err, s.ApprovalTimeout)
	}
	if detail, err := settings.ApprovalTimeout(time.Minute)(&s); detail != "" || err != nil {
		t.Fatalf("the same value again: %q, %v", detail, err)
	}
	if _, err := settings.AddDenied("1Password")(&s); err == nil {
		t.Fatal("a built-in entry was added again")
	}
	if _, err := settings.RemoveDenied(s.DenyList[0])(&s); err == nil {
		t.Fatalf("the built-in %q was removed", s.DenyList[0])
	}
}
