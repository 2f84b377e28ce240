package core_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// A Reins killed while an act fired left its row "about to fire"; the
// next start ends it as unknown before anything else can fire.
func TestStartEndsTheActsAReinsThatDiedWasFiring(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := audit.Open(ctx, audit.Options{Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	req := vocab.Request{ID: "r1", Agent: vocab.Agent{Name: "agent", Session: "s1"}, Act: vocab.Act{Kind: vocab.Type, Text: "abc"}, Target: vocab.Target{Tab: "3"}}
	tk, err := l.Commit(ctx, approvals.TestOnlyApproved(req), audit.Landing{X: 1, Y: 1})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()

	var logged []string
	rt, err := core.Start(ctx, core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, SystemLog: "off", Logf: func(f string, a ...any) {
		logged = append(logged, f)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	rows, err := rt.AuditRows(ctx, persondoor.AuditFilter{Outcome: vocab.OutcomeUnknown})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].RefSeq != tk.Seq() || rows[0].Code != vocab.CodeStopped {
		t.Fatalf("rows ending the act: %+v", rows)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "their outcome is recorded as unknown") {
		t.Errorf("Start did not say so: %q", logged)
	}
	if n, err := rt.VerifyAudit(ctx); err != nil || n != 2 {
		t.Errorf("VerifyAudit = %d, %v", n, err)
	}
}
