package persondoor

import (
	"strings"
	"testing"
	"time"
)

func TestTheSelfTestTableSaysEachCheckAndWhatFailed(t *testing.T) {
	r := SelfTestReport{Took: 4200 * time.Millisecond, File: "/data/selftest.json", Checks: []SelfTestCheck{
		{Name: "click", Result: SelfTestPass, Saw: "the window's click box took one tap", Took: 12 * time.Millisecond},
		{Name: "typing", Result: SelfTestFail, Saw: strings.Repeat("a long sighting ", 12), Took: 1500 * time.Millisecond},
		{Name: "pairing", Result: SelfTestSkip, Saw: "no Chrome-family browser is running"},
	}}
	got := FormatSelfTest(r)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if !strings.HasPrefix(lines[0], "check") || !strings.Contains(lines[0], "result") || !strings.Contains(lines[0], "took") || !strings.Contains(lines[0], "what it saw") {
		t.Errorf("no header: %q", lines[0])
	}
	if !strings.HasPrefix(lines[2], "click") || !strings.Contains(lines[2], "pass") || !strings.Contains(lines[2], "12ms") {
		t.Errorf("the click row: %q", lines[2])
	}
	// The long sighting wraps under its own column.
	col := strings.Index(lines[0], "what it saw")
	if !strings.HasPrefix(lines[4], strings.Repeat(" ", col)) || strings.TrimSpace(lines[4]) == "" {
		t.Errorf("the sighting did not wrap under its column:\n%s", got)
	}
	for _, want := range []string{"1 of 3 checks failed: typing.", "The report is in /data/selftest.json."} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	if failed := r.Failed(); len(failed) != 1 || failed[0] != "typing" {
		t.Errorf("Failed = %v", failed)
	}
	r.Checks[1].Result = SelfTestPass
	if got := FormatSelfTest(r); !strings.Contains(got, "All 3 checks passed or were skipped, in 4.2s.") {
		t.Errorf("a passing report:\n%s", got)
	}
}
