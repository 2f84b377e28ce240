package core_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// anchoredFixture is newFixture on a log whose anchor is ao.
func anchoredFixture(t *testing.T, ao audit.AnchorOptions) *fixture {
	t.Helper()
	e := coretest.New(t, coretest.Options{Anchor: &ao})
	e.Browser.Open(7, shop())
	tab := e.WaitTab(t, shopURL)
	return &fixture{Engine: e, t: t, tab: tab, agent: e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})}
}

func TestARequiredAnchorThatDoesNotAnswerRefusesActsNotReads(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f := anchoredFixture(t, audit.AnchorOptions{SystemLog: "off", Remote: addr, RemoteRequired: true})
	f.SetShare(f.tab, vocab.Control)
	var asked atomic.Int32
	events, unsubscribe := f.Subscribe(64)
	defer unsubscribe()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				asked.Add(1)
				f.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	ref, _ := f.snapRef("Place order") // a read: it works
	const tries = 5
	for range tries {
		if err := f.click(ref); codeOf(err) != vocab.CodeAnchorUnreachable {
			t.Fatalf("click = %v, want %s", err, vocab.CodeAnchorUnreachable)
		}
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Fatalf("%d of %d acts fired", n, tries)
	}
	refused := f.rows(persondoor.AuditFilter{Act: "click"})
	if len(refused) != tries {
		t.Fatalf("%d click rows, want %d refusals", len(refused), tries)
	}
	for _, r := range refused {
		if r.Phase != audit.PhaseRecord || r.Outcome != vocab.OutcomeRefused || r.Code != vocab.CodeAnchorUnreachable {
			t.Fatalf("row %+v; want a refusal with %s", r, vocab.CodeAnchorUnreachable)
		}
	}
	if reads := f.rows(persondoor.AuditFilter{Outcome: vocab.OutcomeRead}); len(reads) != 1 {
		t.Fatalf("%d read rows, want the snapshot's", len(reads))
	}
	t.Logf("%d tries, %d fired, %d asked; %s", tries, len(f.Exec.Fired()), asked.Load(), refused[0].Detail)
}

// Start wires the anchor from the settings file and the system log socket.
func TestStartSendsRowsToTheAnchorInTheSettings(t *testing.T) {
	rs := audittest.Start(t, 0)
	dir := t.TempDir()
	saved := `{"auditAnchor": {"remote": "` + rs.Addr() + `", "required": true}}`
	if err := os.WriteFile(filepath.Join(dir, settings.FileName), []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, SystemLog: rs.Socket, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if s := rt.Settings(); s.AuditRemote != rs.Addr() || !s.AuditRemoteRequired {
		t.Fatalf("settings %+v", s)
	}
	if err := rt.SetApprovalTimeout(45 * time.Second); err != nil { // writes a row, and saves the file
		t.Fatal(err)
	}
	rt.Close()
	path, _ := filepath.Abs(filepath.Join(dir, "audit.db"))
	audittest.WaitLines(t, rs.LocalLog, path, 1)
	audittest.WaitLines(t, rs.RemoteLog, path, 1)
	b, _ := os.ReadFile(filepath.Join(dir, settings.FileName))
	if !strings.Contains(string(b), rs.Addr()) {
		t.Fatalf("saving another setting lost the anchor:\n%s", b)
	}
	f, err := os.Open(rs.RemoteLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := core.VerifyAuditFile(context.Background(), dir, f, "")
	if err != nil || rep.Anchored != 1 {
		t.Fatalf("VerifyAuditFile = %+v, %v", rep, err)
	}
}
