package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/core"
)

func TestOutcomeWords(t *testing.T) {
	for _, tc := range []struct {
		a    core.Activity
		want string
		mark Mark
	}{
		{core.Activity{Outcome: core.OutcomeDone}, "done", MarkNone},
		{core.Activity{Outcome: core.OutcomeRefused, Code: core.CodeGrantRequired}, "refused — tab not shared", MarkRefused},
		{core.Activity{Outcome: core.OutcomeRefused, Code: core.CodeControlRequired}, "refused — read only", MarkRefused},
		{core.Activity{Outcome: core.OutcomeRefused, Code: core.CodeStaleRef}, "refused — page changed, new snapshot needed", MarkRefused},
		{core.Activity{Outcome: core.OutcomeRefused, Code: core.CodeDenyListed, Detail: "a deny-listed application is in the way: 1Password is in front (deny list: 1Password); nothing was fired"}, "refused — 1Password is in front", MarkRefused},
		{core.Activity{Outcome: core.OutcomeRefused, Code: core.CodePaused}, "refused — agents paused", MarkRefused},
		{core.Activity{Outcome: core.OutcomeDenied, Code: core.CodeDenied}, "denied by you", MarkNone},
		{core.Activity{Outcome: core.OutcomeTimeout}, "timed out — no answer", MarkNone},
		{core.Activity{Outcome: core.OutcomeFailed, Detail: "the socket closed; try again"}, "failed: the socket closed", MarkFailed},
	} {
		got, mark := OutcomeWords(tc.a)
		if got != tc.want || mark != tc.mark {
			t.Errorf("%+v → %q/%v, want %q/%v", tc.a, got, mark, tc.want, tc.mark)
		}
	}
}

func TestCollapseRepeats(t *testing.T) {
	probe := core.Activity{Agent: "Codex", Act: "Read", Outcome: core.OutcomeRefused, Code: core.CodeGrantRequired}
	done := core.Activity{Agent: "Codex", Act: "Read", Outcome: core.OutcomeRead}
	var newest []core.Activity
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
	s.SetTabs([]core.TabInfo{{ID: "1", Title: "Shop", Origin: "https://shop.example.com"}, {ID: "2", Title: "Mail"}})
	s.Add("1", core.Activity{Time: t0, Act: "Read", Outcome: core.OutcomeRead})
	s.Add("2", core.Activity{Time: t0, Act: "Read", Outcome: core.OutcomeRefused, Code: core.CodeGrantRequired})
	s.Add("1", core.Activity{Time: t0.Add(time.Second), Act: "Click “Buy”", Outcome: core.OutcomeDone})
	if l := s.Lines(); len(l) != 2 || l[0].Act != "Click “Buy”" {
		t.Fatalf("tab 1 lines = %+v", l)
	}
	s.Show("2")
	if l := s.Lines(); len(l) != 1 || l[0].Outcome != "refused — tab not shared" {
		t.Fatalf("tab 2 lines = %+v", l)
	}
}
