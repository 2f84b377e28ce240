package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// The fake the windows are tested against answers the person's settings
// changes as the real engine does: the same refusals in the same words, the
// same settings after, the same audit words for each change.
func TestFakeEngineSettingsAreTheEngines(t *testing.T) {
	real := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Second})
	door := real.PersonDoor()
	fake := NewFakeEngine()
	fake.SetSettings(door.Settings())
	steps := []struct {
		name string
		do   func(persondoor.Door) error
	}{
		{"timeout 1s", func(d persondoor.Door) error { return d.SetApprovalTimeout(time.Second) }},
		{"timeout 1m", func(d persondoor.Door) error { return d.SetApprovalTimeout(time.Minute) }},
		{"timeout 1m again", func(d persondoor.Door) error { return d.SetApprovalTimeout(time.Minute) }},
		{"remember 2h", func(d persondoor.Door) error { return d.SetRememberFor(2 * time.Hour) }},
		{"remember 20m", func(d persondoor.Door) error { return d.SetRememberFor(20 * time.Minute) }},
		{"port 80", func(d persondoor.Door) error { return d.SetBridgePort(80) }},
		{"port 40000", func(d persondoor.Door) error { return d.SetBridgePort(40000) }},
		{"port 0", func(d persondoor.Door) error { return d.SetBridgePort(0) }},
		{"login on", func(d persondoor.Door) error { return d.SetStartAtLogin(true) }},
		{"chord nonsense", func(d persondoor.Door) error { return d.SetPauseChord("Control+Nonsense") }},
		{"chord", func(d persondoor.Door) error { return d.SetPauseChord("ctrl+alt+meta+escape") }},
		{"deny empty", func(d persondoor.Door) error { return d.AddDenied("  ") }},
		{"deny built in", func(d persondoor.Door) error { return d.AddDenied("1password") }},
		{"deny Signal", func(d persondoor.Door) error { return d.AddDenied("Signal") }},
		{"deny signal again", func(d persondoor.Door) error { return d.AddDenied("signal") }},
		{"deny control char", func(d persondoor.Door) error { return d.AddDenied("Bank\x1b[8m") }},
		{"undeny built in", func(d persondoor.Door) error { return d.RemoveDenied("1Password") }},
		{"undeny unknown", func(d persondoor.Door) error { return d.RemoveDenied("Nothing") }},
		{"undeny SIGNAL", func(d persondoor.Door) error { return d.RemoveDenied("SIGNAL") }},
	}
	for _, s := range steps {
		want, got := s.do(door), s.do(fake)
		switch {
		case (want == nil) != (got == nil):
			t.Errorf("%s: the engine says %v, the fake %v", s.name, want, got)
		case want != nil && (want.Error() != got.Error() || errors.Is(want, settings.ErrInvalid) != errors.Is(got, settings.ErrInvalid)):
			t.Errorf("%s: the engine refuses with %q, the fake with %q", s.name, want, got)
		}
	}
	w, g := door.Settings(), fake.Settings()
	if w.ApprovalTimeout != g.ApprovalTimeout || w.RememberFor != g.RememberFor || w.BridgePort != g.BridgePort ||
		w.StartAtLogin != g.StartAtLogin || w.PauseChord != g.PauseChord || !slices.Equal(w.DenyAdded, g.DenyAdded) || !slices.Equal(w.DenyList, g.DenyList) {
		t.Errorf("after the same changes the engine holds\n%+v\nand the fake\n%+v", w, g)
	}
	rows, err := door.AuditRows(context.Background(), persondoor.AuditFilter{Act: string(vocab.Settings)})
	if err != nil {
		t.Fatal(err)
	}
	var details []string
	for i := len(rows) - 1; i >= 0; i-- {
		details = append(details, rows[i].Detail)
	}
	if strings.Join(details, "|") != strings.Join(fake.Changes(), "|") || len(details) < 6 {
		t.Errorf("the engine audited\n%q\nthe fake\n%q", details, fake.Changes())
	}
}

// The fake ends hand-offs as the engine does: the same refusals, the same
// question for a tab now on another site, the same end once it is
// confirmed.
func TestFakeEngineHandoffsAreTheEngines(t *testing.T) {
	real := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	real.Browser.Open(3, coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Place order", 10, 10)),
	}})
	tab := real.WaitTab(t, "https://shop.example.com/")
	door := real.PersonDoor()
	if err := door.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	agent := coretest.Admitted(t, real.AgentDoor(), door, vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"})
	h, err := agent.Handoff(context.Background(), agentdoor.HandoffRequest{Tab: tab, Reason: "Please log in"})
	if err != nil {
		t.Fatal(err)
	}
	real.Browser.Load(3, coretest.Page{URL: "https://login.example.net/", Title: "Sign in", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Sign in", 10, 10)),
	}})
	real.WaitTab(t, "https://login.example.net/")
	list := door.Handoffs()
	if len(list) != 1 {
		t.Fatalf("the engine lists %d hand-offs", len(list))
	}
	fake := NewFakeEngine()
	fake.StartHandoff(list[0])
	if f := fake.Handoffs(); len(f) != 1 || f[0] != list[0] {
		t.Fatalf("the fake lists %+v, the engine %+v", f, list)
	}
	steps := []struct {
		name string
		do   func(d persondoor.Door) error
	}{
		{"unknown id", func(d persondoor.Door) error { return d.FinishHandoff("h0000000", true, "") }},
		{"done unconfirmed", func(d persondoor.Door) error { return d.FinishHandoff(h.ID, true, "") }},
		{"done on a site not on screen", func(d persondoor.Door) error { return d.FinishHandoff(h.ID, true, "https://evil.example") }},
		{"done confirmed", func(d persondoor.Door) error { return d.FinishHandoff(h.ID, true, "https://login.example.net") }},
		{"done again", func(d persondoor.Door) error { return d.FinishHandoff(h.ID, true, "") }},
	}
	for _, s := range steps {
		want, got := s.do(door), s.do(fake)
		switch {
		case (want == nil) != (got == nil):
			t.Errorf("%s: the engine says %v, the fake %v", s.name, want, got)
		case want != nil && (want.Error() != got.Error() || errors.Is(want, persondoor.ErrConfirmOrigin) != errors.Is(got, persondoor.ErrConfirmOrigin) ||
			errors.Is(want, persondoor.ErrNoSuchHandoff) != errors.Is(got, persondoor.ErrNoSuchHandoff)):
			t.Errorf("%s: the engine refuses with %q, the fake with %q", s.name, want, got)
		}
	}
	if len(door.Handoffs()) != 0 || len(fake.Handoffs()) != 0 {
		t.Error("a hand-off is left after the confirmed Done")
	}
}
