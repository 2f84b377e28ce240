package core_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// An agent's run through the engine — reads, clicks, typing into an
// ordinary field and a password field — reaches rsyslog over TLS row by
// row, whole and in order, though the receiver is killed mid-run and
// restarted; while it is away the required receiver refuses acts, and
// those refusals reach it too. The secret typed is in no copy.
func TestAnAgentsRunReachesRsyslogOverTLSWhole(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	f := anchoredFixture(t, audit.AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteTLS: &audit.TLSOptions{CAFile: certs.CA}, RemoteRequired: true})
	f.SetShare(f.tab, vocab.Control)
	events, unsubscribe := f.Subscribe(256)
	defer unsubscribe()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				f.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	anchor := f.PersonDoor().(persondoor.Anchorer)
	typeInto := func(name, text string) error {
		ref, _ := f.snapRef(name)
		_, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Type, Text: text}})
		return err
	}
	step := func(wantCode string) {
		t.Helper()
		ref, _ := f.snapRef("Next")
		for _, err := range []error{f.click(ref), typeInto("Search", "shoes \"size\" 42]"), typeInto("Password", "hunter2-secret")} {
			if codeOf(err) != wantCode {
				t.Fatalf("act = %v, want code %q", err, wantCode)
			}
		}
	}
	for range 4 {
		step("")
	}
	rs.Kill()
	waitFor(t, "the lost receiver noticed", func() bool { return !anchor.AuditAnchor().Anchored })
	for range 2 {
		step(vocab.CodeAnchorUnreachable)
	}
	rs = rs.Restart(t)
	waitFor(t, "the receiver found again", func() bool { return f.Log.AnchorReady() == nil })
	for range 4 {
		step("")
	}
	head := anchor.AuditAnchor().Head
	var rep audit.StreamReport
	waitFor(t, "every row at the receiver", func() bool {
		file, err := os.Open(rs.RemoteLog)
		if err != nil {
			return false
		}
		defer file.Close()
		res, err := core.VerifyAuditStream(file)
		if err != nil || len(res.Logs) != 1 {
			return false
		}
		rep = res.Logs[0]
		return int64(rep.Rows) >= head
	})
	if !rep.OK() || rep.First != 1 || rep.Last != head {
		t.Fatalf("the receiver's stream: %+v; want rows 1–%d", rep, head)
	}
	b, _ := os.ReadFile(rs.RemoteLog)
	if strings.Contains(string(b), "hunter2") {
		t.Fatal("the secret typed text reached the receiver")
	}
	if !strings.Contains(string(b), `shoes \\\"size\\\" 42\]`) {
		t.Fatalf("the ordinary typed text is not in the rows as the log holds it:\n%.3000s", b)
	}
	st := anchor.AuditAnchor()
	t.Logf("%d rows, %d received twice; %s", rep.Rows, rep.Duplicates, st.Words())
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	if !audittest.Poll(time.Minute, ok) {
		t.Fatalf("%s: not within a minute", what)
	}
}

// With no copy anywhere, the person's door says the log is not anchored;
// with an anchor required, acts are refused and reads go on.
func TestNoAnchorAnywhereIsSaidAndCanBeRequired(t *testing.T) {
	f := anchoredFixture(t, audit.AnchorOptions{SystemLog: "off"})
	st := f.PersonDoor().(persondoor.Anchorer).AuditAnchor()
	if st.Anchored || !strings.HasPrefix(st.Words(), "Not anchored") {
		t.Fatalf("AuditAnchor() = %+v, %q", st, st.Words())
	}
	f = anchoredFixture(t, audit.AnchorOptions{SystemLog: "off", RequireAnchor: true})
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Next") // a read: it works
	if err := f.click(ref); codeOf(err) != vocab.CodeAnchorUnreachable || !strings.Contains(err.Error(), "no copy of the audit log leaves this computer") {
		t.Fatalf("click = %v", err)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Fatalf("%d acts fired", n)
	}
	t.Log(st.Words())
}
