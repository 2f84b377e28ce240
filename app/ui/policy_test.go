package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

func managedState(t *testing.T, body string) policy.State {
	t.Helper()
	p, err := policy.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return policy.State{Source: policy.LinuxPath, Policy: p, Hash: "sha256:0123"}
}

const trayPolicy = `{"sites": {"never": ["*.bank.example"], "maxLevel": {"mail.example.com": "read"}}, "desktop": "read"}`

// The tray shows what the organisation's policy does not allow, marked as
// such, and offers none of it: a bank's tab cannot be shared at all, the
// webmail's at Read at most, the desktop likewise; the rest as ever.
func TestTrayOffersNoShareThePolicyForbids(t *testing.T) {
	var shared []string
	s := TrayState{Connected: true, Policy: managedState(t, trayPolicy),
		Agents: []persondoor.AgentInfo{{Key: "k", Name: "claude", Exe: "/usr/bin/claude", PID: 7, Allowed: true}},
		Tabs: []vocab.TabInfo{
			{ID: "1", Title: "Accounts", Origin: "https://www.bank.example"},
			{ID: "2", Title: "Inbox", Origin: "https://mail.example.com"},
			{ID: "3", Title: "Cart", Origin: "https://shop.example.com"},
		}}
	items := BuildTray(s, TrayActions{
		SetShare: func(tab string, l vocab.Level) { shared = append(shared, tab+"="+l.String()) },
		ShareWith: func(tab string, l vocab.Level, agent string) {
			shared = append(shared, tab+"="+l.String()+" for "+agent)
		},
	})
	if items[1].Label != ManagedLine(s.Policy) || !items[1].Disabled {
		t.Fatalf("no line says the menu is managed: %+v", items[1])
	}
	tabs := find(items, "Tabs").Children
	offered := func(group []Item) []string {
		var out []string
		for _, it := range group {
			if !it.Disabled && it.Do != nil {
				out = append(out, it.Label)
			}
		}
		return out
	}
	bank := under(tabs, "Accounts (www.bank.example)")
	mail := under(tabs, "Inbox (mail.example.com)")
	shop := under(tabs, "Cart (shop.example.com)")
	desktop := find(items, "Desktop").Children
	for _, c := range []struct {
		name  string
		group []Item
		want  []string
	}{
		{"bank", bank, []string{"Not shared"}},
		{"mail", mail, []string{"Not shared", "Read", "Read for claude (pid 7) · “claude”"}},
		{"shop", shop, []string{"Not shared", "Read", "Control", "Read for claude (pid 7) · “claude”", "Control for claude (pid 7) · “claude”"}},
		{"desktop", desktop, []string{"Not shared", "Read"}},
	} {
		if got := offered(c.group); !slices.Equal(got, c.want) {
			t.Errorf("%s offers %q, want %q", c.name, got, c.want)
		}
	}
	for _, it := range append(bank, mail...) {
		if it.Disabled && it.Label != "" && !strings.HasSuffix(it.Label, ManagedMark) {
			t.Errorf("a choice not offered is not marked: %q", it.Label)
		}
	}
	if find(bank, "Control"+ManagedMark) == nil || find(mail, "Control"+ManagedMark) == nil || find(desktop, "Control"+ManagedMark) == nil {
		t.Fatalf("the choices the policy forbids are not shown as its: bank %+v mail %+v", bank, mail)
	}
	// The person's own choice stays theirs: stopping a share is offered.
	find(bank, "Not shared").Do()
	if len(shared) != 1 || shared[0] != "1=none" {
		t.Fatalf("shared %v", shared)
	}
}

// A policy that cannot be honoured offers nothing but "Not shared".
func TestTrayWithABrokenPolicyOffersNoShare(t *testing.T) {
	s := TrayState{Connected: true, Policy: policy.State{Source: policy.LinuxPath, Err: errors.New("bad JSON")},
		Tabs: []vocab.TabInfo{{ID: "3", Title: "Cart", Origin: "https://shop.example.com"}}}
	items := BuildTray(s, TrayActions{})
	if !strings.Contains(items[1].Label, "cannot be read") {
		t.Fatalf("the menu does not say so: %q", items[1].Label)
	}
	for _, g := range [][]Item{under(find(items, "Tabs").Children, "Cart (shop.example.com)"), find(items, "Desktop").Children} {
		for _, it := range g {
			if (it.Label == "Read" || it.Label == "Control") && !it.Disabled {
				t.Fatalf("%q is offered under a broken policy", it.Label)
			}
		}
	}
}

// Preferences show every managed value as the organisation's, with what
// it receives of each row, offer no time to answer outside its bounds,
// and withhold what it withholds.
func TestPreferencesShowThePolicyAndOfferNothingLooser(t *testing.T) {
	e, p := newPrefsRig(t)
	if p.managedGroup.Visible() {
		t.Fatal("a managed group without a policy")
	}
	e.SetPolicy(managedState(t, `{"approvalTimeoutSeconds": {"min": 15, "max": 60}, "allowOnTab": false, "denyApplications": ["Signal"],
		"audit": {"syslog": {"address": "logs.example.org:6514", "tls": {}}}, "retention": {"days": 400}}`))
	p.Refresh()
	if !p.managedGroup.Visible() {
		t.Fatal("the policy is not shown")
	}
	shown := p.managed.String()
	for _, want := range []string{"set by your organisation", "Time to answer: from 15 seconds to 1 minute", "“Allow on this tab” is not offered",
		"logs.example.org:6514", "text typed into ordinary fields in full", "only its length", "its title and its address", policy.LinuxPath, "sha256:0123"} {
		if !strings.Contains(shown, want) {
			t.Errorf("Preferences do not say %q:\n%s", want, shown)
		}
	}
	for _, o := range p.timeout.Options {
		d, _ := parseWords(o, timeoutChoices)
		if o != p.timeout.Selected && (d.Seconds() < 15 || d.Seconds() > 60) {
			t.Errorf("the time to answer offers %q, outside the policy's bounds", o)
		}
	}
	if !p.remember.Disabled() || !strings.Contains(p.rememberNote.String(), "organisation") {
		t.Fatalf("“allow on this tab” is still offered: %v, %q", p.remember.Disabled(), p.rememberNote.String())
	}
	if !strings.Contains(p.denyManaged.String(), "Signal") {
		t.Fatalf("the organisation's deny list is not shown: %q", p.denyManaged.String())
	}
	if !strings.Contains(p.audit.String(), "400 days") {
		t.Fatalf("the log's retention is not the policy's: %q", p.audit.String())
	}
	// Broken: said, in red, with the file and the fix.
	e.SetPolicy(policy.State{Source: policy.LinuxPath, Err: errors.New("the key \"x\" is not one Reins knows")})
	p.Refresh()
	if s := p.managed.String(); !strings.Contains(s, "Not honoured") || !strings.Contains(s, policy.LinuxPath) || !strings.Contains(s, "correct the file") {
		t.Fatalf("a broken policy is shown as %q", s)
	}
}
