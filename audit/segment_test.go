package audit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/audit/audittest"
	"github.com/reins-app/reins/vocab"
)

// advance moves the test clock on by d.
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openParts(t *testing.T, path string, c *clock, r RetentionOptions, ao *AnchorOptions) *Log {
	t.Helper()
	l, err := Open(context.Background(), Options{Path: path, Now: c.Now, Retention: &r, Anchor: ao})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func (l *Log) parts() []*segment {
	l.dbmu.RLock()
	defer l.dbmu.RUnlock()
	return append([]*segment(nil), l.archives...)
}

// settle runs the log's upkeep until nothing is due.
func settle(t *testing.T, l *Log) {
	t.Helper()
	for range 100 {
		n := len(l.parts())
		if err := l.sealIfDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := l.applyRetention(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(l.parts()) == n {
			return
		}
	}
}

func TestTheLogIsSealedIntoPartsThatChain(t *testing.T) {
	path := testPath(t)
	c := newClock()
	l := openParts(t, path, c, RetentionOptions{PartRows: 10}, nil)
	for range 6 {
		fill(t, l, 5) // 7 rows each
		settle(t, l)
	}
	parts := l.parts()
	if len(parts) < 3 {
		t.Fatalf("%d sealed parts after 42 rows of 10 a part", len(parts))
	}
	head := l.headSeq()
	for i, s := range parts {
		fi, err := os.Stat(s.path)
		if err != nil || fi.Mode().Perm() != 0o400 {
			t.Fatalf("part %s: %v, mode %v; want read-only", s.path, err, fi.Mode())
		}
		if filepath.Base(s.path) != filepath.Base(archivePath(path, s.first, s.last)) {
			t.Fatalf("part %d is named %s", i, s.path)
		}
		if i > 0 && s.first != parts[i-1].last+1 {
			t.Fatalf("part %d starts at %d, the one before ends at %d", i, s.first, parts[i-1].last)
		}
	}
	// Every row across the parts, newest first, whole.
	rows := allRows(t, l)
	if int64(len(rows)) != head {
		t.Fatalf("Rows across the parts = %d rows, want %d", len(rows), head)
	}
	for i, r := range rows {
		if r.Seq != head-int64(i) {
			t.Fatalf("row %d is %d", i, r.Seq)
		}
	}
	// The sealed part ends with a row saying so; the next begins naming
	// its hash, and follows it in the chain.
	last := parts[len(parts)-1]
	byseq := map[int64]Row{}
	for _, r := range rows {
		byseq[r.Seq] = r
	}
	seal, begun := byseq[last.last], byseq[last.last+1]
	if seal.ActKind != KindAudit || seal.Code != CodePartSealed || begun.Code != CodePartBegun || begun.PrevHash != seal.Hash || !strings.Contains(begun.Detail, seal.Hash) {
		t.Fatalf("seal row %+v\nbegun row %+v", seal, begun)
	}
	var note partNote
	if err := json.Unmarshal(begun.Act, &note); err != nil || note.Part.Hash != seal.Hash || note.Part.File != filepath.Base(last.path) {
		t.Fatalf("the first row's act %s names %+v", begun.Act, note)
	}
	// A read limited to the newest rows, and a filter, across parts.
	if got, _ := l.Rows(context.Background(), Filter{Limit: 25}); len(got) != 25 || got[24].Seq != head-24 {
		t.Fatalf("the newest 25 rows: %d, ending at %d", len(got), got[len(got)-1].Seq)
	}
	typed, _ := l.Rows(context.Background(), Filter{Act: "type"})
	if len(typed) != 12 { // 6 fills × (fire + outcome)
		t.Fatalf("%d type rows across the parts, want 12", len(typed))
	}
	var seqs []int64
	l.Each(context.Background(), Filter{}, func(r Row) error { seqs = append(seqs, r.Seq); return nil })
	if int64(len(seqs)) != head || seqs[0] != 1 || seqs[len(seqs)-1] != head {
		t.Fatalf("Each read %d rows, %v…", len(seqs), seqs[:3])
	}
	mustVerify(t, l, int(head))
	l.Close()
	rep, err := VerifyFile(context.Background(), path, nil)
	if err != nil || int64(rep.Rows) != head || rep.Parts != len(parts)+1 {
		t.Fatalf("VerifyFile = %+v, %v", rep, err)
	}
	// Opened again, the log goes on from its head.
	// (Its upkeep may seal the live part on the way: settle first, then
	// count from the head.)
	l = openParts(t, path, c, RetentionOptions{PartRows: 10}, nil)
	fill(t, l, 1)
	settle(t, l)
	if l.headSeq() < head+3 {
		t.Fatalf("the head is %d after 3 more rows on %d", l.headSeq(), head)
	}
	mustVerify(t, l, int(l.headSeq()))
	t.Logf("%d rows in %d sealed parts and the live one", head, len(parts))
}

// A part sealed without its successor begun (Reins stopped between the
// two) gets its first row at the next start.
func TestAPartBegunAfterAStopInBetween(t *testing.T) {
	path := testPath(t)
	c := newClock()
	l := openParts(t, path, c, RetentionOptions{PartRows: 10}, nil)
	fill(t, l, 10)
	settle(t, l)
	l.Close()
	// Undo the new part: as if Reins stopped right after the rename.
	os.Remove(path)
	l = openParts(t, path, c, RetentionOptions{PartRows: 10}, nil)
	rows, _ := l.Rows(context.Background(), Filter{Limit: 1})
	if rows[0].Code != CodePartBegun {
		t.Fatalf("the newest row is %+v, want the new part's first", rows[0])
	}
	mustVerify(t, l, int(l.headSeq()))
}

func TestRetentionRemovesOldPartsAndSaysSo(t *testing.T) {
	path := testPath(t)
	c := newClock()
	r := RetentionOptions{PartRows: 10, MaxAge: 48 * time.Hour}
	l := openParts(t, path, c, r, nil)
	for range 4 {
		fill(t, l, 5)
		settle(t, l)
	}
	before := l.parts()
	c.advance(72 * time.Hour)
	fill(t, l, 5) // new rows, in the live part: not removed
	settle(t, l)
	after := l.parts()
	if len(after) >= len(before)+1 || len(before) < 2 {
		t.Fatalf("%d parts before, %d after three days", len(before), len(after))
	}
	for _, s := range before {
		if _, err := os.Stat(s.path); err == nil && s.last < after[0].first {
			t.Fatalf("%s is still there", s.path)
		}
	}
	removed, _ := l.Rows(context.Background(), Filter{Act: KindAudit})
	n := 0
	for _, row := range removed {
		if row.Code == CodePartRemoved {
			n++
			t.Log(row.Detail)
		}
	}
	if n == 0 {
		t.Fatal("no row says a part was removed")
	}
	held := l.headSeq()
	mustVerify(t, l, int(held-after[0].first+1))
	l.Close()
	rep, err := VerifyFile(context.Background(), path, nil)
	if err != nil || rep.RemovedBefore != after[0].first {
		t.Fatalf("VerifyFile after retention = %+v, %v", rep, err)
	}
	// A part deleted by hand is missing: no row accounts for it.
	if len(after) > 0 {
		os.Remove(after[0].path)
		_, err := VerifyFile(context.Background(), path, nil)
		var te *TamperedError
		// The first row named is the first no removal row accounts for:
		// the removal rows may have been in the part deleted.
		if !errors.As(err, &te) || te.Seq > after[0].first {
			t.Fatalf("with %s deleted by hand: %v", filepath.Base(after[0].path), err)
		}
		t.Log(err)
	}
}

func TestRetentionBySizeKeepsRowsAReceiverHasNotTaken(t *testing.T) {
	path := testPath(t)
	c := newClock()
	// A receiver that never answers: its rows must stay.
	ao := &AnchorOptions{SystemLog: "off", OTLP: &OTLPOptions{URL: "http://127.0.0.1:1/v1/logs"}}
	l := openParts(t, path, c, RetentionOptions{PartRows: 10, MaxBytes: 1}, ao)
	for range 4 {
		fill(t, l, 5)
		settle(t, l)
	}
	if len(l.parts()) < 2 {
		t.Fatalf("%d parts", len(l.parts()))
	}
	if rows, _ := l.Rows(context.Background(), Filter{Act: KindAudit}); strings.Contains(rowsText(rows), CodePartRemoved) {
		t.Fatal("a part whose rows the receiver never took was removed")
	}
	// The same log without that receiver: everything sealed goes.
	l.Close()
	l = openParts(t, path, c, RetentionOptions{PartRows: 10, MaxBytes: 1}, nil)
	settle(t, l)
	if n := len(l.parts()); n != 0 {
		t.Fatalf("%d parts left over a 1-byte limit", n)
	}
	mustVerify(t, l, int(l.headSeq()-firstHeld(t, l)+1))
}

func rowsText(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.Code + " ")
	}
	return b.String()
}

func firstHeld(t *testing.T, l *Log) int64 {
	var first int64
	l.Each(context.Background(), Filter{}, func(r Row) error {
		if first == 0 {
			first = r.Seq
		}
		return nil
	})
	return first
}

// Rows sealed away before a receiver took them still reach it, read from
// the sealed part.
func TestForwardingReadsSealedParts(t *testing.T) {
	certs := audittest.NewCerts(t)
	rs := audittest.StartTLS(t, 0, audittest.TLS{CA: certs.CA, Cert: certs.ServerCert, Key: certs.ServerKey})
	rs.Stop()
	path := testPath(t)
	c := newClock()
	ao := &AnchorOptions{SystemLog: "off", Remote: rs.Addr(), RemoteTLS: &TLSOptions{CAFile: certs.CA}}
	l := openParts(t, path, c, RetentionOptions{PartRows: 10}, ao)
	for range 5 {
		fill(t, l, 5)
		settle(t, l)
	}
	if len(l.parts()) < 2 {
		t.Fatal("nothing sealed")
	}
	rs = rs.Restart(t)
	if rep := waitStream(t, rs.RemoteLog, path, l.headSeq(), time.Minute); !rep.OK() {
		t.Fatalf("%+v", rep)
	}
}

// A sealed part changed by hand is found.
func TestAChangedSealedPartIsFound(t *testing.T) {
	path := testPath(t)
	l := openParts(t, path, newClock(), RetentionOptions{PartRows: 10}, nil)
	fill(t, l, 20)
	settle(t, l)
	parts := l.parts()
	l.Close()
	p := parts[0].path
	os.Chmod(p, 0o600)
	tamper(t, p, "UPDATE audit_rows SET outcome = 'denied' WHERE seq = 3")
	_, err := VerifyFile(context.Background(), path, nil)
	var te *TamperedError
	if !errors.As(err, &te) || te.Seq != 3 {
		t.Fatalf("VerifyFile = %v", err)
	}
	_ = vocab.OutcomeDenied
}
