package audit

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

// clock is a test clock that ticks one second per reading, so every row
// has its own time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func testPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "audit.db")
}

func openAt(t testing.TB, path string, now func() time.Time) *Log {
	t.Helper()
	l, err := Open(context.Background(), Options{Path: path, Now: now})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func openTest(t testing.TB) *Log {
	t.Helper()
	return openAt(t, testPath(t), newClock().Now)
}

// rawDB opens the file the way a person with the sqlite3 shell would:
// read-write, with none of the log's rules.
func rawDB(t testing.TB, path, query string) *sql.DB {
	t.Helper()
	if query == "" {
		query = "_busy_timeout=5000"
	}
	db, err := sql.Open("sqlite", dsn(path, query))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var agent = vocab.Agent{Name: "Claude Code", Version: "2.1", PID: 4242, Exe: "/usr/bin/claude", Session: "s-1"}

var tab = vocab.Target{
	Tab: "t7", TabTitle: "Sign in – Bank", Origin: "https://bank.example",
	FrameOrigin: "https://login.bank.example", Ref: "f2e9", Role: "textbox", Name: "Password",
}

func approve(act vocab.Act, target vocab.Target) approvals.Approved {
	return approvals.TestOnlyApproved(vocab.Request{ID: "r1", Agent: agent, Act: act, Target: target})
}

func mustRecord(t testing.TB, l *Log, e Entry) int64 {
	t.Helper()
	seq, err := l.Record(context.Background(), e)
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	return seq
}

func mustCommit(t testing.TB, l *Log, a approvals.Approved, p Landing) Ticket {
	t.Helper()
	tk, err := l.Commit(context.Background(), a, p)
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if !tk.Valid() {
		t.Fatal("Commit returned no error and an invalid ticket")
	}
	return tk
}

func mustVerify(t testing.TB, l *Log, want int) {
	t.Helper()
	n, err := l.Verify(context.Background())
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if n != want {
		t.Fatalf("Verify checked %d rows, want %d", n, want)
	}
}

func allRows(t testing.TB, l *Log) []Row {
	t.Helper()
	rows, err := l.Rows(context.Background(), Filter{})
	if err != nil {
		t.Fatalf("Rows: %v", err)
	}
	return rows
}
