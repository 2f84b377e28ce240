package ui

import (
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2/theme"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
)

// ManagedLine is the tray's line under its header while an organisation's
// policy is there: that it is in force, or that it cannot be honoured and
// nothing is shared; "" without one.
func ManagedLine(st policy.State) string {
	switch {
	case st.Err != nil:
		return "Your organisation's policy cannot be read: nothing is shared, no act fires"
	case st.Policy != nil:
		return "Managed by your organisation: some choices are not offered"
	}
	return ""
}

// managedSegs are Preferences' lines about the organisation's policy: where
// it comes from, each rule, and what the organisation receives of each
// audit row; nil without a policy.
func managedSegs(st policy.State) [][]seg {
	caption := func(text string) []seg {
		return []seg{{text: text, color: colorSecondary, size: theme.SizeNameCaptionText}}
	}
	switch {
	case st.Err != nil:
		return [][]seg{{{text: "Not honoured. ", bold: true, color: colorRed}, {text: plain.Text(capitalised(st.Broken())+".", 0), color: colorRed}}}
	case st.Policy == nil:
		return nil
	}
	out := [][]seg{{{text: "These are set by your organisation and cannot be changed here.", color: colorSecondary}}}
	for _, l := range st.Policy.Lines() {
		out = append(out, []seg{{text: "• " + plain.Text(l, 0) + "."}})
	}
	for _, l := range persondoor.OrganisationReceives(st.Policy) {
		out = append(out, []seg{{text: plain.Text(l, 0)}})
	}
	out = append(out, caption(fmt.Sprintf("From %s (%s).", plain.Text(st.Source, 0), st.Hash)))
	return out
}

func capitalised(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}

// within keeps the durations the policy's bounds of the time to answer
// allow.
func within(choices []time.Duration, p *policy.Policy) []time.Duration {
	lo, hi, ok := p.ApprovalTimeout()
	if !ok {
		return choices
	}
	out := slices.DeleteFunc(slices.Clone(choices), func(d time.Duration) bool { return d < lo || d > hi })
	for _, d := range []time.Duration{lo, hi} {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}
