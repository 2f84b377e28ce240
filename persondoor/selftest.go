package persondoor

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// SelfTester is an optional capability of a [Door]: the self-test, which
// checks on this desktop, for real, what Reins needs — its input through
// the fire sequence into a window of its own, the accessibility reader,
// the permissions, the tray item, the deny list, pictures, the release
// guard, Chrome's pairing helpers, the watch on the person's hand — after
// one approval, and reports what it saw.
type SelfTester interface {
	SelfTest(ctx context.Context, o SelfTestOptions) (SelfTestReport, error)
}

// SelfTestOptions configures a self-test.
type SelfTestOptions struct {
	// Asker is who asked for the test: the process behind `reins selftest`,
	// found from the OS, or zero for the person at Reins' own menu. The
	// approval names it.
	Asker SelfTestAsker // optional
	// Hand asks the person, through Progress, to move the mouse once, so
	// that the watch on the person's hand shows it sees their own device.
	// Without it the test asks nothing of the person but the approval.
	Hand bool // optional
	// Tray is the front end's own account of the tray item or menu-bar
	// item, which only it can give; nil says there is none (reins serve).
	Tray func() SelfTestCheck // optional
	// Progress is told of each check as it ends, and of what the person is
	// asked to do; it must not block.
	Progress func(SelfTestEvent) // optional
}

// SelfTestAsker is the process that asked for a self-test.
type SelfTestAsker struct {
	PID int
	Exe string
}

// SelfTestEvent is what Progress is told: a check that ended, or a line
// for the person (Say).
type SelfTestEvent struct {
	Check *SelfTestCheck `json:"check,omitempty"`
	Say   string         `json:"say,omitempty"`
}

// SelfTestCheck is one line of the report.
type SelfTestCheck struct {
	Name string `json:"name"`
	// Result is SelfTestPass, SelfTestFail, or SelfTestSkip when the check
	// could not be made here (no Chrome running, say), which is no fault.
	Result string        `json:"result"`
	Saw    string        `json:"saw"`
	Took   time.Duration `json:"took_ns"`
}

// Results of a check.
const (
	SelfTestPass = "pass"
	SelfTestFail = "FAIL"
	SelfTestSkip = "skip"
)

// Failed reports whether the check failed.
func (c SelfTestCheck) Failed() bool { return c.Result == SelfTestFail }

// SelfTestReport is what a self-test found.
type SelfTestReport struct {
	Started time.Time       `json:"started"`
	Took    time.Duration   `json:"took_ns"`
	OS      string          `json:"os"`
	Arch    string          `json:"arch"`
	Version string          `json:"version,omitempty"` // the OS's own version, where it says
	Checks  []SelfTestCheck `json:"checks"`
	// File is where the report was written, as JSON, in the data folder;
	// "" when it could not be.
	File string `json:"file,omitempty"`
}

// Failed lists the names of the checks that failed.
func (r SelfTestReport) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if c.Failed() {
			out = append(out, c.Name)
		}
	}
	return out
}

// FormatSelfTest is the report as a table for a terminal or a window: one
// row per check (check, result, what it saw, how long), long sightings
// wrapped under their own column, and a last line that says what failed.
func FormatSelfTest(r SelfTestReport) string {
	const sawWidth = 78
	nameW := len("check")
	for _, c := range r.Checks {
		nameW = max(nameW, utf8.RuneCountInString(c.Name))
	}
	var b strings.Builder
	row := func(name, result, took, saw string) {
		fmt.Fprintf(&b, "%-*s  %-6s %7s  %s\n", nameW, name, result, took, saw)
	}
	row("check", "result", "took", "what it saw")
	row(strings.Repeat("-", nameW), "------", "-------", strings.Repeat("-", 11))
	for _, c := range r.Checks {
		lines := wrap(c.Saw, sawWidth)
		row(c.Name, c.Result, tookWords(c.Took), lines[0])
		for _, l := range lines[1:] {
			row("", "", "", l)
		}
	}
	failed := r.Failed()
	switch {
	case len(r.Checks) == 0:
		b.WriteString("No check ran.\n")
	case len(failed) == 0:
		fmt.Fprintf(&b, "All %d checks passed or were skipped, in %s.\n", len(r.Checks), tookWords(r.Took))
	default:
		fmt.Fprintf(&b, "%d of %d checks failed: %s.\n", len(failed), len(r.Checks), strings.Join(failed, ", "))
	}
	if r.File != "" {
		fmt.Fprintf(&b, "The report is in %s.\n", r.File)
	}
	return b.String()
}

func tookWords(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// wrap cuts s into lines of at most width runes, at spaces where it can;
// it always returns at least one line.
func wrap(s string, width int) []string {
	s = strings.Join(strings.Fields(s), " ")
	var out []string
	for utf8.RuneCountInString(s) > width {
		r := []rune(s)
		cut := width
		for i := width; i > width/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimSpace(string(r[:cut])))
		s = strings.TrimSpace(string(r[cut:]))
	}
	return append(out, s)
}
