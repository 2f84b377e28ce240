package core_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

const policyFile = "/etc/reins/policy.json"

// managed is the state of a policy read from policyFile.
func managed(t *testing.T, body string) policy.State {
	t.Helper()
	p, err := policy.Parse([]byte(body))
	if err != nil {
		t.Fatalf("Parse(%s): %v", body, err)
	}
	sum := sha256.Sum256([]byte(body))
	return policy.State{Source: policyFile, Policy: p, Hash: "sha256:" + hex.EncodeToString(sum[:])}
}

// broken is the state of a policy file that cannot be honoured.
func broken(t *testing.T) policy.State {
	_, err := policy.Parse([]byte(`{"sites": {"never": [}`))
	return policy.State{Source: policyFile, Err: err, Hash: "sha256:" + strings.Repeat("cd", 32)}
}

const (
	bankURL     = "https://www.bank.example/accounts"
	mailURL     = "https://mail.example.com/inbox"
	sitesPolicy = `{"sites": {"never": ["*.bank.example"], "maxLevel": {"mail.example.com": "read"}}, "desktop": "none"}`
)

func page(url, title string) coretest.Page {
	return coretest.Page{URL: url, Title: title, Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Go", 10, 10))}}
}

// policyRig is an engine under a policy with three tabs: a bank's, a
// webmail's and a shop's.
type policyRig struct {
	*coretest.Engine
	t                *testing.T
	bank, mail, shop string
}

func newPolicyRig(t *testing.T, st policy.State) *policyRig {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 2 * time.Second, Policy: st})
	e.Browser.Open(7, page(bankURL, "Accounts — Bank"))
	e.Browser.Open(8, page(mailURL, "Inbox — Mail"))
	e.Browser.Open(9, shop())
	return &policyRig{Engine: e, t: t, bank: e.WaitTab(t, bankURL), mail: e.WaitTab(t, mailURL), shop: e.WaitTab(t, shopURL)}
}

func (r *policyRig) rows(f persondoor.AuditFilter) []persondoor.AuditRow {
	rows, err := core.ReadAudit(context.Background(), r.Log, f)
	if err != nil {
		r.t.Fatal(err)
	}
	return rows
}

func wantPolicy(t *testing.T, what string, err error, says ...string) {
	t.Helper()
	if codeOf(err) != vocab.CodePolicy {
		t.Fatalf("%s: %v, want %s", what, err, vocab.CodePolicy)
	}
	for _, s := range append([]string{policyFile}, says...) {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("%s: %q does not say %q", what, err, s)
		}
	}
}

// A share the policy forbids is refused, the policy and its rule named,
// and the refusal written; what it caps is shared no further than the cap;
// stopping a share is never refused.
func TestPolicyRefusesAShareItForbids(t *testing.T) {
	r := newPolicyRig(t, managed(t, sitesPolicy))
	door := r.PersonDoor()
	wantPolicy(t, "sharing the bank", door.SetShare(r.bank, vocab.ReadOnly), "sites.never lists *.bank.example")
	wantPolicy(t, "the mail at control", door.SetShare(r.mail, vocab.Control), "Read at most", "sites.maxLevel caps mail.example.com at read")
	wantPolicy(t, "the desktop", door.SetShare(vocab.DesktopKey, vocab.ReadOnly), "desktop is none")
	if err := door.SetShare(r.mail, vocab.ReadOnly); err != nil {
		t.Fatalf("the mail at read: %v", err)
	}
	if err := door.SetShare(r.shop, vocab.Control); err != nil {
		t.Fatalf("the shop, which the policy leaves alone: %v", err)
	}
	for _, tab := range []string{r.bank, vocab.DesktopKey} {
		if err := door.SetShare(tab, vocab.None); err != nil {
			t.Fatalf("not sharing %s: %v", tab, err)
		}
	}
	if door.Share(r.bank) != vocab.None || door.Share(r.mail) != vocab.ReadOnly || door.Share(vocab.DesktopKey) != vocab.None {
		t.Fatalf("shares: bank %v, mail %v, desktop %v", door.Share(r.bank), door.Share(r.mail), door.Share(vocab.DesktopKey))
	}
	refused := r.rows(persondoor.AuditFilter{Outcome: vocab.OutcomeRefused})
	if len(refused) != 3 {
		t.Fatalf("refusal rows: %d, want 3", len(refused))
	}
	for _, row := range refused {
		if row.Code != vocab.CodePolicy || !strings.Contains(row.Detail, policyFile) {
			t.Errorf("refusal row: %s", persondoor.FormatAuditRow(row))
		}
	}
}

// An agent's request on a site the policy forbids, or above its cap, is
// refused naming the policy, whatever the person's shares say; nothing
// is read out or fired.
func TestPolicyRefusesAnAgentsRequestNamingIt(t *testing.T) {
	r := newPolicyRig(t, managed(t, sitesPolicy))
	ctx := context.Background()
	agent := coretest.Admitted(t, r.AgentDoor(), r.PersonDoor(), vocab.Agent{Name: "agent", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.PersonDoor().SetShare(r.mail, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	defer r.AnswerAll(vocab.AllowOnce)()
	_, err := agent.Snapshot(ctx, r.bank)
	wantPolicy(t, "reading the bank", err, "agents may not use this tab's site")
	if strings.Contains(err.Error(), "bank") {
		t.Fatalf("the refusal names the site of a tab the agent does not have: %v", err)
	}
	snap, err := agent.Snapshot(ctx, r.mail)
	if err != nil {
		t.Fatalf("reading the mail: %v", err)
	}
	ref := refIn(t, snap.Text, "Go")
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: r.mail, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	wantPolicy(t, "clicking in the mail", err, "may read this tab's site but not act in it")
	if n := len(r.Exec.Fired()); n != 0 {
		t.Fatalf("%d acts fired", n)
	}
	if p := r.Pending(); len(p) != 0 {
		t.Fatalf("the person was asked: %+v", p)
	}
}

// A policy that comes to forbid a tab while an agent's act fires there
// stops the act at its next event, ends the share and says so; the act's
// outcome names the policy.
func TestPolicyChangeMidActStopsTheAct(t *testing.T) {
	r := newPolicyRig(t, policy.State{})
	ctx := context.Background()
	agent := coretest.Admitted(t, r.AgentDoor(), r.PersonDoor(), vocab.Agent{Name: "agent", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.PersonDoor().SetShare(r.shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	defer r.AnswerAll(vocab.AllowOnce)()
	firing := make(chan struct{})
	r.Exec.WhileFiring = func(ctx context.Context) error {
		close(firing)
		<-ctx.Done()
		return ctx.Err()
	}
	snap, err := agent.Snapshot(ctx, r.shop)
	if err != nil {
		t.Fatal(err)
	}
	ref := refIn(t, snap.Text, "Next")
	done := make(chan error, 1)
	go func() {
		_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: r.shop, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
		done <- err
	}()
	<-firing
	r.ApplyPolicy(managed(t, `{"sites": {"never": ["shop.example.com"]}}`))
	err = <-done
	wantPolicy(t, "the act under way", err, "changed while this act was under way")
	if r.Share(r.shop) != vocab.None {
		t.Fatalf("the shop is still shared at %v", r.Share(r.shop))
	}
	ended := r.rows(persondoor.AuditFilter{Act: string(vocab.Share)})
	if len(ended) == 0 || ended[0].Code != vocab.CodePolicy || !strings.Contains(ended[0].Detail, "Reins ended the share") {
		t.Fatalf("no row ends the share: %+v", ended)
	}
	if n := len(r.Exec.Fired()); n != 0 {
		t.Fatalf("%d acts recorded as done", n)
	}
	// And the next act is refused before anyone is asked.
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: r.shop, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	wantPolicy(t, "the next act", err)
}

// A policy change withdraws "allow on this tab" and plans as it says,
// and lowers the cap of a share without ending it.
func TestPolicyChangeEndsRememberedAnswersAndPlans(t *testing.T) {
	r := newPolicyRig(t, policy.State{})
	ctx := context.Background()
	agent := coretest.Admitted(t, r.AgentDoor(), r.PersonDoor(), vocab.Agent{Name: "agent", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.PersonDoor().SetShare(r.shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	stop := r.AnswerAll(vocab.AllowTab)
	snap, err := agent.Snapshot(ctx, r.shop)
	if err != nil {
		t.Fatal(err)
	}
	next := refIn(t, snap.Text, "Next")
	click := agentdoor.ActRequest{Tab: r.shop, Ref: next, Act: vocab.Act{Kind: vocab.Click}}
	if _, err := agent.Act(ctx, click); err != nil {
		t.Fatal(err)
	}
	stop()
	// Remembered: the second click is not asked.
	if _, err := agent.Act(ctx, click); err != nil {
		t.Fatalf("the remembered click: %v", err)
	}
	r.ApplyPolicy(managed(t, `{"allowOnTab": false, "plans": false, "sites": {"maxLevel": {"shop.example.com": "read"}}}`))
	if r.Share(r.shop) != vocab.ReadOnly {
		t.Fatalf("the shop is shared at %v, want read", r.Share(r.shop))
	}
	if err := r.PersonDoor().SetShare(r.shop, vocab.Control); codeOf(err) != vocab.CodePolicy {
		t.Fatalf("control again: %v", err)
	}
	r.ApplyPolicy(managed(t, `{"allowOnTab": false, "plans": false}`))
	if err := r.PersonDoor().SetShare(r.shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	// Not remembered any more: asked, and silence denies.
	if _, err := agent.Act(ctx, click); codeOf(err) != vocab.CodeTimeout {
		t.Fatalf("a click after allow on this tab was withdrawn: %v, want asked and timed out", err)
	}
	_, err = agent.RunPlan(ctx, agentdoor.PlanRequest{Tab: r.shop, Summary: "two clicks", Steps: []agentdoor.PlanStepRequest{
		{Ref: next, Act: vocab.Act{Kind: vocab.Click}}, {Ref: next, Act: vocab.Act{Kind: vocab.Click}},
	}})
	wantPolicy(t, "a plan", err, "plans are not offered")
	if p := r.Pending(); len(p) != 0 {
		t.Fatalf("the person was asked: %+v", p)
	}
}

// With the agents pinned, a program the policy does not list is turned
// away before the person is asked, naming the policy; one it lists is
// asked about as ever. A change that unlists an allowed agent withdraws it.
func TestPinnedAgentsRefuseAnUnlistedProgramUnasked(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	r := newPolicyRig(t, managed(t, `{"agents": [{"program": "/usr/local/bin/codex"}]}`))
	ctx := context.Background()
	events, cancel := r.Subscribe(64)
	defer cancel()
	s := r.AgentDoor().Admit(vocab.Agent{Name: "stranger", PID: os.Getpid(), Exe: self})
	defer s.Close()
	_, err = s.ListTabs(ctx)
	wantPolicy(t, "an unlisted agent", err, "agents does not list "+self, "the person was not asked")
	for len(events) > 0 {
		if ev := <-events; ev.Kind == persondoor.EventApproval {
			t.Fatalf("the person was asked: %+v", ev.Request)
		}
	}
	if p := r.Pending(); len(p) != 0 {
		t.Fatalf("the person was asked: %+v", p)
	}
	rows := r.rows(persondoor.AuditFilter{Act: string(vocab.Connect)})
	if len(rows) != 1 || rows[0].Outcome != vocab.OutcomeRefused || rows[0].Code != vocab.CodePolicy {
		t.Fatalf("connect rows: %+v", rows)
	}

	// Listed: the person decides, as without a policy.
	r.ApplyPolicy(managed(t, `{"agents": [{"program": "`+self+`"}]}`))
	listed := coretest.Admitted(t, r.AgentDoor(), r.PersonDoor(), vocab.Agent{Name: "listed", PID: os.Getpid(), Exe: self})
	if _, err := listed.ListTabs(ctx); err != nil {
		t.Fatalf("a listed, allowed agent: %v", err)
	}
	// Unlisted mid-run: its calls are refused from then on.
	r.ApplyPolicy(managed(t, `{"agents": []}`))
	_, err = listed.ListTabs(ctx)
	wantPolicy(t, "an agent unlisted mid-run", err, "agents lists no program")
	for _, a := range r.Agents() {
		if a.Allowed {
			t.Fatalf("%s is still allowed", a.Name)
		}
	}
}

// A policy that cannot be honoured refuses every share, agent and act,
// each with the sentence naming the file and the fix; the shares there
// were end.
func TestBrokenPolicyRefusesEveryShareAndAct(t *testing.T) {
	r := newPolicyRig(t, policy.State{})
	ctx := context.Background()
	agent := coretest.Admitted(t, r.AgentDoor(), r.PersonDoor(), vocab.Agent{Name: "agent", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.PersonDoor().SetShare(r.shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	if err := r.PersonDoor().SetShare(vocab.DesktopKey, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	r.ApplyPolicy(broken(t))
	says := []string{"cannot be honoured", "Reins shares nothing and lets no act fire", "correct the file"}
	if r.Share(r.shop) != vocab.None || r.Share(vocab.DesktopKey) != vocab.None {
		t.Fatalf("shares outlived the broken policy: shop %v, desktop %v", r.Share(r.shop), r.Share(vocab.DesktopKey))
	}
	wantPolicy(t, "a share", r.PersonDoor().SetShare(r.shop, vocab.ReadOnly), says...)
	wantPolicy(t, "the desktop", r.PersonDoor().SetShare(vocab.DesktopKey, vocab.ReadOnly), says...)
	_, err := agent.Snapshot(ctx, r.shop)
	wantPolicy(t, "a read", err, says...)
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: r.shop, Ref: "e1", Act: vocab.Act{Kind: vocab.Click}})
	wantPolicy(t, "an act", err, says...)
	s := r.AgentDoor().Admit(vocab.Agent{Name: "newcomer", PID: os.Getpid(), Exe: os.Args[0]})
	defer s.Close()
	_, err = s.ListTabs(ctx)
	wantPolicy(t, "a new agent", err, says...)
	// Stopping a share, pausing and resuming stay the person's.
	if err := r.PersonDoor().SetShare(r.shop, vocab.None); err != nil {
		t.Fatal(err)
	}
	r.Pause(true)
	r.Pause(false)
	// Mended: shares work again.
	r.ApplyPolicy(managed(t, `{}`))
	if err := r.PersonDoor().SetShare(r.shop, vocab.ReadOnly); err != nil {
		t.Fatalf("after the policy was mended: %v", err)
	}
}

// The policy bounds the time to answer and adds to the deny list; the
// person's settings cannot loosen either.
func TestPolicyBoundsTheTimeToAnswerAndTheDenyList(t *testing.T) {
	r := newPolicyRig(t, managed(t, `{"approvalTimeoutSeconds": {"min": 15, "max": 60}, "denyApplications": ["Signal"]}`))
	if got := r.Settings().ApprovalTimeout; got != 15*time.Second {
		t.Fatalf("the time to answer is %v, want the 2 s chosen raised to the policy's 15 s", got)
	}
	if err := r.SetApprovalTimeout(5 * time.Minute); !errors.Is(err, settings.ErrInvalid) || !strings.Contains(err.Error(), policyFile) || !strings.Contains(err.Error(), "from 15 seconds to 1 minute") {
		t.Fatalf("5 minutes to answer: %v", err)
	}
	if err := r.SetApprovalTimeout(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveDenied("signal"); err == nil || !strings.Contains(err.Error(), policyFile) {
		t.Fatalf("taking the policy's application off the list: %v", err)
	}
	if _, ok := r.Exec.DenyList.Match(executor.App{Name: "Signal"}); !ok {
		t.Fatal("the executor's deny list does not hold the policy's application")
	}
	r.ApplyPolicy(managed(t, `{"approvalTimeoutSeconds": {"max": 20}}`))
	if got := r.Settings().ApprovalTimeout; got != 20*time.Second {
		t.Fatalf("the time to answer is %v after the bound moved, want 20 s", got)
	}
	if _, ok := r.Exec.DenyList.Match(executor.App{Name: "Signal"}); ok {
		t.Fatal("the policy no longer lists Signal, and it is still denied")
	}
}

// Where audit rows go is fixed while the log runs: a policy that moves
// them refuses acts until Reins starts again.
func TestPolicyMovingAuditRowsRefusesActsUntilRestart(t *testing.T) {
	r := newPolicyRig(t, policy.State{})
	ctx := context.Background()
	agent := coretest.Admitted(t, r.AgentDoor(), r.PersonDoor(), vocab.Agent{Name: "agent", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.PersonDoor().SetShare(r.shop, vocab.Control); err != nil {
		t.Fatal(err)
	}
	defer r.AnswerAll(vocab.AllowOnce)()
	snap, err := agent.Snapshot(ctx, r.shop)
	if err != nil {
		t.Fatal(err)
	}
	next := refIn(t, snap.Text, "Next")
	r.ApplyPolicy(managed(t, `{"audit": {"syslog": {"address": "logs.example.org:6514", "tls": {}, "required": true}}}`))
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: r.shop, Ref: next, Act: vocab.Act{Kind: vocab.Click}})
	wantPolicy(t, "an act", err, "where audit rows go", "quit and open Reins")
	if _, err := agent.Snapshot(ctx, r.shop); err != nil {
		t.Fatalf("reads go on: %v", err)
	}
}

// The policy in force and the binary are written to the audit log at
// each change and at each heartbeat.
func TestPolicyRowsSayWhatIsInForce(t *testing.T) {
	r := newPolicyRig(t, policy.State{})
	st := managed(t, sitesPolicy)
	r.ApplyPolicy(st)
	r.ApplyPolicy(st) // the same: no row
	r.RecordPolicy("heartbeat")
	r.ApplyPolicy(broken(t))
	rows := r.rows(persondoor.AuditFilter{Act: string(vocab.Policy)})
	if len(rows) != 3 {
		t.Fatalf("%d policy rows, want 3", len(rows))
	}
	for i, want := range []string{"the policy changed: policy sha256:cdcd", "heartbeat: policy " + st.Hash + " from " + policyFile, "the policy changed: policy " + st.Hash} {
		row := rows[i]
		if !strings.Contains(row.Detail, want) || !strings.Contains(row.Detail, "binary ") || row.AgentName != "Reins" {
			t.Errorf("row %d: %s; want it to say %q", i, persondoor.FormatAuditRow(row), want)
		}
	}
	if rows[0].Code != vocab.CodePolicy || rows[0].Outcome != vocab.OutcomeRefused {
		t.Errorf("the broken policy's row: %s", persondoor.FormatAuditRow(rows[0]))
	}
}

func TestManagedAnchorAndRetentionWinOverTheSettings(t *testing.T) {
	person := audit.AnchorOptions{SystemLog: "off", Remote: "mine.example:514", RemoteRequired: true,
		OTLP: &audit.OTLPOptions{URL: "https://mine.example/v1/logs"}}
	p := managed(t, `{"audit": {"syslog": {"address": "logs.example.org:6514", "tls": {"ca": "/etc/reins/ca.pem"}}, "requireAnchor": true},
		"retention": {"days": 400}}`).Policy
	got := core.ManagedAnchor(person, p)
	if got.Remote != "logs.example.org:6514" || got.RemoteRequired || got.RemoteTLS == nil || got.RemoteTLS.CAFile != "/etc/reins/ca.pem" || !got.RequireAnchor {
		t.Fatalf("anchor %+v", got)
	}
	if got.OTLP == nil || got.OTLP.URL != "https://mine.example/v1/logs" || got.SystemLog != "off" {
		t.Fatalf("what the policy does not name changed: %+v", got)
	}
	if same := core.ManagedAnchor(person, nil); same.Remote != person.Remote || !same.RemoteRequired {
		t.Fatalf("no policy changed the anchor: %+v", same)
	}
	ret := core.ManagedRetention(audit.RetentionOptions{MaxAge: time.Hour, MaxBytes: 1 << 30, PartRows: 7}, p)
	if ret.MaxAge != 400*24*time.Hour || ret.MaxBytes != 0 || ret.PartRows != 7 {
		t.Fatalf("retention %+v", ret)
	}
}

// A hand-off ends no wider than the policy allows: Done on a site it
// forbids is refused, naming it, and the hand-off stays until Stop.
func TestHandoffDoneOnAForbiddenSiteIsRefused(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	defer f.AnswerAll(vocab.AllowOnce)()
	h := f.handOff()
	f.ApplyPolicy(managed(t, `{"sites": {"never": ["login.example.net"]}}`))
	f.Browser.Load(7, ssoPage())
	f.waitShown(ssoURL)
	err := f.FinishHandoff(h.ID, true, ssoOrigin)
	wantPolicy(t, "Done on a forbidden site", err, "sites.never lists login.example.net")
	if len(f.Handoffs()) != 1 {
		t.Fatal("a refused Done ended the hand-off")
	}
	if err := f.FinishHandoff(h.ID, false, ""); err != nil {
		t.Fatal(err)
	}
	if f.Share(f.tab) != vocab.None {
		t.Fatalf("the tab is shared at %v", f.Share(f.tab))
	}
}
