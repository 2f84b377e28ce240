package core_test

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

const shopURL = "https://shop.example.com/cart"

func shop() coretest.Page {
	return coretest.Page{URL: shopURL, Title: "Cart — Shop", Frames: []protocol.FrameReport{coretest.Frame(
		coretest.Button(1, "Place order", 100, 200),
		coretest.Field(2, "Search", false, 100, 100),
		coretest.Field(3, "Password", true, 100, 300),
		coretest.Button(4, "Next", 100, 400), // commits nothing: "allow on this tab" may cover it
	)}}
}

type fixture struct {
	*coretest.Engine
	t     *testing.T
	tab   string
	agent *core.Session
}

func newFixture(t *testing.T, timeout time.Duration) *fixture {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: timeout})
	e.Browser.Open(7, shop())
	tab := e.WaitTab(t, shopURL)
	return &fixture{Engine: e, t: t, tab: tab, agent: e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})}
}

func (f *fixture) snapRef(name string) (string, string) {
	f.t.Helper()
	s, err := f.agent.Snapshot(context.Background(), f.tab)
	if err != nil {
		f.t.Fatal(err)
	}
	m := regexp.MustCompile(`"` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)
	if m == nil {
		f.t.Fatalf("no %q in\n%s", name, s.Text)
	}
	return m[1], s.ID
}

func (f *fixture) click(ref string) error {
	_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: "click"}})
	return err
}

func codeOf(err error) string {
	var ce *vocab.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

func (f *fixture) rows(filter persondoor.AuditFilter) []persondoor.AuditRow {
	rows, err := core.ReadAudit(context.Background(), f.Log, filter)
	if err != nil {
		f.t.Fatal(err)
	}
	return rows
}

func TestUnsharedTabIsNotReadAndTheRefusalIsLogged(t *testing.T) {
	f := newFixture(t, time.Second)
	_, err := f.agent.Snapshot(context.Background(), f.tab)
	if codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("got %v", err)
	}
	for _, c := range f.Browser.Calls() {
		if c == protocol.MethodSnapshot {
			t.Fatal("an unshared tab was asked for its tree")
		}
	}
	rows := f.rows(persondoor.AuditFilter{Outcome: vocab.OutcomeRefused})
	if len(rows) != 1 || rows[0].Code != vocab.CodeShareRequired || rows[0].TabTitle != "" {
		t.Fatalf("want one refusal row without the tab's title, got %+v", rows)
	}
}

func TestReadOnlyTabRefusesActs(t *testing.T) {
	f := newFixture(t, time.Second)
	f.SetShare(f.tab, vocab.ReadOnly)
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); codeOf(err) != vocab.CodeControlRequired {
		t.Fatalf("got %v", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("fired on a read-only tab")
	}
}

func TestApprovedClickIsCommittedBeforeItFires(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	db, err := sql.Open("sqlite", "file:"+f.LogPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f.Exec.BeforeFire = func(tk audit.Ticket) error {
		var phase string
		return db.QueryRow(`SELECT phase FROM audit_rows WHERE seq = ?`, tk.Seq()).Scan(&phase)
	}
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	fired := f.Exec.Fired()
	if len(fired) != 1 {
		t.Fatalf("fired %d acts", len(fired))
	}
	// The button's centre: viewport origin (0, 87) + (150, 215).
	if p := fired[0].Plan; p.X != 150 || p.Y != 302 || p.Scale != 1 {
		t.Fatalf("plan %+v, want (150, 302) at scale 1", p)
	}
	rows := f.rows(persondoor.AuditFilter{Act: "click"})
	if len(rows) != 2 || rows[0].Phase != audit.PhaseOutcome || rows[0].Outcome != vocab.OutcomeDone || rows[1].Phase != audit.PhaseFire {
		t.Fatalf("want fire then done, got %+v", rows)
	}
	if rows[1].AgentName != "Test agent" || rows[1].AgentPID != 4121 || rows[1].TargetName != "Place order" {
		t.Fatalf("the row does not say who and what: %+v", rows[1])
	}
}

func TestDeniedAndTimedOutActsFireNothing(t *testing.T) {
	f := newFixture(t, 300*time.Millisecond)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	stop := f.AnswerAll(vocab.Deny)
	if err := f.click(ref); codeOf(err) != vocab.CodeDenied {
		t.Fatalf("deny: got %v", err)
	}
	stop()
	if err := f.click(ref); codeOf(err) != vocab.CodeTimeout {
		t.Fatalf("silence: got %v", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("a denied act fired")
	}
	if len(f.rows(persondoor.AuditFilter{Outcome: vocab.OutcomeDenied})) != 1 || len(f.rows(persondoor.AuditFilter{Outcome: vocab.OutcomeTimeout})) != 1 {
		t.Fatal("denial and timeout were not both logged")
	}
}

func TestPauseRefusesActsEvenAfterApproval(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	f.Pause(true)
	if err := f.click(ref); codeOf(err) != vocab.CodePaused {
		t.Fatalf("got %v", err)
	}
	f.Pause(false)
	// Paused while the approval is pending: the act is refused after the yes.
	events, stop := f.Subscribe(16)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				f.Pause(true)
				f.Engine.Engine.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	if err := f.click(ref); codeOf(err) != vocab.CodePaused {
		t.Fatalf("paused during approval: got %v", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("fired while paused")
	}
}

func TestNavigationMakesRefsStaleAndAnotherOriginRevokesTheShare(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	ref, id := f.snapRef("Place order")
	page := shop()
	page.URL = "https://shop.example.com/thanks"
	f.Browser.Load(7, page)
	testenv.WaitFor(t, "the tab to report /thanks", func() bool { return strings.HasSuffix(f.tabURL(), "/thanks") })
	_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Snapshot: id, Act: vocab.Act{Kind: "click"}})
	if codeOf(err) != vocab.CodeStaleRef {
		t.Fatalf("same origin, new document: got %v", err)
	}
	if f.Share(f.tab) != vocab.Control {
		t.Fatal("a same-origin navigation withdrew the grant")
	}
	page.URL = "https://evil.example.net/"
	f.Browser.Load(7, page)
	testenv.WaitFor(t, "the grant to be withdrawn", func() bool { return f.Share(f.tab) == vocab.None })
	if _, err := f.agent.Snapshot(context.Background(), f.tab); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("after leaving the origin: got %v", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("fired")
	}
}

func (f *fixture) tabURL() string {
	for _, tab := range f.Tabs() {
		if tab.ID == f.tab {
			return tab.URL
		}
	}
	return ""
}

func TestAuditFailureFiresNothing(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	ref, _ := f.snapRef("Place order")
	f.Log.Close()
	err := f.click(ref)
	if codeOf(err) != vocab.CodeAuditFailed {
		t.Fatalf("got %v", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("fired without an audit row")
	}
}

func TestDenyListedAppUnderThePointFiresNothing(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	f.Exec.SetAppAt(executor.App{Name: "KeePassXC", Class: "keepassxc.KeePassXC"})
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); codeOf(err) != vocab.CodeDenyListed {
		t.Fatalf("got %v", err)
	}
	rows := f.rows(persondoor.AuditFilter{Act: "click"})
	if len(rows) != 2 || rows[0].Phase != audit.PhaseOutcome || rows[0].Code != vocab.CodeDenyListed {
		t.Fatalf("the refusal is not the act's outcome: %+v", rows)
	}
}

func TestTypingIntoAPasswordFieldIsSecret(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	var asked []string
	events, stop := f.Subscribe(16)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				asked = append(asked, ev.Request.Sentence())
				f.Engine.Engine.Answer(ev.Request.ID, vocab.AllowTab)
			}
		}
	}()
	ref, _ := f.snapRef("Password")
	for i := 0; i < 2; i++ {
		if _, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: "type", Text: "hunter2"}}); err != nil {
			t.Fatal(err)
		}
	}
	// "Allow on this tab" never covers secret fields: asked both times.
	if len(asked) != 2 || asked[0] != "Type 7 characters into “Password”" {
		t.Fatalf("asked %q", asked)
	}
	for _, fired := range f.Exec.Fired() {
		if !fired.Act.Secret {
			t.Fatal("the act reached the executor without its secret flag")
		}
	}
	for _, r := range f.rows(persondoor.AuditFilter{}) {
		if strings.Contains(string(r.Act), "hunter2") || strings.Contains(r.Detail, "hunter2") {
			t.Fatalf("the secret is in row %d", r.Seq)
		}
	}
}

func TestBackgroundTabIsNotClicked(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	f.Browser.SetActive(7, false)
	testenv.WaitFor(t, "the tab to be reported in the background", func() bool {
		for _, tab := range f.Tabs() {
			if tab.ID == f.tab {
				return !tab.Active
			}
		}
		return false
	})
	if err := f.click(ref); codeOf(err) != vocab.CodeNotVisible {
		t.Fatalf("got %v", err)
	}
}

func TestExtensionDisconnectMidRequestFailsFast(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.ReadOnly)
	f.Browser.Hold(protocol.MethodSnapshot)
	snapshots := func() (n int) {
		for _, m := range f.Browser.Calls() {
			if m == protocol.MethodSnapshot {
				n++
			}
		}
		return n
	}
	before := snapshots()
	errc := make(chan error, 1)
	go func() {
		_, err := f.agent.Snapshot(context.Background(), f.tab)
		errc <- err
	}()
	testenv.WaitFor(t, "the snapshot to reach the extension", func() bool { return snapshots() > before })
	f.Browser.Disconnect()
	select {
	case err := <-errc:
		if codeOf(err) != vocab.CodeDisconnected {
			t.Fatalf("got %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the snapshot hung after the extension left")
	}
}

func TestAnsweringAnUnknownApprovalFails(t *testing.T) {
	f := newFixture(t, time.Second)
	if err := f.Engine.Engine.Answer("nope", vocab.AllowOnce); !errors.Is(err, persondoor.ErrNoSuchApproval) {
		t.Fatalf("got %v", err)
	}
}

func TestStaleRefAgainstLatestSnapshot(t *testing.T) {
	f := newFixture(t, time.Second)
	f.SetShare(f.tab, vocab.Control)
	if err := f.click("e99"); codeOf(err) != vocab.CodeStaleRef {
		t.Fatalf("a ref with no snapshot: got %v", err)
	}
	f.snapRef("Place order")
	if err := f.click("e99"); codeOf(err) != vocab.CodeStaleRef {
		t.Fatalf("an unknown ref: got %v", err)
	}
}

func TestKeysNeedTheTabsWindowFocused(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	f.Browser.SetFocused(7, false)
	testenv.WaitFor(t, "the tab's window to be reported unfocused", func() bool {
		for _, tab := range f.Tabs() {
			if tab.ID == f.tab {
				return !tab.Focused
			}
		}
		return false
	})
	_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Act: vocab.Act{Kind: "key", Keys: "Enter"}})
	if codeOf(err) != vocab.CodeNotVisible {
		t.Fatalf("got %v", err)
	}
	if len(f.Exec.Fired()) != 0 {
		t.Fatal("keys fired into an unfocused window")
	}
}

// Opening a tab needs control of the tab it opens beside and an http(s)
// address; each refusal is logged and nothing is opened.
func TestOpeningATabNeedsControlOfTheTabBesideIt(t *testing.T) {
	f := newFixture(t, time.Second)
	f.SetShare(f.tab, vocab.ReadOnly)
	if _, err := f.agent.OpenTab(context.Background(), f.tab, "https://shop.example.com/more"); codeOf(err) != vocab.CodeControlRequired {
		t.Fatalf("with the tab read-only: %v", err)
	}
	f.SetShare(f.tab, vocab.Control)
	if _, err := f.agent.OpenTab(context.Background(), f.tab, "file:///etc/passwd"); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("a file address: %v", err)
	}
	for _, c := range f.Browser.Calls() {
		if c == protocol.MethodNewTab {
			t.Fatal("a tab was opened")
		}
	}
	if rows := f.rows(persondoor.AuditFilter{Act: string(vocab.NewTab)}); len(rows) != 2 || rows[0].Outcome != vocab.OutcomeRefused {
		t.Errorf("rows %+v, want two refusals", rows)
	}
}
