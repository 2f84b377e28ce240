package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

const (
	shopOrigin = "https://shop.example.com"
	ssoURL     = "https://login.example.net/sso?return=shop"
	ssoOrigin  = "https://login.example.net"
)

func ssoPage() coretest.Page {
	return coretest.Page{URL: ssoURL, Title: "Sign in — Example ID", Frames: []protocol.FrameReport{coretest.Frame(
		coretest.Field(1, "Email", false, 100, 100),
		coretest.Button(2, "Sign in", 100, 200),
	)}}
}

// handOff shares the fixture's tab at Control and hands it to the person.
func (f *fixture) handOff() *agentdoor.HandoffResult {
	f.t.Helper()
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		f.t.Fatal(err)
	}
	h, err := f.agent.Handoff(context.Background(), agentdoor.HandoffRequest{Tab: f.tab, Reason: "Please log in to your shop account"})
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

func (f *fixture) waitHandoff(id string, timeout time.Duration) *agentdoor.WaitResult {
	f.t.Helper()
	r, err := f.agent.WaitHandoff(context.Background(), agentdoor.WaitOptions{Handoff: id, Timeout: timeout})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// waitShown waits until the engine's tab list shows url for the tab.
func (f *fixture) waitShown(url string) {
	f.t.Helper()
	f.WaitTab(f.t, url)
}

func TestAHandedOffTabRefusesActsUntilThePersonPressesDone(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	defer f.AnswerAll(vocab.AllowOnce)()
	events, stop := f.Subscribe(64)
	defer stop()
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	h := f.handOff()
	if !strings.HasPrefix(h.ID, "h") || len(h.ID) != 8 || h.Origin != shopOrigin || h.Audit == 0 {
		t.Fatalf("hand-off result %+v", h)
	}
	var seen *vocab.Request
	for seen == nil {
		ev := <-events
		if ev.Kind == persondoor.EventHandoff {
			seen = ev.Request
		}
	}
	if seen.ID != h.ID || seen.Act.Kind != vocab.Handoff || seen.Act.Text != "Please log in to your shop account" || seen.Target.Tab != f.tab {
		t.Fatalf("the person's event: %+v", seen)
	}
	if err := f.click(ref); codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("a click while handed off: %v, want handed_off", err)
	}
	// Reads go on while the tab shows the site it was shared on.
	if _, err := f.agent.Snapshot(context.Background(), f.tab); err != nil {
		t.Fatalf("a read while handed off: %v", err)
	}
	if r := f.waitHandoff(h.ID, 20*time.Millisecond); r.Met || r.HandoffState != agentdoor.HandoffWithPerson {
		t.Fatalf("a wait before the person ended it: %+v", r)
	}
	list := f.Handoffs()
	if len(list) != 1 || list[0].ID != h.ID || list[0].Origin != shopOrigin || list[0].Moved() || list[0].Level != vocab.Control ||
		list[0].Agent.Name != "Test agent" || list[0].Title != "Cart — Shop" {
		t.Fatalf("Handoffs() = %+v", list)
	}
	waited := make(chan *agentdoor.WaitResult, 1)
	go func() { waited <- f.waitHandoff(h.ID, 0) }()
	if err := f.FinishHandoff(h.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	if r := <-waited; !r.Met || r.HandoffState != agentdoor.HandoffDone || r.Origin != "" {
		t.Fatalf("the wait after Done: %+v", r)
	}
	if err := f.click(ref); err != nil {
		t.Fatalf("a click after Done: %v", err)
	}
	if len(f.Exec.Fired()) != 1 {
		t.Fatalf("fired %d acts, want the one after Done", len(f.Exec.Fired()))
	}
	if err := f.FinishHandoff(h.ID, true, ""); !errors.Is(err, persondoor.ErrNoSuchHandoff) {
		t.Fatalf("a second Done: %v", err)
	}
	// A wait after the end still says how it ended.
	if r := f.waitHandoff(h.ID, 0); r.HandoffState != agentdoor.HandoffDone {
		t.Fatalf("a late wait: %+v", r)
	}
	rows := f.rows(persondoor.AuditFilter{Act: string(vocab.Handoff)})
	if len(rows) != 2 || rows[1].AgentName != "Test agent" || !strings.Contains(rows[1].Detail, h.ID) ||
		rows[0].AgentName != vocab.PersonName || !strings.Contains(rows[0].Detail, "pressed Done") {
		t.Fatalf("hand-off rows: %+v", rows)
	}
}

// An act asked about before the hand-off and allowed during it fires
// nothing: the shares refuse it at fire time.
func TestAnActAllowedDuringAHandoffDoesNotFire(t *testing.T) {
	f := newFixture(t, 5*time.Second)
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	ref, _ := f.snapRef("Place order")
	events, stop := f.Subscribe(64)
	defer stop()
	acted := make(chan error, 1)
	go func() { acted <- f.click(ref) }()
	var asked *vocab.Request
	for asked == nil {
		if ev := <-events; ev.Kind == persondoor.EventApproval {
			asked = ev.Request
		}
	}
	if _, err := f.agent.Handoff(context.Background(), agentdoor.HandoffRequest{Tab: f.tab, Reason: "solve the captcha"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Answer(asked.ID, vocab.AllowOnce); err != nil {
		t.Fatal(err)
	}
	if err := <-acted; codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("the act allowed during the hand-off: %v, want handed_off", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("an act fired on a handed-off tab")
	}
}

func TestAHandoffNeedsControlAndAReason(t *testing.T) {
	f := newFixture(t, time.Second)
	ask := func(reason string) error {
		_, err := f.agent.Handoff(context.Background(), agentdoor.HandoffRequest{Tab: f.tab, Reason: reason})
		return err
	}
	if err := ask("log in"); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("unshared: %v", err)
	}
	f.SetShare(f.tab, vocab.ReadOnly)
	if err := ask("log in"); codeOf(err) != vocab.CodeControlRequired {
		t.Fatalf("read only: %v", err)
	}
	f.SetShare(f.tab, vocab.Control)
	if err := ask(""); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("no reason: %v", err)
	}
	if err := ask(strings.Repeat("x", agentdoor.MaxHandoffReason+1)); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("an overlong reason: %v", err)
	}
	f.Pause(true)
	if err := ask("log in"); codeOf(err) != vocab.CodePaused {
		t.Fatalf("paused: %v", err)
	}
	f.Pause(false)
	if err := ask("log in"); err != nil {
		t.Fatal(err)
	}
	if err := ask("log in again"); codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("a second hand-off of the same tab: %v", err)
	}
	if len(f.Handoffs()) != 1 {
		t.Fatalf("%d hand-offs, want 1", len(f.Handoffs()))
	}
	// Pausing leaves the hand-off as it is.
	f.Pause(true)
	f.Pause(false)
	if len(f.Handoffs()) != 1 {
		t.Fatal("pausing ended the hand-off")
	}
}

// Another agent can neither act on a handed-off tab nor wait on another's
// hand-off.
func TestAHandoffStopsEveryAgent(t *testing.T) {
	f := newFixture(t, time.Second)
	other := f.Connect(vocab.Agent{Name: "Other agent", PID: 77, Exe: "/usr/bin/codex"})
	h := f.handOff()
	if _, err := other.Snapshot(context.Background(), f.tab); err != nil {
		t.Fatalf("another agent's read on the shared site: %v", err)
	}
	_, err := other.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}})
	if codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("another agent's key press: %v", err)
	}
	if _, err := other.WaitHandoff(context.Background(), agentdoor.WaitOptions{Handoff: h.ID}); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("another agent waiting on the hand-off: %v", err)
	}
}

// Single sign-on: the person's steps leave the site and come back. The
// share is held, not withdrawn; nothing is read there; Done resumes it.
func TestAHandoffHoldsTheShareWhileTheLoginLeavesTheSite(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	defer f.AnswerAll(vocab.AllowOnce)()
	h := f.handOff()
	f.Browser.Load(7, ssoPage())
	f.waitShown(ssoURL)
	_, err := f.agent.Snapshot(context.Background(), f.tab)
	if codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("a read on the sign-on site: %v, want handed_off", err)
	}
	tabs, err := f.agent.ListTabs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tab := range tabs {
		if tab.ID == f.tab && (tab.URL != "" || tab.Title != "" || tab.Level != vocab.None) {
			t.Fatalf("the agent's tab list shows the sign-on page: %+v", tab)
		}
	}
	list := f.Handoffs()
	if len(list) != 1 || !list[0].Moved() || list[0].Now != ssoOrigin || list[0].Origin != shopOrigin || list[0].Level != vocab.Control {
		t.Fatalf("Handoffs() on the sign-on site = %+v", list)
	}
	f.Browser.Load(7, shop())
	f.waitShown(shopURL)
	if _, err := f.agent.Snapshot(context.Background(), f.tab); err != nil {
		t.Fatalf("a read back on the shop: %v", err)
	}
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("a click back on the shop before Done: %v", err)
	}
	if err := f.FinishHandoff(h.ID, true, ""); err != nil {
		t.Fatalf("Done back on the shop: %v", err)
	}
	if r := f.waitHandoff(h.ID, 0); r.HandoffState != agentdoor.HandoffDone || r.Origin != "" {
		t.Fatalf("wait: %+v", r)
	}
	if f.Share(f.tab) != vocab.Control {
		t.Fatal("the share did not resume")
	}
	if err := f.click(ref); err != nil {
		t.Fatalf("a click after Done: %v", err)
	}
	// Released: leaving the site withdraws the share again.
	f.Browser.Load(7, ssoPage())
	f.waitShown(ssoURL)
	if f.Share(f.tab) != vocab.None {
		t.Fatal("after the hand-off, leaving the site kept the share")
	}
}

func TestDoneOnAnotherSiteNeedsThePersonsConfirmation(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	defer f.AnswerAll(vocab.AllowOnce)()
	h := f.handOff()
	f.Browser.Load(7, ssoPage())
	f.waitShown(ssoURL)
	err := f.FinishHandoff(h.ID, true, "")
	var ce *persondoor.ConfirmOriginError
	if !errors.Is(err, persondoor.ErrConfirmOrigin) || !errors.As(err, &ce) || ce.Now != ssoOrigin || ce.Shared != shopOrigin {
		t.Fatalf("Done on another site: %v, want a confirmation of %s", err, ssoOrigin)
	}
	if err := f.FinishHandoff(h.ID, true, "https://evil.example"); !errors.Is(err, persondoor.ErrConfirmOrigin) {
		t.Fatalf("Done confirming a site not on screen: %v", err)
	}
	if len(f.Handoffs()) != 1 {
		t.Fatal("an unconfirmed Done ended the hand-off")
	}
	if err := f.FinishHandoff(h.ID, true, ssoOrigin); err != nil {
		t.Fatal(err)
	}
	if r := f.waitHandoff(h.ID, 0); r.HandoffState != agentdoor.HandoffDone || r.Origin != ssoOrigin {
		t.Fatalf("wait: %+v", r)
	}
	if g := f.Tabs(); g[0].SharedAt != ssoOrigin || g[0].Level != vocab.Control {
		t.Fatalf("after the confirmation the tab is %+v", g[0])
	}
	snap, err := f.agent.Snapshot(context.Background(), f.tab)
	if err != nil || !strings.Contains(snap.Text, "Sign in") {
		t.Fatalf("a read on the confirmed site: %v", err)
	}
	rows := f.rows(persondoor.AuditFilter{Act: string(vocab.Share)})
	if len(rows) == 0 || !strings.Contains(rows[0].Detail, "confirmed") || rows[0].Origin != ssoOrigin {
		t.Fatalf("the share change is not audited: %+v", rows)
	}
}

func TestStopOffTheSiteWithdrawsTheShare(t *testing.T) {
	f := newFixture(t, time.Second)
	h := f.handOff()
	f.Browser.Load(7, ssoPage())
	f.waitShown(ssoURL)
	if err := f.FinishHandoff(h.ID, false, ""); err != nil {
		t.Fatal(err)
	}
	if r := f.waitHandoff(h.ID, 0); r.HandoffState != agentdoor.HandoffStopped {
		t.Fatalf("wait: %+v", r)
	}
	f.Browser.Load(7, shop())
	f.waitShown(shopURL)
	if f.Share(f.tab) != vocab.None {
		t.Fatal("Stop on another site kept the share")
	}
	// Stop on the site itself leaves the share as it was.
	h = f.handOff()
	if err := f.FinishHandoff(h.ID, false, ""); err != nil {
		t.Fatal(err)
	}
	if f.Share(f.tab) != vocab.Control {
		t.Fatal("Stop on the shared site withdrew the share")
	}
}

func TestAClosedTabEndsItsHandoff(t *testing.T) {
	f := newFixture(t, time.Second)
	h := f.handOff()
	waited := make(chan *agentdoor.WaitResult, 1)
	go func() { waited <- f.waitHandoff(h.ID, 0) }()
	f.Browser.Close(7)
	if r := <-waited; r.HandoffState != agentdoor.HandoffClosed {
		t.Fatalf("wait: %+v", r)
	}
	if len(f.Handoffs()) != 0 {
		t.Fatal("the closed tab's hand-off is still listed")
	}
	if err := f.FinishHandoff(h.ID, true, ""); !errors.Is(err, persondoor.ErrNoSuchHandoff) {
		t.Fatalf("Done after the tab closed: %v", err)
	}
}

// A hand-off stops an act already firing on its tab, as a pause does: the
// tab is the person's from that moment, and the act says so.
func TestAHandoffStopsAnActFiringOnItsTab(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	var after error
	f.Exec.WhileFiring = func(ctx context.Context) error {
		if _, err := f.agent.Handoff(context.Background(), agentdoor.HandoffRequest{Tab: f.tab, Reason: "solve the captcha"}); err != nil {
			return err
		}
		if ctx.Err() == nil {
			after = errors.New("the hand-off did not stop the act firing")
			return after
		}
		return ctx.Err()
	}
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); codeOf(err) != vocab.CodeHandedOff {
		t.Fatalf("an act on a tab handed off mid-way: %v, want %s", err, vocab.CodeHandedOff)
	}
	if after != nil {
		t.Fatal(after)
	}
	rows := f.rows(persondoor.AuditFilter{Act: "click"})
	if len(rows) != 2 || rows[0].Code != vocab.CodeHandedOff || !strings.Contains(rows[0].Detail, "let go") {
		t.Fatalf("want the fire row and a handed-off outcome, got %+v", rows)
	}
}
