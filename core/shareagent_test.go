package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// A tab shared with one agent alone is, to every other agent, a tab not
// shared: not read, not acted on, not named as the tab meant, listed without
// its title, address or share, and refused in the same words as an unshared
// tab, so that nothing tells it the tab is someone else's.
func TestTabSharedWithOneAgentIsNotSharedWithAnother(t *testing.T) {
	ctx := context.Background()
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 2 * time.Second})
	e.Browser.Open(7, shop())
	tab := e.WaitTab(t, shopURL)
	e.Browser.Open(8, coretest.Page{URL: "https://mail.example.com/inbox", Title: "Inbox — Mail", Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Archive", 10, 10))}})
	mail := e.WaitTab(t, "https://mail.example.com/inbox")
	alice := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Alice", PID: 4121, Exe: "/usr/bin/claude"})
	bob := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Bob", PID: 4122, Exe: "/usr/bin/codex"})
	aliceKey, bobKey := persondoor.AgentKey(alice.Agent()), persondoor.AgentKey(bob.Agent())
	if err := e.PersonDoor().ShareWith(tab, vocab.Control, aliceKey); err != nil {
		t.Fatal(err)
	}
	if err := e.PersonDoor().ShareWith(mail, vocab.ReadOnly, bobKey); err != nil {
		t.Fatal(err)
	}
	defer e.AnswerAll(vocab.AllowOnce)()

	// Each reads and acts on its own tab.
	snap, err := alice.Snapshot(ctx, tab)
	if err != nil || !strings.Contains(snap.Text, "Place order") {
		t.Fatalf("Alice's own tab: %v\n%v", err, snap)
	}
	if _, err := bob.Snapshot(ctx, mail); err != nil {
		t.Fatalf("Bob's own tab: %v", err)
	}
	if cur, err := alice.CurrentTab(ctx); err != nil || cur != tab {
		t.Fatalf("Alice's tab in front = %q, %v; want %s, the only one she may read", cur, err, tab)
	}

	// Neither sees the other's.
	_, unshared := alice.Snapshot(ctx, mail)
	_, err = bob.Snapshot(ctx, tab)
	if codeOf(err) != vocab.CodeShareRequired || err.Error() != unshared.Error() {
		t.Fatalf("Bob reading Alice's tab: %v; want the words of an unshared tab: %v", err, unshared)
	}
	ref := strings.TrimSuffix(strings.Split(strings.Split(snap.Text, "Place order")[1], "[ref=")[1], "]")
	ref = ref[:strings.IndexByte(ref, ']')]
	if _, err := bob.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}}); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("Bob clicking on Alice's tab: %v, want %s", err, vocab.CodeShareRequired)
	}
	if _, err := bob.Screenshot(ctx, tab); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("Bob's picture of Alice's tab: %v, want %s", err, vocab.CodeShareRequired)
	}
	if cur, err := bob.CurrentTab(ctx); err != nil || cur != mail {
		t.Fatalf("Bob's tab in front = %q, %v; want %s", cur, err, mail)
	}
	tabs, err := bob.ListTabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range tabs {
		if ti.ID == tab && (ti.Title != "" || ti.URL != "" || ti.Origin != "" || ti.SharedAt != "" || ti.Share != vocab.None.String()) {
			t.Fatalf("Bob's list shows Alice's tab as %+v", ti)
		}
		if ti.ID == mail && ti.Title != "Inbox — Mail" {
			t.Fatalf("Bob's list hides his own tab: %+v", ti)
		}
	}
	if fired := e.Exec.Fired(); len(fired) != 0 {
		t.Fatalf("fired %v", fired)
	}
	// Alice hands her tab to the person: Bob hears of it as of any tab
	// not shared, and his refusal's row keeps no title.
	if _, err := alice.Handoff(ctx, agentdoor.HandoffRequest{Tab: tab, Reason: "Sign in, please"}); err != nil {
		t.Fatalf("Alice's hand-off: %v", err)
	}
	if _, err := bob.Handoff(ctx, agentdoor.HandoffRequest{Tab: tab, Reason: "Me too"}); codeOf(err) != vocab.CodeShareRequired || err.Error() != unshared.Error() {
		t.Fatalf("Bob's hand-off of Alice's handed-off tab: %v; want the words of an unshared tab: %v", err, unshared)
	}
	if _, err := bob.Snapshot(ctx, tab); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("Bob reading Alice's handed-off tab: %v", err)
	}
	for _, r := range rowsOf(t, e, persondoor.AuditFilter{Tab: tab, Outcome: vocab.OutcomeRefused}) {
		if r.TabTitle != "" {
			t.Fatalf("a refusal of Bob's keeps the title of Alice's tab: %+v", r)
		}
	}
	for _, h := range e.PersonDoor().Handoffs() {
		if err := e.PersonDoor().FinishHandoff(h.ID, true, ""); err != nil {
			t.Fatal(err)
		}
	}

	// The person sees whom each tab is shared with, and the log says so.
	for _, ti := range e.Tabs() {
		if want := map[string]string{tab: aliceKey, mail: bobKey}[ti.ID]; ti.Agent != want {
			t.Fatalf("the person's list has tab %s shared with %q, want %q", ti.ID, ti.Agent, want)
		}
	}
	rows := rowsOf(t, e, persondoor.AuditFilter{Act: string(vocab.Share)})
	var said bool
	for _, r := range rows {
		said = said || (r.Tab == tab && strings.Contains(r.Detail, "shared at "+vocab.Control.String()+" with ") && strings.Contains(r.Detail, "Alice") && strings.Contains(r.Detail, " alone"))
	}
	if !said {
		t.Fatalf("no share row names Alice alone: %+v", rows)
	}

	// Shared with every allowed agent again, Bob reads it; Alice's leave
	// from before does not follow the tab to him.
	if err := e.PersonDoor().SetShare(tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Snapshot(ctx, tab); err != nil {
		t.Fatalf("Bob reading a tab shared with every agent: %v", err)
	}
	if err := e.PersonDoor().ShareWith(tab, vocab.Control, "Nobody · /bin/false"); err == nil {
		t.Fatal("a tab was shared with an agent that never connected")
	}
	if err := e.PersonDoor().ShareWith(vocab.DesktopKey, vocab.Control, aliceKey); err == nil {
		t.Fatal("the desktop was shared with one agent")
	}
}

func rowsOf(t *testing.T, e *coretest.Engine, f persondoor.AuditFilter) []persondoor.AuditRow {
	t.Helper()
	rows, err := core.ReadAudit(context.Background(), e.Log, f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
