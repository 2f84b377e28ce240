package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

func TestOutcomeWords(t *testing.T) {
	for _, tc := range []struct {
		a    persondoor.Activity
		want string
		mark Mark
	}{
		{persondoor.Activity{Outcome: vocab.OutcomeDone}, "done", MarkNone},
		{persondoor.Activity{Outcome: vocab.OutcomeRefused, Code: vocab.CodeShareRequired}, "refused — tab not shared", MarkRefused},
		{persondoor.Activity{Outcome: vocab.OutcomeRefused, Code: vocab.CodeControlRequired}, "refused — read only", MarkRefused},
		{persondoor.Activity{Outcome: vocab.OutcomeRefused, Code: vocab.CodeStaleRef}, "refused — page changed, new snapshot needed", MarkRefused},
		{persondoor.Activity{Outcome: vocab.OutcomeRefused, Code: vocab.CodeDenyListed, Detail: "a deny-listed application is in the way: 1Password is in front (deny list: 1Password); nothing was fired"}, "refused — 1Password is in front", MarkRefused},
		{persondoor.Activity{Outcome: vocab.OutcomeRefused, Code: vocab.CodePaused}, "refused — agents paused", MarkRefused},
		{persondoor.Activity{Outcome: vocab.OutcomeDenied, Code: vocab.CodeDenied}, "denied by you", MarkNone},
		{persondoor.Activity{Outcome: vocab.OutcomeTimeout}, "timed out — no answer", MarkNone},
		{persondoor.Activity{Outcome: vocab.OutcomeFailed, Detail: "the socket closed; try again"}, "failed: the socket closed", MarkFailed},
	} {
		got, mark := OutcomeWords(tc.a)
		if got != tc.want || mark != tc.mark {
			t.Errorf("%+v → %q/%v, want %q/%v", tc.a, got, mark, tc.want, tc.mark)
		}
	}
}

func TestCollapseRepeats(t *testing.T) {
	probe := persondoor.Activity{Agent: "Codex", Act: "Read", Outcome: vocab.OutcomeRefused, Code: vocab.CodeShareRequired}
	done := persondoor.Activity{Agent: "Codex", Act: "Read", Outcome: vocab.OutcomeRead}
	var newest []persondoor.Activity
	for i := 0; i < 12; i++ {
		newest = append(newest, probe)
	}
	newest = append(newest, done, probe)
	lines := Collapse(newest)
	if len(lines) != 3 || lines[0].Count != 12 || lines[1].Count != 1 || lines[2].Count != 1 {
		t.Fatalf("lines = %+v", lines)
	}
	if lines[0].Mark != MarkRefused || lines[1].Mark != MarkNone {
		t.Fatalf("marks = %v, %v", lines[0].Mark, lines[1].Mark)
	}
}

func TestStripShowsNewestFirstPerTab(t *testing.T) {
	testApp(t)
	s := NewActivityStrip()
	test.NewTempWindow(t, s.Content())
	s.SetTabs([]vocab.TabInfo{{ID: "1", Title: "Shop", Origin: "https://shop.example.com"}, {ID: "2", Title: "Mail"}})
	s.Add("1", persondoor.Activity{Time: t0, Act: "Read", Outcome: vocab.OutcomeRead})
	s.Add("2", persondoor.Activity{Time: t0, Act: "Read", Outcome: vocab.OutcomeRefused, Code: vocab.CodeShareRequired})
	s.Add("1", persondoor.Activity{Time: t0.Add(time.Second), Act: "Click “Buy”", Outcome: vocab.OutcomeDone})
	if l := s.Lines(); len(l) != 2 || l[0].Act != "Click “Buy”" {
		t.Fatalf("tab 1 lines = %+v", l)
	}
	s.Show("2")
	if l := s.Lines(); len(l) != 1 || l[0].Outcome != "refused — tab not shared" {
		t.Fatalf("tab 2 lines = %+v", l)
	}
}
