package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/settings"
)

// A Reins whose settings name a receiver over TLS sends it every row; the
// organisation checks the receiver's file with reins audit -verify
// -stream, without this computer's log, and sees a row taken out of it.
func TestAuditVerifyStreamOnARsyslogFile(t *testing.T) {
	bin := reinsBinary(t)
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	env := bareEnv(t)
	dir := dataDirOf(env)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`{"auditAnchor": {"remote": "`+rs.Addr()+`", "tls": {"ca": "`+certs.CA+`"}}}`), 0o600)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, SystemLog: "off", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		if err := rt.SetApprovalTimeout(time.Duration(10+i) * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	rt.Close()
	path, _ := filepath.Abs(filepath.Join(dir, "audit.db"))
	audittest.WaitLines(t, rs.RemoteLog, path, 12)

	run := func(args ...string) (string, error) {
		t.Helper()
		out, errOut, err := run(t, bin, env, nil, append([]string{"audit"}, args...)...)
		t.Logf("reins audit %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
		return string(out) + string(errOut), err
	}
	if out, err := run("-verify", "-stream", rs.RemoteLog); err != nil || !strings.Contains(out, "rows 1 to 12, 12 rows: complete, in order, every hash verified") {
		t.Fatalf("the receiver's whole file: %v\n%s", err, out)
	}
	if out, err := run("-verify"); err != nil || !strings.Contains(out, "Anchored: rows up to 12 at syslog+tls://"+rs.Addr()) {
		t.Fatalf("-verify says where the log is anchored: %v\n%s", err, out)
	}
	if out, err := run("-verify", "-anchor", rs.RemoteLog); err != nil || !strings.Contains(out, "12 of them match the anchor") {
		t.Fatalf("the receiver's file as the anchor: %v\n%s", err, out)
	}
	// Someone takes row 5 out of the receiver's file.
	b, _ := os.ReadFile(rs.RemoteLog)
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, ` seq="5" `) {
			kept = append(kept, l)
		}
	}
	cut := filepath.Join(t.TempDir(), "cut.log")
	os.WriteFile(cut, []byte(strings.Join(kept, "\n")), 0o600)
	if out, err := run("-verify", "-stream", cut); err == nil || !strings.Contains(out, "MISSING rows 5.") {
		t.Fatalf("row 5 taken out: %v\n%s", err, out)
	}
}

// With no copy anywhere, -verify says the log is not anchored, and
// doctor says so too.
func TestAuditVerifySaysWhenTheLogIsNotAnchored(t *testing.T) {
	bin := reinsBinary(t)
	env := bareEnv(t)
	dir := dataDirOf(env)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, SystemLog: "off", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.SetApprovalTimeout(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	rt.Close()
	out, errOut, err := run(t, bin, env, nil, "audit", "-verify")
	if err != nil || !strings.Contains(string(out), "Not anchored: no row of this log has left this computer") {
		t.Fatalf("reins audit -verify: %v\n%s%s", err, out, errOut)
	}
	t.Logf("%s", out)
}

// reins audit -export writes the rows since a time, oldest first, as JSON
// lines or CSV, for people without a pipeline.
func TestAuditExport(t *testing.T) {
	bin := reinsBinary(t)
	env := bareEnv(t)
	dir := dataDirOf(env)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: dir, Executor: &executor.Fake{}, SystemLog: "off", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := rt.SetApprovalTimeout(time.Duration(10+i) * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	rt.Close()
	out, errOut, err := run(t, bin, env, nil, "audit", "-export", "-format", "csv")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 6 || !strings.HasPrefix(lines[0], "seq,time,agent_name,") || !strings.HasPrefix(lines[1], "1,") || !strings.HasPrefix(lines[5], "5,") {
		t.Fatalf("-export -format csv: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = run(t, bin, env, nil, "audit", "-export", "-since", "1h")
	lines = strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 5 || !strings.HasPrefix(lines[0], `{"seq":1,`) {
		t.Fatalf("-export -since 1h: %v\n%s%s", err, out, errOut)
	}
	out, _, err = run(t, bin, env, nil, "audit", "-export", "-since", "2999-01-01")
	if err != nil || len(out) != 0 {
		t.Fatalf("-export since the future: %v\n%s", err, out)
	}
	if _, errOut, err := run(t, bin, env, nil, "audit", "-export", "-format", "xml"); err == nil || !strings.Contains(string(errOut), "jsonl or csv") {
		t.Fatalf("-format xml: %v\n%s", err, errOut)
	}
}
