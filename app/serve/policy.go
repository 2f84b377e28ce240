package serve

import (
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

// policy is the organisation's policy in force, when the engine says.
func (t *Terminal) policy() policy.State {
	if m, ok := t.Engine.(persondoor.Managed); ok {
		return m.Policy()
	}
	return policy.State{}
}

// policyBanner is the line under the banner while a policy is there.
func (t *Terminal) policyBanner() string {
	st := t.policy()
	switch {
	case st.Err != nil:
		return "NOT HONOURED: " + plain.Text(st.Broken(), 0) + "."
	case st.Policy != nil:
		return "Your organisation's policy is in force (from " + plain.Text(st.Source, 0) + "): some shares are not offered; \"policy\" shows it."
	}
	return ""
}

// managedMark is what a tab's line adds when the policy limits its site:
// the person sees it before choosing a share.
func (t *Terminal) managedMark(origin string) string {
	st := t.policy()
	if !st.Managed() {
		return ""
	}
	switch st.Effective().Site(origin).Level {
	case vocab.None:
		return "  [organisation: never shared]"
	case vocab.ReadOnly:
		return "  [organisation: read at most]"
	}
	return ""
}

// printPolicy prints the policy in force, each rule, and what the
// organisation receives of each audit row.
func (t *Terminal) printPolicy() {
	st := t.policy()
	switch {
	case st.Err != nil:
		t.printf("%s.\n", plain.Text(st.Broken(), 0))
		return
	case st.Policy == nil:
		t.printf("No organisation's policy: your settings decide.\n")
		return
	}
	t.printf("Set by your organisation, from %s (%s):\n", plain.Text(st.Source, 0), plain.Text(st.Hash, 0))
	for _, l := range st.Policy.Lines() {
		t.printf("  %s.\n", plain.Text(l, 0))
	}
	for _, l := range persondoor.OrganisationReceives(st.Policy) {
		t.printf("  %s\n", plain.Text(l, 0))
	}
}
