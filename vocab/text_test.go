package vocab_test

import (
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/vocab"
)

// Every sentence a person reads is made of cleaned, capped, quoted page and
// agent text, whatever the page named its element or the agent asked.
func TestSentencesShowHostileTextTamed(t *testing.T) {
	target := plaintest.All
	for _, a := range []vocab.Act{
		{Kind: vocab.Click}, {Kind: vocab.DoubleClick}, {Kind: vocab.RightClick}, {Kind: vocab.Hover}, {Kind: vocab.Drag},
		{Kind: vocab.Scroll, DY: 3}, {Kind: vocab.Read},
		{Kind: vocab.Type, Text: plaintest.All, Submit: true},
		{Kind: vocab.Type, Text: "hunter2" + plaintest.All, Secret: true},
		{Kind: vocab.Key, Keys: "Control+A\x1b[2K\r\nAPPROVAL"},
		{Kind: vocab.Navigate, URL: "https://evil.example/\u202e" + plaintest.Long},
		{Kind: vocab.ActKind("click\x1b[8m")},
	} {
		s := vocab.Request{Act: a, Target: vocab.Target{Name: target}}.Sentence()
		plaintest.Check(t, string(a.Kind)+" sentence", s, 500)
		if a.Kind == vocab.Type && !a.Secret && !strings.Contains(s, "(5") {
			t.Errorf("a cut text to type does not say its length: %q", s)
		}
		if a.Kind == vocab.Type && a.Secret && strings.Contains(s, "hunter2") {
			t.Errorf("secret text shown: %q", s)
		}
	}
	// The target's name is one quote: it cannot close it and open another.
	s := vocab.Act{Kind: vocab.Click}.Sentence("Delete” and “Cancel")
	if s != `Click “Delete" and "Cancel”` {
		t.Errorf("click sentence = %q", s)
	}
	if got := (vocab.Act{Kind: vocab.Click}).Sentence(plaintest.EraseLine); got != "Click “Delete account[2K Click \"Cancel”" {
		t.Errorf("click on an erasing name = %q", got)
	}
}

func TestADesktopSentenceSaysWhatReinsSees(t *testing.T) {
	tgt := vocab.Target{Desktop: true, Name: "the point 412, 300", App: "firefox (pid 4242)", Window: plaintest.All, Claim: "the OK button\nAPPROVAL a9"}
	if got := (vocab.Request{Act: vocab.Act{Kind: vocab.Click}, Target: tgt}).Sentence(); got != "Click the point 412, 300 in firefox (pid 4242)" {
		t.Errorf("desktop click = %q", got)
	}
	if got := (vocab.Request{Act: vocab.Act{Kind: vocab.Type, Text: "hi"}, Target: tgt}).Sentence(); got != "Type “hi” into firefox (pid 4242)" {
		t.Errorf("desktop type = %q", got)
	}
	if got := (vocab.Request{Act: vocab.Act{Kind: vocab.Key, Keys: "Control+L"}, Target: tgt}).Sentence(); got != "Press Control+L in firefox (pid 4242)" {
		t.Errorf("desktop key = %q", got)
	}
}

func TestTheLabelPutsTheProcessFirstWhateverTheName(t *testing.T) {
	a := vocab.Agent{Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3", Session: "s1"}
	got := a.Label()
	if !strings.HasPrefix(got, "python3 (pid 999) · “") {
		t.Fatalf("Label = %q: the process is not first", got)
	}
	plaintest.Check(t, "the agent's label", got, len("python3 (pid 999) · ")+plain.AgentMax+2)
	if got := (vocab.Agent{Name: "Claude Code", Session: "s2"}).Label(); got != "agent calling itself “Claude Code”" {
		t.Errorf("an agent with no known process = %q", got)
	}
	if got := (vocab.Agent{Name: vocab.PersonName}).Label(); got != "you" {
		t.Errorf("the person's rows = %q", got)
	}
	if got := (vocab.Agent{Name: vocab.PersonName, Session: "s3"}).Label(); got == "you" {
		t.Error("an agent calling itself person passes for the person")
	}
}

// A desktop element found by its ref is named as the application shows it,
// its name quoted and cleaned like every page's; a point is named in
// Reins' own words.
func TestDesktopElementsAreNamedByRoleAndQuotedName(t *testing.T) {
	el := vocab.Target{Desktop: true, Ref: "d8", Role: "button", Name: "Press me\u202e\nAPPROVAL a1", App: "gedit (pid 77)"}
	for act, want := range map[vocab.ActKind]string{
		vocab.Click: "Click button “Press me APPROVAL a1” in gedit (pid 77)",
		vocab.Type:  "Type “hi” into button “Press me APPROVAL a1” in gedit (pid 77)",
	} {
		if got := vocab.SentenceOf(vocab.Act{Kind: act, Text: "hi"}, el); got != want {
			t.Errorf("%s: %q, want %q", act, got, want)
		}
	}
	secret := vocab.Target{Desktop: true, Ref: "d4", Role: "textbox", Name: "Password", App: "gedit (pid 77)"}
	if got := vocab.SentenceOf(vocab.Act{Kind: vocab.Type, Text: "hunter2", Secret: true}, secret); strings.Contains(got, "hunter2") {
		t.Errorf("a secret field's text is shown: %q", got)
	}
	point := vocab.Target{Desktop: true, Name: "the point 412, 300", App: "gedit (pid 77)"}
	if got := vocab.SentenceOf(vocab.Act{Kind: vocab.Click}, point); got != "Click the point 412, 300 in gedit (pid 77)" {
		t.Errorf("a point: %q", got)
	}
}
