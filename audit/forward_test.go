package audit

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/vocab"
)

// hostile is a target whose text holds every character a syslog message
// treats specially, control characters a receiver rewrites, and text in
// other scripts.
var hostile = vocab.Target{
	Tab: "t9", TabTitle: "Pay \"now\"] \\ [x] \x1b[31mred\t\r\nnext line — ✓ 東京",
	Origin: "https://shop.example", Ref: "e4", Role: "textbox", Name: "Card ]\" number\x00",
}

// fillHostile writes n rows: reads, a refusal with hostile text, and
// acts typing a secret and ordinary text.
func fillHostile(t testing.TB, l *Log, n int) {
	t.Helper()
	for i := range n {
		switch i % 4 {
		case 0:
			mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead, Detail: "snapshot"})
		case 1:
			mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Click}, Target: hostile, Outcome: vocab.OutcomeRefused, Code: "stale_ref", Detail: "page said \"]\" \\ \x7f"})
		case 2:
			tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Type, Text: "hunter2-secret", Secret: true}, tab), Landing{X: 1, Y: 2, Scale: 1})
			if _, err := l.Finish(context.Background(), tk, vocab.OutcomeDone, "", "Typed."); err != nil {
				t.Fatal(err)
			}
		case 3:
			mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Type, Text: "line one\nline \"two\"]"}, Target: hostile, Outcome: vocab.OutcomeDenied, Decision: "deny"})
		}
	}
}

// streamOf verifies file as a receiver's stream and returns the report
// for the log id, failing the test if the file names no other log.
func streamOf(t testing.TB, file, id string) (StreamReport, StreamResult) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		return StreamReport{}, StreamResult{}
	}
	defer f.Close()
	res, err := VerifyStream(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Logs {
		if r.ID == id {
			return r, res
		}
	}
	return StreamReport{}, res
}

// waitStream waits until the receiver's file holds rows 1 to head of the
// log id, and returns the report.
func waitStream(t testing.TB, file, id string, head int64, within time.Duration) StreamReport {
	t.Helper()
	var rep StreamReport
	var res StreamResult
	if !audittest.Poll(within, func() bool {
		rep, res = streamOf(t, file, id)
		return rep.Rows >= int(head) && rep.First == 1 || rep.Broken != nil
	}) {
		t.Fatalf("after %s the receiver holds %+v (%+v), want rows 1–%d", within, rep, res, head)
	}
	return rep
}

func TestWholeRowsReachRsyslogOverTLSInOrder(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteTLS: &TLSOptions{CAFile: certs.CA}, RemoteRequired: true})
	fillHostile(t, l, 40)
	head := l.headSeq()
	rep := waitStream(t, rs.RemoteLog, path, head, 20*time.Second)
	if !rep.OK() || rep.Rows != int(head) || rep.Last != head || rep.Duplicates != 0 {
		t.Fatalf("stream report %+v; want rows 1–%d whole, in order, once", rep, head)
	}
	b, _ := os.ReadFile(rs.RemoteLog)
	if strings.Contains(string(b), "hunter2") {
		t.Fatal("the secret typed text reached the receiver")
	}
	if !strings.Contains(string(b), `\"text_length\":14`) {
		t.Fatalf("the secret's length is not in the forwarded row:\n%.2000s", b)
	}
	st := l.Anchor()
	if !st.Anchored || len(st.Copies) != 1 || st.Copies[0].Err != nil || !st.Copies[0].Whole || st.Copies[0].Seq != head || st.Copies[0].Acknowledged {
		t.Fatalf("Anchor() = %+v", st)
	}
	// The same file anchors the chain for reins audit -verify -anchor.
	l.Close()
	a := readAnchorFile(t, rs.RemoteLog, path)
	if vrep, err := VerifyFile(context.Background(), path, a); err != nil || vrep.Anchored != int(head) {
		t.Fatalf("VerifyFile against the receiver's file = %+v, %v", vrep, err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	t.Logf("%d rows over TLS; the first as rsyslog kept it (%d bytes):\n%s", head, len(first), first)
}

// The receiver dies mid-run, as a crash does, and comes back: every row
// reaches it all the same, some twice, none missing.
func TestAReceiverKilledMidRunStillGetsEveryRow(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	path := testPath(t)
	var said atomic.Value
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteTLS: &TLSOptions{CAFile: certs.CA},
		Logf: func(f string, args ...any) { said.Store(f) }})
	// Rows go on being written while the receiver dies, while it is
	// away, and after it is back.
	write := func(n int) chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			fillHostile(t, l, n)
		}()
		return done
	}
	first := write(400)
	if !audittest.Poll(30*time.Second, func() bool { rep, _ := streamOf(t, rs.RemoteLog, path); return rep.Rows >= 50 }) {
		t.Fatal("the receiver got no rows")
	}
	rs.Kill()
	killedAt := l.headSeq()
	<-first
	testenvWait(t, "the lost receiver noticed", func() bool {
		_, remote := l.AnchorStatus()
		return errors.Is(remote, ErrAnchorUnreachable)
	})
	<-write(200)
	rs = rs.Restart(t)
	<-write(200)
	total := l.headSeq()
	rep := waitStream(t, rs.RemoteLog, path, total, time.Minute)
	if !rep.OK() || int64(rep.Rows) != total {
		t.Fatalf("after the receiver came back: %+v", rep)
	}
	t.Logf("killed at row %d; the receiver holds rows 1–%d whole, %d of them twice (resent after reconnecting)", killedAt, rep.Last, rep.Duplicates)
}

func testenvWait(t testing.TB, what string, ok func() bool) {
	t.Helper()
	if !audittest.Poll(time.Minute, ok) {
		t.Fatalf("%s: not within a minute", what)
	}
}

// A receiver whose certificate the settings do not trust gets nothing,
// and the person is told why; a required one then refuses acts.
func TestAWrongServerCertificateSendsNothing(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	for _, c := range []struct {
		name string
		tls  TLSOptions
		want string
	}{
		{"another CA", TLSOptions{CAFile: certs.OtherCA}, "not signed by"},
		{"the system's roots", TLSOptions{}, "not signed by"},
		{"another name", TLSOptions{CAFile: certs.CA, ServerName: "logs.example.org"}, "not for this name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := testPath(t)
			var said atomic.Value
			l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteTLS: &c.tls, RemoteRequired: true,
				Logf: func(f string, args ...any) { said.Store(f) }})
			mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead})
			_, err := l.Commit(context.Background(), approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
			if !errors.Is(err, ErrAnchorUnreachable) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Fatalf("Commit = %v; want a refusal saying %q", err, c.want)
			}
			st := l.Anchor()
			if st.Anchored || st.Copies[0].Err == nil {
				t.Fatalf("Anchor() = %+v", st)
			}
			if said.Load() == nil {
				t.Error("nothing was logged")
			}
			t.Logf("%+v", st)
			t.Logf("%v", err)
		})
	}
	l := openAnchored(t, testPath(t), AnchorOptions{SystemLog: "off"})
	fill(t, l, 1)
	if b, _ := os.ReadFile(rs.RemoteLog); len(b) > 0 {
		t.Fatalf("the receiver got:\n%s", b)
	}
}

// A receiver that asks who connects gets rows from a client certificate
// its CA signed.
func TestAClientCertificateIsShownToAReceiverThatAsks(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey, ClientCert: true})
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: rs.Addr(),
		RemoteTLS: &TLSOptions{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey}})
	fill(t, l, 5)
	if rep := waitStream(t, rs.RemoteLog, path, l.headSeq(), 20*time.Second); !rep.OK() {
		t.Fatalf("%+v", rep)
	}
}

// Rows written while no receiver answers wait in the database, across a
// restart of Reins, and reach it once it does.
func TestRowsWaitInTheDatabaseAcrossARestart(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	rs.Stop()
	ao := AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteTLS: &TLSOptions{CAFile: certs.CA}}
	path := testPath(t)
	l, err := Open(context.Background(), Options{Path: path, Now: newClock().Now, Anchor: &ao})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, l, 8)
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "10 rows were not sent") {
		t.Fatalf("Close = %v; want it to say 10 rows wait", err)
	}
	rs = rs.Restart(t)
	l = openAnchored(t, path, ao)
	if rep := waitStream(t, rs.RemoteLog, path, 10, 20*time.Second); !rep.OK() || rep.Rows != 10 {
		t.Fatalf("%+v", rep)
	}
	testenvWait(t, "the mark", func() bool { return l.Anchor().Copies[0].Seq == 10 })
}

func TestRowSDReadsBackExactly(t *testing.T) {
	l := openTest(t)
	fillHostile(t, l, 8)
	rs, err := l.rowsAfter(context.Background(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		odd := r
		odd.detail += "\xff\xfe bad bytes \\u0041 \\x41"
		for _, r := range []record{r, odd} {
			sd := rowSD(&r, "host", "/x/audit \"db\"].db")
			for _, c := range sd {
				if c < 0x20 || c == 0x7f {
					t.Fatalf("a control character left in %q", sd)
				}
			}
			p, ok, err := parseRowSD("<85>1 - host reins 1 audit " + sd + " reins-audit seq=1")
			if !ok || err != nil {
				t.Fatalf("parseRowSD(%q) = %v, %v", sd, ok, err)
			}
			b := newRowBuilder()
			for k, v := range p {
				if err := b.setText(k, v); err != nil {
					t.Fatal(err)
				}
			}
			got, err := b.record()
			if err != nil || got != r || p["db"] != "/x/audit \"db\"].db" {
				t.Fatalf("read back\n%+v, %v\nwant\n%+v", got, err, r)
			}
		}
	}
}
