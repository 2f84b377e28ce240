package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

// As root, chmod does not stop a write, so faults are made inside SQLite:
// max_page_count for a full disk, a query_only or mode=ro connection for a
// read-only file.

func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	l := openTest(t)
	for range 3 {
		mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	}
	var pages int
	if err := l.w.conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := l.w.conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}

	// Text longer than a page needs new pages, which the "disk" refuses.
	big := vocab.Act{Kind: vocab.Type, Text: strings.Repeat("long text ", 2000)}
	tk, err := l.Commit(ctx, approve(big, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrWrite) {
		t.Fatalf("Commit on a full disk = %v, want ErrWrite", err)
	}
	if tk.Valid() || tk.Seq() != 0 {
		t.Fatalf("Commit on a full disk returned a usable ticket (seq %d)", tk.Seq())
	}
	t.Logf("full disk: %v", err)
	if !strings.Contains(err.Error(), "disk is full") {
		t.Errorf("the error should tell the person the disk is full: %v", err)
	}
	if _, err := l.Record(ctx, Entry{Agent: agent, Act: big, Outcome: vocab.OutcomeDenied}); !errors.Is(err, ErrWrite) {
		t.Fatalf("Record on a full disk = %v, want ErrWrite", err)
	}
	mustVerify(t, l, 3)

	// Space comes back: the next row follows row 3, as if the failures never
	// happened.
	if _, err := l.w.conn.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	tk = mustCommit(t, l, approve(big, tab), Landing{X: 1, Y: 1, Scale: 1})
	if tk.Seq() != 4 {
		t.Fatalf("seq after the disk recovered = %d, want 4", tk.Seq())
	}
	if _, err := l.Finish(ctx, tk, vocab.OutcomeDone, "", ""); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, l, 5)
}

func TestReadOnlyConnection(t *testing.T) {
	ctx := context.Background()
	l := openTest(t)
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	if _, err := l.w.conn.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		t.Fatal(err)
	}
	tk, err := l.Commit(ctx, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	t.Logf("read-only connection: %v", err)
	if !errors.Is(err, ErrWrite) || tk.Valid() {
		t.Fatalf("Commit on a read-only connection = valid %v, %v; want ErrWrite", tk.Valid(), err)
	}
	if _, err := l.w.conn.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		t.Fatal(err)
	}
	if tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1}); tk.Seq() != 2 {
		t.Fatalf("seq = %d, want 2", tk.Seq())
	}
	mustVerify(t, l, 2)
}

func TestReadOnlyFile(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	l := openAt(t, path, nil)
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})

	// The writer's connection swapped for one that opened the file
	// read-only, as when the file or its disk cannot be written.
	ro, err := newWriter(ctx, rawDB(t, path, "mode=ro&_busy_timeout=5000"), head{seq: 0, hash: zeroHash})
	if err != nil {
		t.Fatal(err)
	}
	rw := l.w
	l.w = ro
	tk, err := l.Commit(ctx, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrWrite) || tk.Valid() {
		t.Fatalf("Commit on a read-only file = valid %v, %v; want ErrWrite", tk.Valid(), err)
	}
	t.Logf("read-only file: %v", err)
	if !strings.Contains(err.Error(), "read-only") {
		t.Errorf("the error should say the file is read-only: %v", err)
	}
	l.w = rw
	ro.close()
	mustVerify(t, l, 1)
	if tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1}); tk.Seq() != 2 {
		t.Fatalf("seq = %d, want 2", tk.Seq())
	}
}

func TestClosedLog(t *testing.T) {
	ctx := context.Background()
	l := openTest(t)
	tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("a second Close = %v", err)
	}
	got, err := l.Commit(ctx, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrWrite) || got.Valid() {
		t.Fatalf("Commit after Close = valid %v, %v; want ErrWrite", got.Valid(), err)
	}
	t.Logf("closed: %v", err)
	if !strings.Contains(err.Error(), "closed") {
		t.Errorf("error should say the log is closed: %v", err)
	}
	if _, err := l.Record(ctx, Entry{Agent: agent, Outcome: vocab.OutcomeRead}); !errors.Is(err, ErrWrite) {
		t.Errorf("Record after Close = %v, want ErrWrite", err)
	}
	if _, err := l.Finish(ctx, tk, vocab.OutcomeDone, "", ""); !errors.Is(err, ErrWrite) {
		t.Errorf("Finish after Close = %v, want ErrWrite", err)
	}
	if _, err := l.Rows(ctx, Filter{}); err == nil {
		t.Error("Rows after Close succeeded")
	}
	if _, err := l.Verify(ctx); err == nil {
		t.Error("Verify after Close succeeded")
	}
}

// A row Commit reported is in the file even if Reins dies the next instant:
// a child process commits, says so, and is killed without closing anything.
func TestCommitSurvivesTheProcessDying(t *testing.T) {
	if os.Getenv("AUDIT_TEST_CHILD_PATH") != "" {
		t.Skip("running as the child")
	}
	path := testPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCommitThenHang$", "-test.v")
	cmd.Env = append(os.Environ(), "AUDIT_TEST_CHILD_PATH="+path)
	testenv.OwnGroup(cmd)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()

	seqc := make(chan int64, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
				n, _ := strconv.ParseInt(s, 10, 64)
				seqc <- n
				break
			}
		}
		for sc.Scan() { // keep the pipe drained until the child dies
		}
	}()
	var seq int64
	select {
	case seq = <-seqc:
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not commit in time")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	l := openAt(t, path, nil)
	mustVerify(t, l, int(seq))
	rows := allRows(t, l)
	if len(rows) == 0 || rows[0].Seq != seq || rows[0].Phase != PhaseFire {
		t.Fatalf("after the kill the newest row is %+v, want fire row %d", rows, seq)
	}
}

// TestHelperCommitThenHang is the child of TestCommitSurvivesTheProcessDying.
func TestHelperCommitThenHang(t *testing.T) {
	path := os.Getenv("AUDIT_TEST_CHILD_PATH")
	if path == "" {
		t.Skip("only runs as a child process")
	}
	l, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	fmt.Printf("committed %d\n", tk.Seq())
	os.Stdout.Sync()
	time.Sleep(time.Minute) // killed long before
}
