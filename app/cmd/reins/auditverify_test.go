package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/settings"
)

// TestAuditVerifyAgainstTheAnchor runs `reins audit -verify -anchor` on a
// log whose rows went to a real rsyslogd, then cuts the log's tail and
// drops its triggers as someone with the sqlite3 shell would while Reins
// is stopped.
func TestAuditVerifyAgainstTheAnchor(t *testing.T) {
	bin := reinsBinary(t)
	rs := audittest.Start(t, 0)
	env := bareEnv(t)
	var dir string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "REINS_DATA_DIR="); ok {
			dir = v
		}
	}
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`{"auditAnchor": {"remote": "`+rs.Addr()+`"}}`), 0o600)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, SystemLog: rs.Socket, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 { // six rows
		if err := rt.SetApprovalTimeout(time.Duration(10+i) * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	rt.Close()
	path, _ := filepath.Abs(filepath.Join(dir, "audit.db"))
	audittest.WaitLines(t, rs.RemoteLog, path, 6)
	audittest.WaitLines(t, rs.LocalLog, path, 6)

	verify := func(stdin []byte, args ...string) (string, error) {
		t.Helper()
		var in io.Reader // nil, not an empty *bytes.Reader, for no stdin
		if stdin != nil {
			in = bytes.NewReader(stdin)
		}
		out, errOut, err := run(t, bin, env, in, append([]string{"audit", "-verify"}, args...)...)
		t.Logf("reins audit -verify %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
		return string(out) + string(errOut), err
	}
	if out, err := verify(nil, "-anchor", rs.RemoteLog); err != nil || !strings.Contains(out, "6 of them match the anchor") {
		t.Fatalf("a whole log against the receiver's file: %v\n%s", err, out)
	}
	local, _ := os.ReadFile(rs.LocalLog)
	if out, err := verify(local, "-anchor", "-"); err != nil || !strings.Contains(out, "6 of them match the anchor") {
		t.Fatalf("a whole log against the system log on stdin: %v\n%s", err, out)
	}

	db, err := sql.Open("sqlite", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"DROP TRIGGER audit_rows_no_delete", "DELETE FROM audit_rows WHERE seq >= 4"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// Read-only: the dropped trigger is reported and stays dropped.
	out, err := verify(nil)
	if err == nil || !strings.Contains(out, "audit_rows_no_delete") {
		t.Fatalf("-verify with a trigger dropped: %v\n%s", err, out)
	}
	if out, err := verify(nil); err == nil || !strings.Contains(out, "audit_rows_no_delete") {
		t.Fatalf("-verify put the trigger back: %v\n%s", err, out)
	}
	// Put back as Reins would at its next start (reins audit opens the log
	// for writing): now only the anchor shows the cut.
	if _, _, err := run(t, bin, env, nil, "audit", "-n", "1"); err != nil {
		t.Fatal(err)
	}
	if out, err := verify(nil); err != nil || !strings.Contains(out, "intact: 3 rows") {
		t.Fatalf("the cut log without the anchor: %v\n%s", err, out)
	}
	for _, file := range []string{rs.RemoteLog, rs.LocalLog} {
		out, err := verify(nil, "-anchor", file)
		if err == nil || !strings.Contains(out, "audit row 4: it is missing") {
			t.Fatalf("the cut log against %s: %v\n%s", filepath.Base(file), err, out)
		}
	}
	// An anchor with nothing for this log checks nothing: not a pass.
	if out, err := verify(nil, "-anchor", rs.RemoteLog, "-anchor-id", "another"); err == nil || !strings.Contains(out, "holds no line for this log (6 for other logs)") {
		t.Fatalf("another log's name: %v\n%s", err, out)
	}
}
