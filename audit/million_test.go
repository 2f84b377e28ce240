package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

// millionRows is the size of the log BenchmarkMillionRows reads: about a
// year of heavy use. REINS_BENCH_ROWS sets another.
func millionRows() int {
	if n, err := strconv.Atoi(os.Getenv("REINS_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// bulkAppend chains and commits recs in one transaction, as append does
// row by row: how the benchmark writes a year's rows in minutes.
func (l *Log) bulkAppend(ctx context.Context, recs []record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	h := l.head
	for i := range recs {
		r := &recs[i]
		r.seq, r.prevHash = h.seq+1, h.hash
		r.time = formatTime(l.now())
		r.hash = r.sum()
		if _, err := l.w.insert.ExecContext(ctx, r.args()...); err != nil {
			l.w.conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
		h = head{seq: r.seq, hash: r.hash}
	}
	if _, err := l.w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return err
	}
	l.head = h
	l.last.Store(h.seq)
	return nil
}

// yearRow is row i of a year's mix: snapshots, clicks on several sites,
// typing (a secret now and then), refusals and denials.
func yearRow(i int) record {
	sites := []string{"https://mail.example", "https://shop.example", "https://bank.example", "https://docs.example", "https://news.example"}
	origin := sites[i%len(sites)]
	r := record{
		agentName: "Claude Code", agentVersion: "2.1", agentPID: 4000 + int64(i/5000), agentExe: "/usr/bin/claude",
		agentSession: fmt.Sprintf("s-%d", i/2000), tab: fmt.Sprintf("t%d", i%40), tabTitle: "Inbox (12) — Mail",
		origin: origin, frameOrigin: origin, phase: PhaseRecord,
	}
	act := vocab.Act{Kind: vocab.Read}
	switch i % 10 {
	case 0, 1, 2, 3:
		r.outcome, r.detail = vocab.OutcomeRead, "Snapshot of the tab (interactive, 4,120 characters)."
	case 4, 5:
		act = vocab.Act{Kind: vocab.Click}
		r.targetRef, r.targetRole, r.targetName = fmt.Sprintf("e%d", i%300), "button", "Archive"
		r.outcome, r.decision, r.detail = vocab.OutcomeDone, "allow_once", "Click “Archive”."
	case 6:
		act = vocab.Act{Kind: vocab.Type, Text: "Thanks — I'll look at it tomorrow."}
		r.targetRef, r.targetRole, r.targetName = "e12", "textbox", "Reply"
		r.outcome, r.decision, r.detail = vocab.OutcomeDone, "allow_once", "Type into “Reply”."
	case 7:
		act = vocab.Act{Kind: vocab.Type, Text: "correct horse", Secret: true}
		r.targetRef, r.targetRole, r.targetName = "e3", "textbox", "Password"
		r.outcome, r.decision, r.detail = vocab.OutcomeDenied, "deny", "Type 13 characters into “Password”."
	case 8:
		act = vocab.Act{Kind: vocab.Navigate, URL: origin + "/settings"}
		r.outcome, r.code, r.detail = vocab.OutcomeRefused, "grant_required", "This tab is not shared with agents."
	case 9:
		act = vocab.Act{Kind: vocab.Scroll}
		r.outcome, r.decision, r.detail = vocab.OutcomeDone, "allow_tab", "Scroll down."
	}
	r.actKind = string(act.Kind)
	b, _ := actJSON(act)
	r.act = string(b)
	return r
}

var million struct {
	once sync.Once
	path string
	now  *clock
	took time.Duration
	err  error
}

// millionLog writes the year's log once per run, in parts as Reins keeps
// it, and returns its path.
func millionLog(b *testing.B) (string, *clock) {
	million.once.Do(func() {
		dir, err := os.MkdirTemp("", "reins-million")
		if err != nil {
			million.err = err
			return
		}
		million.path = filepath.Join(dir, "audit.db")
		// A row every 31.5 s: a million rows is a year.
		million.now = &clock{t: time.Now().Add(-365 * 24 * time.Hour)}
		start := time.Now()
		l, err := Open(context.Background(), Options{Path: million.path, Now: func() time.Time {
			million.now.advance(31500 * time.Millisecond)
			return million.now.Now()
		}, Retention: &RetentionOptions{}})
		if err != nil {
			million.err = err
			return
		}
		defer l.Close()
		n := millionRows()
		const batch = 10_000
		recs := make([]record, batch)
		for done := 0; done < n; done += batch {
			for i := range recs {
				recs[i] = yearRow(done + i)
			}
			if err := l.bulkAppend(context.Background(), recs[:min(batch, n-done)]); err != nil {
				million.err = err
				return
			}
			if err := l.sealIfDue(context.Background()); err != nil {
				million.err = err
				return
			}
		}
		million.took = time.Since(start)
	})
	if million.err != nil {
		b.Fatal(million.err)
	}
	return million.path, million.now
}

// logBytes is the size of every part of the log at path.
func logBytes(path string) int64 {
	var n int64
	parts, _ := findSegments(path)
	for _, s := range parts {
		n += s.bytes
	}
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// BenchmarkMillionRows measures a log of a million rows, about a year of
// heavy use, kept in parts as Reins keeps it: appending a row, the audit
// viewer's first page, a filtered query across every part, verifying
// everything, and the files' size. Outside `make test`:
//
//	go test -run '^$' -bench MillionRows -benchtime 20x -timeout 60m ./audit/
func BenchmarkMillionRows(b *testing.B) {
	path, now := millionLog(b)
	parts, _ := findSegments(path)
	b.Logf("%d rows written in %s, in %d sealed parts and the live one; %.0f MB", millionRows(), million.took.Round(time.Second), len(parts), float64(logBytes(path))/(1<<20))
	open := func(b *testing.B) *Log {
		l, err := Open(context.Background(), Options{Path: path, Now: now.Now, Retention: &RetentionOptions{}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { l.Close() })
		return l
	}
	b.Run("size", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(logBytes(path))/(1<<20), "MB")
		b.ReportMetric(float64(logBytes(path))/float64(millionRows()), "bytes/row")
	})
	b.Run("append", func(b *testing.B) {
		// 100 rows an iteration, each committed to the disk on its own
		// (synchronous=FULL), as every row is; the median and the 99th
		// percentile of one row.
		l := open(b)
		e := Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead, Detail: "Snapshot of the tab."}
		var took []time.Duration
		for b.Loop() {
			for range 100 {
				start := time.Now()
				if _, err := l.Record(context.Background(), e); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds()), "µs-p50/row")
		b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "µs-p99/row")
	})
	b.Run("viewer-first-page", func(b *testing.B) {
		// What the audit viewer loads when it opens: the last 24 hours,
		// at most 2,000 rows, newest first.
		l := open(b)
		var n int
		for b.Loop() {
			rows, err := l.Rows(context.Background(), Filter{Since: now.Now().Add(-24 * time.Hour), Limit: 2000})
			if err != nil {
				b.Fatal(err)
			}
			n = len(rows)
		}
		b.ReportMetric(float64(n), "rows")
	})
	b.Run("viewer-everything-first-page", func(b *testing.B) {
		l := open(b)
		for b.Loop() {
			if rows, err := l.Rows(context.Background(), Filter{Limit: 2000}); err != nil || len(rows) != 2000 {
				b.Fatal(len(rows), err)
			}
		}
	})
	b.Run("filtered-query", func(b *testing.B) {
		// What one agent session had denied, over the whole year: no
		// index serves it, so every part is read.
		l := open(b)
		var n int
		for b.Loop() {
			rows, err := l.Rows(context.Background(), Filter{Agent: "s-250", Outcome: vocab.OutcomeDenied, Limit: 2000})
			if err != nil {
				b.Fatal(err)
			}
			n = len(rows)
		}
		b.ReportMetric(float64(n), "rows")
	})
	b.Run("verify-everything", func(b *testing.B) {
		var rep Report
		for b.Loop() {
			var err error
			if rep, err = VerifyFile(context.Background(), path, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(rep.Rows), "rows")
		b.ReportMetric(float64(rep.Parts), "parts")
	})
}
