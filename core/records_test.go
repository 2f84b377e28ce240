package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// A read whose audit row cannot be written is not given: every way an
// agent reads a tab or the desktop answers audit_failed with no page in it.
func TestAReadThatCannotBeRecordedIsNotGiven(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	ctx := context.Background()
	f.SetShare(f.tab, vocab.ReadOnly)
	f.SetShare(vocab.DesktopKey, vocab.ReadOnly)
	if _, err := f.agent.Snapshot(ctx, f.tab); err != nil {
		t.Fatal(err)
	}
	f.Log.Close()
	reads := map[string]func() (any, error){
		"snapshot":   func() (any, error) { return f.agent.Snapshot(ctx, f.tab) },
		"read":       func() (any, error) { return f.agent.Read(ctx, agentdoor.ReadOptions{Tab: f.tab}) },
		"find":       func() (any, error) { return f.agent.Find(ctx, f.tab, "Place", "") },
		"changes":    func() (any, error) { return f.agent.Changes(ctx, f.tab, 0) },
		"screenshot": func() (any, error) { return f.agent.Screenshot(ctx, f.tab) },
		"wait": func() (any, error) {
			return f.agent.WaitFor(ctx, agentdoor.WaitOptions{Tab: f.tab, Text: "Place order"})
		},
		"desktop": func() (any, error) { return f.agent.Desktop(ctx) },
	}
	for name, read := range reads {
		got, err := read()
		if codeOf(err) != vocab.CodeAuditFailed {
			t.Errorf("%s with the log unwritable: %v, want %s", name, err, vocab.CodeAuditFailed)
		}
		if err == nil {
			t.Errorf("%s gave %v", name, got)
		}
	}
}

// A typing act refused before its field is found keeps only the text's
// length: the field may be a password's, and the log never holds one.
// Once the field is known not to be secret, a refusal keeps the text, so the
// person can read what was tried.
func TestTextRefusedBeforeItsFieldIsFoundIsNotKept(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	ctx := context.Background()
	f.SetShare(f.tab, vocab.Control)
	pw, _ := f.snapRef("Password")
	search, _ := f.snapRef("Search")
	p := shop()
	p.URL = shopURL + "?again"
	f.Browser.Load(7, p) // every ref of the old document is stale now
	f.WaitTab(t, p.URL)
	const secret = "stalePW-5555"
	_, err := f.agent.Act(ctx, agentdoor.ActRequest{Tab: f.tab, Ref: pw, Act: vocab.Act{Kind: vocab.Type, Text: secret}})
	if codeOf(err) != vocab.CodeStaleRef {
		t.Fatalf("typing into a stale ref: %v, want %s", err, vocab.CodeStaleRef)
	}
	defer f.AnswerAll(vocab.Deny)()
	search, _ = f.snapRef("Search")
	if _, err := f.agent.Act(ctx, agentdoor.ActRequest{Tab: f.tab, Ref: search, Act: vocab.Act{Kind: vocab.Type, Text: "red socks"}}); codeOf(err) != vocab.CodeDenied {
		t.Fatalf("typing the person denies: %v", err)
	}
	var stale, denied int
	for _, r := range f.rows(persondoor.AuditFilter{Act: string(vocab.Type)}) {
		if strings.Contains(string(r.Act), secret) {
			t.Errorf("row %d keeps the text typed at a stale ref: %s", r.Seq, r.Act)
		}
		switch r.Code {
		case vocab.CodeStaleRef:
			stale++
			if !strings.Contains(string(r.Act), `"withheld":12`) {
				t.Errorf("row %d does not keep the text's length: %s", r.Seq, r.Act)
			}
			if line := persondoor.FormatAuditRow(r); strings.Contains(line, secret) || !strings.Contains(line, "text of 12 characters, not stored") {
				t.Errorf("reins audit shows %q", line)
			}
		case vocab.CodeDenied:
			denied++
			if !strings.Contains(string(r.Act), "red socks") {
				t.Errorf("a denied act on a known plain field does not keep what was tried: %s", r.Act)
			}
		}
	}
	if stale != 1 || denied != 1 {
		t.Fatalf("%d stale and %d denied rows", stale, denied)
	}
}
