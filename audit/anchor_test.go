package audit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/vocab"
)

// openAnchored opens a log at path whose anchor goes to rs, both ways.
func openAnchored(t testing.TB, path string, ao AnchorOptions) *Log {
	t.Helper()
	l, err := Open(context.Background(), Options{Path: path, Now: newClock().Now, Anchor: &ao})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func readAnchorFile(t *testing.T, file, id string) *Anchor {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := ReadAnchor(f, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestRowsReachTheSystemLogAndTheRemoteReceiver(t *testing.T) {
	rs := audittest.Start(t, 0)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: rs.Socket, Remote: rs.Addr(), RemoteRequired: true})
	fill(t, l, 5)
	local := audittest.WaitLines(t, rs.LocalLog, path, 7)
	remote := audittest.WaitLines(t, rs.RemoteLog, path, 7)
	t.Logf("local: %s\nremote: %s", local[0], remote[0])
	rows := allRows(t, l)
	for i, lines := range [][]string{local, remote} {
		for j, line := range lines {
			r := rows[len(rows)-1-j]
			if !strings.HasSuffix(line, AnchorLine(r.Seq, r.Hash, r.PrevHash, path)) {
				t.Fatalf("copy %d, line %d = %q; want row %d's seq and hashes", i, j, line, r.Seq)
			}
			if !strings.Contains(line, " "+AnchorTag+"[") {
				t.Fatalf("line %q lacks the tag %s", line, AnchorTag)
			}
		}
	}
	if local, remote := l.AnchorStatus(); local != nil || remote != nil {
		t.Fatalf("AnchorStatus = %v, %v", local, remote)
	}
	for _, file := range []string{rs.LocalLog, rs.RemoteLog} {
		rep, err := VerifyFile(context.Background(), path, readAnchorFile(t, file, path))
		if err != nil || rep.Rows != 7 || rep.Anchored != 7 || rep.AnchorHead != 7 {
			t.Fatalf("VerifyFile against %s = %+v, %v", filepath.Base(file), rep, err)
		}
	}
}

// anchoredLog writes 10 rows with both copies of the anchor on, closes
// the log, and returns its path and the two anchors as read back.
func anchoredLog(t *testing.T) (string, map[string]*Anchor) {
	t.Helper()
	rs := audittest.Start(t, 0)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: rs.Socket, Remote: rs.Addr()})
	fill(t, l, 8) // 10 rows
	audittest.WaitLines(t, rs.LocalLog, path, 10)
	audittest.WaitLines(t, rs.RemoteLog, path, 10)
	l.Close()
	return path, map[string]*Anchor{
		"system log": readAnchorFile(t, rs.LocalLog, path),
		"remote":     readAnchorFile(t, rs.RemoteLog, path),
	}
}

// copyLog is a copy of the closed log at path, for one attack.
func copyLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := testPath(t)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// attack runs one tampering of a copy of the log for each row k, and
// counts how many passed VerifyFile unseen, without and with each anchor;
// with an anchor, the first bad row named must be k.
func attack(t *testing.T, name string, do func(t *testing.T, path string, k int64)) {
	path, anchors := anchoredLog(t)
	tries, unseenBare := 0, 0
	unseen := map[string]int{}
	for k := int64(1); k <= 10; k++ {
		p := copyLog(t, path)
		do(t, p, k)
		tries++
		if _, err := VerifyFile(context.Background(), p, nil); err == nil {
			unseenBare++
		}
		for which, a := range anchors {
			rep, err := VerifyFile(context.Background(), p, a)
			var te *TamperedError
			switch {
			case err == nil:
				unseen[which]++
			case !errors.As(err, &te) || te.Seq != k:
				t.Errorf("%s at row %d against the %s: %+v, %v; want row %d named", name, k, which, rep, err, k)
			}
		}
	}
	t.Logf("%s: %d tries; unseen without an anchor %d, against the system log %d, against the remote receiver %d",
		name, tries, unseenBare, unseen["system log"], unseen["remote"])
	if unseenBare != tries {
		t.Errorf("%d of %d passed without the anchor; the attack should pass unseen there (else it tests nothing)", unseenBare, tries)
	}
	if unseen["system log"] != 0 || unseen["remote"] != 0 {
		t.Errorf("passed unseen: %v", unseen)
	}
}

// Deleting the newest rows while Reins is stopped leaves a whole chain;
// only the anchor shows what is gone.
func TestACutTailIsFoundAgainstTheAnchor(t *testing.T) {
	attack(t, "tail cut", func(t *testing.T, p string, k int64) {
		tamper(t, p, fmt.Sprintf("DELETE FROM audit_rows WHERE seq >= %d", k))
		restoreTriggersAsReinsWould(t, p)
	})
}

// A forger edits row k and recomputes every hash after it: the chain is
// whole, and only the anchor disagrees.
func TestARewrittenChainIsFoundAgainstTheAnchor(t *testing.T) {
	attack(t, "rewritten chain", func(t *testing.T, p string, k int64) {
		rewriteFrom(t, p, k, func(r *record) {
			if r.outcome == vocab.OutcomeDenied {
				r.outcome = vocab.OutcomeRead
			} else {
				r.outcome = vocab.OutcomeDenied
			}
		})
	})
}

// rewriteFrom edits row seq with edit and recomputes its hash and every
// later row's, as a careful forger would, then puts the triggers back.
func rewriteFrom(t *testing.T, path string, seq int64, edit func(*record)) {
	t.Helper()
	db := rawDB(t, path, "")
	rs, err := db.Query("SELECT "+columns+" FROM audit_rows WHERE seq >= ? ORDER BY seq", seq)
	if err != nil {
		t.Fatal(err)
	}
	var recs []record
	for rs.Next() {
		r, err := scanRecord(rs)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	rs.Close()
	db.Close()
	stmts := []string{}
	prev := ""
	for i := range recs {
		r := &recs[i]
		if i == 0 {
			edit(r)
		} else {
			r.prevHash = prev
		}
		r.hash = r.sum()
		prev = r.hash
		stmts = append(stmts, fmt.Sprintf("UPDATE audit_rows SET outcome = '%s', prev_hash = '%s', hash = '%s' WHERE seq = %d", r.outcome, r.prevHash, r.hash, r.seq))
	}
	tamper(t, path, stmts...)
	restoreTriggersAsReinsWould(t, path)
}

// restoreTriggersAsReinsWould puts the dropped triggers back, so that
// nothing but the anchor can give the forgery away.
func restoreTriggersAsReinsWould(t *testing.T, path string) {
	t.Helper()
	db := rawDB(t, path, "")
	if err := restoreTriggers(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

func TestVerifyFileOnlyReadsAndReportsDroppedTriggers(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 2)
	l.Close()
	tamper(t, path) // drops two triggers
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyFile(context.Background(), path, nil)
	if err != nil || rep.Rows != 4 {
		t.Fatalf("VerifyFile = %+v, %v", rep, err)
	}
	if got := strings.Join(rep.Triggers, ","); got != "audit_rows_no_update,audit_rows_no_delete" {
		t.Fatalf("Triggers = %q, want both dropped ones", got)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("VerifyFile changed the database file")
	}
	db := rawDB(t, path, "mode=ro")
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'trigger'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("triggers after VerifyFile = %d, %v; want the one left, none restored", n, err)
	}
}

// freeAddr is a loopback address where nothing listens.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestARequiredReceiverThatDoesNotAnswerRefusesActsUntilItDoes(t *testing.T) {
	addr := freeAddr(t)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: addr, RemoteRequired: true})
	act := approve(vocab.Act{Kind: vocab.Click}, tab)
	const tries = 5
	got := 0
	for range tries {
		tk, err := l.Commit(context.Background(), act, Landing{X: 1, Y: 1, Scale: 1})
		if tk.Valid() {
			got++
		}
		if !errors.Is(err, ErrAnchorUnreachable) || errors.Is(err, ErrWrite) {
			t.Fatalf("Commit = %v; want ErrAnchorUnreachable", err)
		}
	}
	if got != 0 {
		t.Fatalf("%d of %d acts got a ticket", got, tries)
	}
	// Reads and refusals are still written.
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead})
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Click}, Target: tab, Outcome: vocab.OutcomeRefused, Code: "audit_anchor_unreachable"})
	if _, remote := l.AnchorStatus(); !errors.Is(remote, ErrAnchorUnreachable) {
		t.Fatalf("AnchorStatus remote = %v", remote)
	}
	if n := len(allRows(t, l)); n != 2 {
		t.Fatalf("%d rows, want the 2 records and no fire row", n)
	}
	t.Logf("refused %d of %d acts: %v", tries, tries, l.AnchorReady())

	// The receiver comes up on that port: acts fire again, and the rows
	// written meanwhile reach it.
	_, port, _ := net.SplitHostPort(addr)
	var p int
	fmt.Sscan(port, &p)
	rs := audittest.Start(t, p)
	if !audittest.Poll(10*time.Second, func() bool { return l.AnchorReady() == nil }) {
		t.Fatalf("AnchorReady after the receiver started: %v", l.AnchorReady())
	}
	mustCommit(t, l, act, Landing{X: 1, Y: 1, Scale: 1})
	audittest.WaitLines(t, rs.RemoteLog, path, 3)
}

func TestALostRequiredReceiverRefusesTheNextAct(t *testing.T) {
	rs := audittest.Start(t, 0)
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteRequired: true})
	act := approve(vocab.Act{Kind: vocab.Click}, tab)
	mustCommit(t, l, act, Landing{X: 1, Y: 1, Scale: 1})
	audittest.WaitLines(t, rs.RemoteLog, path, 1)
	rs.Stop()
	if !audittest.Poll(10*time.Second, func() bool { return errors.Is(l.AnchorReady(), ErrAnchorUnreachable) }) {
		t.Fatal("the lost receiver was not noticed within 10 s")
	}
	if tk, err := l.Commit(context.Background(), act, Landing{X: 1, Y: 1, Scale: 1}); tk.Valid() || !errors.Is(err, ErrAnchorUnreachable) {
		t.Fatalf("Commit after the receiver left = %v, %v", tk.Valid(), err)
	}
	rs = rs.Restart(t)
	if !audittest.Poll(10*time.Second, func() bool { return l.AnchorReady() == nil }) {
		t.Fatalf("AnchorReady after the receiver came back: %v", l.AnchorReady())
	}
	mustCommit(t, l, act, Landing{X: 1, Y: 1, Scale: 1})
	audittest.WaitLines(t, rs.RemoteLog, path, 1)
}

func TestAnUnreachableSystemLogIsReportedNotFatal(t *testing.T) {
	var mu sync.Mutex
	var said []string
	path := testPath(t)
	dir, err := os.MkdirTemp("", "syslog") // short: a socket's path is limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l := openAnchored(t, path, AnchorOptions{
		SystemLog: filepath.Join(dir, "log.sock"),
		Logf: func(f string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			said = append(said, fmt.Sprintf(f, args...))
		},
	})
	fill(t, l, 2)
	mustVerify(t, l, 4)
	local, remote := l.AnchorStatus()
	if local == nil || remote != nil {
		t.Fatalf("AnchorStatus = %v, %v; want the system log reported", local, remote)
	}
	if l.AnchorReady() != nil {
		t.Fatal("an absent system log refused acts")
	}
	mu.Lock()
	if len(said) != 1 || !strings.Contains(said[0], "system log") {
		t.Fatalf("logged %q; want one line about the system log", said)
	}
	t.Log(said[0])
	mu.Unlock()

	// The system log comes up where it was expected: rows reach it again.
	rs := audittest.StartIn(t, dir, 0)
	if !audittest.Poll(15*time.Second, func() bool {
		mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead})
		return len(audittest.Lines(rs.LocalLog, path)) > 0
	}) {
		t.Fatal("the system log was not found again within 15 s")
	}
	if local, _ := l.AnchorStatus(); local != nil {
		t.Fatalf("AnchorStatus local = %v once it works", local)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(said[len(said)-1], "again") {
		t.Fatalf("logged %q; want a line saying it works again", said)
	}
}

func TestReadAnchorTellsForgedLinesAndOtherLogs(t *testing.T) {
	h := func(c string) string { return strings.Repeat(c, 64) }
	in := strings.Join([]string{
		"Dec  1 10:00:00 host reins[1]: " + AnchorLine(1, h("a"), zeroHash, "/x/audit.db"),
		"Dec  1 10:00:00 host reins[1]: " + AnchorLine(2, h("b"), h("a"), "/x/audit.db"),
		"noise",
		"<86>1 2026-12-01T10:00:00Z host reins 1 audit - " + AnchorLine(2, h("b"), h("a"), "/x/audit.db"),
		AnchorLine(1, h("c"), zeroHash, "/y/audit.db"),
		AnchorLine(2, h("d"), h("a"), "/x/audit.db"),
		"reins-audit seq=x hash=" + h("e") + " prev=" + zeroHash + " db=/x/audit.db",
	}, "\n")
	a, err := ReadAnchor(strings.NewReader(in), "/x/audit.db")
	if err != nil {
		t.Fatal(err)
	}
	if a.Lines != 4 || a.Others != 1 || a.Conflict != 2 || a.Head() != 2 || a.Rows[1] != h("a") {
		t.Fatalf("ReadAnchor = %+v", a)
	}
}

// A system log that stops reading does not stop the audit log: each line
// waits a moment at most and is counted lost.
func TestASystemLogThatStopsReadingDoesNotStopRows(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log.sock")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // read by no one
	l := openAnchored(t, testPath(t), AnchorOptions{SystemLog: sock})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 10 {
			fill(t, l, 5) // 60 rows: more than the socket's queue (net.unix.max_dgram_qlen, 10 by default)
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("rows stopped while the system log did not read")
	}
	if local, _ := l.AnchorStatus(); local == nil {
		t.Error("the lost lines were not reported")
	}
}

// A receiver that is slow to answer holds up no row: rows are queued while
// it is dialled, and reach it once it answers.
func TestASlowReceiverHoldsUpNoRow(t *testing.T) {
	rs := audittest.Start(t, 0)
	release := make(chan struct{})
	var dials atomic.Int32
	path := testPath(t)
	l := openAnchored(t, path, AnchorOptions{SystemLog: "off", Remote: rs.Addr(), testOnlyDial: func(network, addr string, timeout time.Duration) (net.Conn, error) {
		if dials.Add(1) == 1 {
			<-release // the first try hangs, as a receiver dropping SYNs does
		}
		return net.DialTimeout(network, addr, timeout)
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		fill(t, l, 20)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("rows waited for the receiver's dial")
	}
	// The rows may all be in before the sender has dialled at all.
	testenv.WaitFor(t, "the first dial", func() bool { return dials.Load() >= 1 })
	if dials.Load() != 1 {
		t.Errorf("%d dials while the first hung; want one", dials.Load())
	}
	close(release)
	audittest.WaitLines(t, rs.RemoteLog, path, 22)
}

// A receiver marked required that the settings do not name is not
// reachable: no act may fire.
func TestARequiredReceiverWithNoAddressRefusesActs(t *testing.T) {
	l := openAnchored(t, testPath(t), AnchorOptions{SystemLog: "off", RemoteRequired: true})
	if err := l.AnchorReady(); !errors.Is(err, ErrAnchorUnreachable) {
		t.Fatalf("AnchorReady = %v, want ErrAnchorUnreachable", err)
	}
}
