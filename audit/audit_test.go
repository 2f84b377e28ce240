package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

func TestRecordStoresEveryColumn(t *testing.T) {
	l := openTest(t)
	target := tab
	target.Role, target.Name, target.Ref = "button", "Sign in", "e12"
	seq := mustRecord(t, l, Entry{
		Agent:    agent,
		Act:      vocab.Act{Kind: vocab.Click},
		Target:   target,
		Outcome:  vocab.OutcomeRefused,
		Code:     "stale_ref",
		Detail:   "The page changed since the snapshot.",
		Decision: "",
	})
	if seq != 1 {
		t.Fatalf("first seq = %d, want 1", seq)
	}
	rows := allRows(t, l)
	if len(rows) != 1 {
		t.Fatalf("got %d rows, want 1", len(rows))
	}
	r := rows[0]
	want := Row{
		Seq: 1, Time: time.Date(2025, 3, 4, 5, 6, 8, 0, time.UTC),
		AgentName: "Claude Code", AgentVersion: "2.1", AgentPID: 4242, AgentExe: "/usr/bin/claude", AgentSession: "s-1",
		Tab: "t7", TabTitle: "Sign in – Bank", Origin: "https://bank.example", FrameOrigin: "https://login.bank.example",
		ActKind: "click", Act: json.RawMessage(`{"kind":"click"}`),
		TargetRef: "e12", TargetRole: "button", TargetName: "Sign in",
		Phase: PhaseRecord, Outcome: vocab.OutcomeRefused, Code: "stale_ref", Detail: "The page changed since the snapshot.",
		PrevHash: zeroHash, Hash: r.Hash,
	}
	if !equalRows(r, want) {
		t.Errorf("row:\n got %+v\nwant %+v", r, want)
	}
	if len(r.Hash) != 64 || r.Hash == zeroHash {
		t.Errorf("hash = %q", r.Hash)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("a row must encode as JSON: %v", err)
	}
}

func equalRows(a, b Row) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestTimeIsStoredUTCWithFixedWidth(t *testing.T) {
	path := testPath(t)
	east := time.FixedZone("east", 5*3600)
	l := openAt(t, path, func() time.Time { return time.Date(2025, 1, 1, 12, 0, 0, 0, east) })
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	var text string
	if err := rawDB(t, path, "mode=ro").QueryRow("SELECT time FROM audit_rows").Scan(&text); err != nil {
		t.Fatal(err)
	}
	if text != "2025-01-01T07:00:00.000000000Z" {
		t.Errorf("time = %q, want UTC with nine fraction digits", text)
	}
}

func TestRowsFilters(t *testing.T) {
	l := openTest(t) // rows are one second apart from 05:06:08
	other := vocab.Agent{Name: "Codex", Session: "s-2"}
	news := vocab.Target{Tab: "t9", Origin: "https://news.example"}
	entries := []Entry{
		{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead},                              // 1  05:06:08
		{Agent: other, Act: vocab.Act{Kind: vocab.Read}, Target: news, Outcome: vocab.OutcomeRead},                             // 2  05:06:09
		{Agent: agent, Act: vocab.Act{Kind: vocab.Click}, Target: tab, Outcome: vocab.OutcomeDenied, Decision: "denied"},       // 3  05:06:10
		{Agent: other, Act: vocab.Act{Kind: vocab.Click}, Target: news, Outcome: vocab.OutcomeRefused, Code: "grant_required"}, // 4  05:06:11
		{Agent: agent, Act: vocab.Act{Kind: vocab.Scroll, DY: 3}, Target: news, Outcome: vocab.OutcomeTimeout},                 // 5  05:06:12
	}
	for _, e := range entries {
		mustRecord(t, l, e)
	}
	at := func(sec int) time.Time { return time.Date(2025, 3, 4, 5, 6, sec, 0, time.UTC) }
	cases := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all, newest first", Filter{}, []int64{5, 4, 3, 2, 1}},
		{"limit", Filter{Limit: 2}, []int64{5, 4}},
		{"since is inclusive", Filter{Since: at(10)}, []int64{5, 4, 3}},
		{"until is exclusive", Filter{Until: at(10)}, []int64{2, 1}},
		{"since and until", Filter{Since: at(9), Until: at(12)}, []int64{4, 3, 2}},
		{"since in another zone", Filter{Since: at(11).In(time.FixedZone("x", -7*3600))}, []int64{5, 4}},
		{"tab", Filter{Tab: "t9"}, []int64{5, 4, 2}},
		{"origin", Filter{Origin: "https://bank.example"}, []int64{3, 1}},
		{"frame origin", Filter{Origin: "https://login.bank.example"}, []int64{3, 1}},
		{"agent by name", Filter{Agent: "Codex"}, []int64{4, 2}},
		{"agent by session", Filter{Agent: "s-1"}, []int64{5, 3, 1}},
		{"act", Filter{Act: "click"}, []int64{4, 3}},
		{"outcome", Filter{Outcome: vocab.OutcomeRead}, []int64{2, 1}},
		{"combined", Filter{Agent: "Claude Code", Tab: "t7", Act: "click", Outcome: vocab.OutcomeDenied}, []int64{3}},
		{"nothing matches", Filter{Tab: "nope"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, err := l.Rows(context.Background(), c.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range rows {
				got = append(got, r.Seq)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("seqs = %v, want %v", got, c.want)
			}
		})
	}
}

func TestCommitAndFinish(t *testing.T) {
	l := openTest(t)
	target := tab
	target.Role, target.Name, target.Ref = "button", "Pay", "f2e4"
	a := approve(vocab.Act{Kind: vocab.Click}, target)
	p := Landing{X: 100.5, Y: 200.25, Scale: 2, Frame: "https://login.bank.example"}
	tk := mustCommit(t, l, a, p)
	if tk.Seq() != 1 || tk.Landing() != p || tk.Act().Kind != vocab.Click || !tk.Approved().Valid() {
		t.Fatalf("ticket = seq %d plan %+v act %+v", tk.Seq(), tk.Landing(), tk.Act())
	}
	seq, err := l.Finish(context.Background(), tk, vocab.OutcomeDone, "", "Clicked “Pay”.")
	if err != nil {
		t.Fatal(err)
	}
	if seq != 2 {
		t.Fatalf("outcome seq = %d, want 2", seq)
	}
	rows := allRows(t, l)
	fire, out := rows[1], rows[0]
	if fire.Phase != PhaseFire || fire.Outcome != vocab.OutcomeAboutToFire || fire.RefSeq != 0 {
		t.Errorf("fire row: phase %q outcome %q ref %d", fire.Phase, fire.Outcome, fire.RefSeq)
	}
	if fire.Decision != vocab.AllowOnce.String() {
		t.Errorf("decision = %q, want %q", fire.Decision, vocab.AllowOnce.String())
	}
	if fire.Detail != "Click “Pay”" {
		t.Errorf("fire detail = %q", fire.Detail)
	}
	var gotPlan Landing
	if err := json.Unmarshal(fire.Plan, &gotPlan); err != nil || gotPlan != p {
		t.Errorf("plan = %s (%v), want %+v", fire.Plan, err, p)
	}
	if out.Phase != PhaseOutcome || out.RefSeq != tk.Seq() || out.Outcome != vocab.OutcomeDone || out.Detail != "Clicked “Pay”." {
		t.Errorf("outcome row: %+v", out)
	}
	if out.Tab != "t7" || out.AgentSession != "s-1" || out.TargetName != "Pay" {
		t.Errorf("an outcome row names its agent and target too: %+v", out)
	}
	if out.PrevHash != fire.Hash {
		t.Errorf("the outcome row does not chain onto the fire row")
	}
	mustVerify(t, l, 2)
}

func TestCommitWithoutPlanStoresNone(t *testing.T) {
	l := openTest(t)
	tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Navigate, URL: "https://bank.example/pay"}, tab), Landing{})
	r := allRows(t, l)[0]
	if r.Plan != nil {
		t.Errorf("plan = %s, want none for a browser-level act", r.Plan)
	}
	if _, err := l.Finish(context.Background(), tk, vocab.OutcomeFailed, "navigation_failed", "The tab closed."); err != nil {
		t.Fatal(err)
	}
}

func TestCommitRefusesInvalidApproval(t *testing.T) {
	l := openTest(t)
	tk, err := l.Commit(context.Background(), approvals.Approved{}, Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrNotApproved) {
		t.Fatalf("err = %v, want ErrNotApproved", err)
	}
	if tk.Valid() {
		t.Fatal("an invalid approval produced a valid ticket")
	}
	if rows := allRows(t, l); len(rows) != 0 {
		t.Fatalf("an invalid approval wrote %d rows", len(rows))
	}
}

func TestCommitRefusesUnstorablePlan(t *testing.T) {
	l := openTest(t)
	nan := 0.0
	nan /= nan
	tk, err := l.Commit(context.Background(), approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: nan, Scale: 1})
	if !errors.Is(err, ErrWrite) || tk.Valid() {
		t.Fatalf("Commit(NaN plan) = valid %v, %v; want ErrWrite and an invalid ticket", tk.Valid(), err)
	}
	mustVerify(t, l, 0)
}

func TestFinishRefusals(t *testing.T) {
	ctx := context.Background()
	l := openTest(t)
	tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 2, Scale: 1})
	cases := []struct {
		name    string
		t       Ticket
		outcome string
	}{
		{"zero ticket", Ticket{}, vocab.OutcomeDone},
		{"test-only ticket", TestOnlyTicket(vocab.Act{Kind: vocab.Click}, Landing{}), vocab.OutcomeDone},
		{"about_to_fire is Commit's", tk, vocab.OutcomeAboutToFire},
		{"unknown outcome", tk, "ok"},
		{"ticket for a row this log does not have", Ticket{seq: 99, ok: true}, vocab.OutcomeDone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seq, err := l.Finish(ctx, c.t, c.outcome, "", "")
			if !errors.Is(err, ErrWrite) || seq != 0 {
				t.Fatalf("Finish = %d, %v; want ErrWrite", seq, err)
			}
			if strings.Contains(err.Error(), "nothing was done") {
				t.Errorf("a failed outcome write must not claim nothing was done: %v", err)
			}
		})
	}
	if _, err := l.Finish(ctx, tk, vocab.OutcomeDone, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Finish(ctx, tk, vocab.OutcomeFailed, "", ""); !errors.Is(err, ErrWrite) {
		t.Fatalf("second Finish of one ticket = %v, want ErrWrite", err)
	}
	// An outcome may only point at a fire row, even when written by hand.
	rec := mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	if _, err := l.Finish(ctx, Ticket{seq: rec, ok: true}, vocab.OutcomeDone, "", ""); !errors.Is(err, ErrWrite) {
		t.Fatalf("Finish pointing at a record row = %v, want ErrWrite", err)
	}
	mustVerify(t, l, 3)
}

func TestRecordRefusesOutcomesItDoesNotWrite(t *testing.T) {
	l := openTest(t)
	for _, o := range []string{"", vocab.OutcomeAboutToFire, "clicked"} {
		if _, err := l.Record(context.Background(), Entry{Agent: agent, Outcome: o}); !errors.Is(err, ErrWrite) {
			t.Errorf("Record(outcome %q) = %v, want ErrWrite", o, err)
		}
	}
	mustVerify(t, l, 0)
}

// The property the executor depends on: once Commit returns, the row is in
// the file for anyone to read, not only in this connection's view.
func TestCommitIsVisibleToAnIndependentConnection(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	ro := rawDB(t, path, "mode=ro&_busy_timeout=5000")
	for i := range 5 {
		tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: float64(i), Y: 1, Scale: 1})
		var phase, outcome string
		err := ro.QueryRow("SELECT phase, outcome FROM audit_rows WHERE seq = ?", tk.Seq()).Scan(&phase, &outcome)
		if err != nil {
			t.Fatalf("row %d not visible to a second connection after Commit returned: %v", tk.Seq(), err)
		}
		if phase != PhaseFire || outcome != vocab.OutcomeAboutToFire {
			t.Fatalf("row %d: %s/%s", tk.Seq(), phase, outcome)
		}
		if _, err := l.Finish(context.Background(), tk, vocab.OutcomeDone, "", ""); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSecretTextIsNeverStored(t *testing.T) {
	const secret = "hunter2-Sekrit-Ωmega"
	const ordinary = "ordinary-typed-words-42"
	path := testPath(t)
	l := openAt(t, path, newClock().Now)
	ctx := context.Background()

	// Every way a secret act reaches the log: committed, finished, recorded
	// as denied, and recorded as refused.
	secretAct := vocab.Act{Kind: vocab.Type, Text: secret, Secret: true, Submit: true}
	tk := mustCommit(t, l, approve(secretAct, tab), Landing{X: 10, Y: 20, Scale: 1})
	if _, err := l.Finish(ctx, tk, vocab.OutcomeDone, "", ""); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, l, Entry{Agent: agent, Act: secretAct, Target: tab, Outcome: vocab.OutcomeDenied, Decision: vocab.Deny.String()})
	mustRecord(t, l, Entry{Agent: agent, Act: secretAct, Target: tab, Outcome: vocab.OutcomeRefused, Code: "deny_listed_app"})
	plain := tab
	plain.Name, plain.Role = "Search", "searchbox"
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Type, Text: ordinary}, Target: plain, Outcome: vocab.OutcomeDone})

	for _, r := range allRows(t, l) {
		if strings.Contains(string(r.Act)+r.Detail, secret) {
			t.Fatalf("row %d holds the secret: %s %s", r.Seq, r.Act, r.Detail)
		}
		if r.TargetName == "Password" {
			var a map[string]any
			if err := json.Unmarshal(r.Act, &a); err != nil {
				t.Fatal(err)
			}
			if a["text_length"] != float64(len([]rune(secret))) || a["text"] != nil || a["secret"] != true {
				t.Errorf("row %d act = %s, want text_length %d and no text", r.Seq, r.Act, len([]rune(secret)))
			}
		}
	}
	if d := allRows(t, l)[4].Detail; d != "Type 20 characters into “Password” and press Enter" {
		t.Errorf("fire row detail = %q", d)
	}

	// While open, the rows live in the WAL; after Close, in the database.
	checkFiles := func(when string, files ...string) {
		t.Helper()
		var all []byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s: %s contains the secret text", when, filepath.Base(f))
			}
			all = append(all, b...)
		}
		if !bytes.Contains(all, []byte(ordinary)) {
			t.Errorf("%s: ordinary typed text is missing from %v", when, files)
		}
	}
	checkFiles("while open", path, path+"-wal")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	checkFiles("after close", path)
}

func TestFilesAreOwnerOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Reins", "data")
	path := filepath.Join(dir, "audit.db")
	l := openAt(t, path, nil)
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", filepath.Base(f), st.Mode().Perm())
		}
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		st, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o700 {
			t.Errorf("%s mode = %v, want 0700", d, st.Mode().Perm())
		}
	}
}

func TestOpenTightensAnExistingFile(t *testing.T) {
	path := testPath(t)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	openAt(t, path, nil)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
}

func TestOpenSetsDurablePragmas(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	var mode string
	var sync, fk, busy, full int
	for q, dst := range map[string]any{
		"PRAGMA journal_mode": &mode, "PRAGMA synchronous": &sync,
		"PRAGMA foreign_keys": &fk, "PRAGMA busy_timeout": &busy,
		"PRAGMA fullfsync": &full,
	} {
		if err := l.w.conn.QueryRowContext(ctx, q).Scan(dst); err != nil {
			t.Fatal(err)
		}
	}
	if mode != "wal" || sync != 2 || fk != 1 || busy <= 0 || full != 1 {
		t.Errorf("journal_mode %q synchronous %d foreign_keys %d busy_timeout %d fullfsync %d", mode, sync, fk, busy, full)
	}
}

func TestReopenContinuesTheChain(t *testing.T) {
	path := testPath(t)
	c := newClock()
	l := openAt(t, path, c.Now)
	for range 3 {
		mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead})
	}
	tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = openAt(t, path, c.Now)
	// A ticket from before the restart can still be finished: its row is there.
	if seq, err := l.Finish(context.Background(), tk, vocab.OutcomeFailed, "restarted", "Reins restarted before the act completed."); err != nil || seq != 5 {
		t.Fatalf("Finish after reopen = %d, %v", seq, err)
	}
	if seq := mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Outcome: vocab.OutcomeRead}); seq != 6 {
		t.Fatalf("seq after reopen = %d, want 6", seq)
	}
	mustVerify(t, l, 6)
	rows := allRows(t, l)
	if rows[1].PrevHash != rows[2].Hash {
		t.Error("the first row after reopening does not chain onto the last row before")
	}
}

func TestOpenRejectsOtherDatabases(t *testing.T) {
	ctx := context.Background()
	t.Run("somebody else's", func(t *testing.T) {
		path := testPath(t)
		db := rawDB(t, path, "")
		if _, err := db.Exec("CREATE TABLE notes (x TEXT)"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if _, err := Open(ctx, Options{Path: path}); err == nil || !strings.Contains(err.Error(), "not a Reins audit log") {
			t.Fatalf("Open = %v, want a refusal", err)
		}
	})
	t.Run("newer schema", func(t *testing.T) {
		path := testPath(t)
		l := openAt(t, path, nil)
		l.Close()
		db := rawDB(t, path, "")
		if _, err := db.Exec("PRAGMA user_version = 7"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if _, err := Open(ctx, Options{Path: path}); err == nil || !strings.Contains(err.Error(), "newer Reins") {
			t.Fatalf("Open = %v, want a refusal naming a newer Reins", err)
		}
	})
	t.Run("no path", func(t *testing.T) {
		if _, err := Open(ctx, Options{}); err == nil {
			t.Fatal("Open without a path succeeded")
		}
	})
}

func TestConcurrentWritersKeepTheChain(t *testing.T) {
	l := openAt(t, testPath(t), nil)
	ctx := context.Background()
	const writers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				var err error
				if i%4 == 3 {
					var tk Ticket
					tk, err = l.Commit(ctx, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: float64(w), Y: float64(i), Scale: 1})
					if err == nil {
						_, err = l.Finish(ctx, tk, vocab.OutcomeDone, "", "")
					}
				} else {
					_, err = l.Record(ctx, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Detail: fmt.Sprintf("w%d i%d", w, i), Outcome: vocab.OutcomeRead})
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	// Readers run alongside the writers: they must neither block them nor
	// see a broken chain.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := l.Verify(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := l.Rows(ctx, Filter{Limit: 10}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := writers * (each + each/4)
	mustVerify(t, l, want)
	rows := allRows(t, l)
	if len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for i, r := range rows {
		if r.Seq != int64(want-i) {
			t.Fatalf("row %d has seq %d", i, r.Seq)
		}
	}
}

func TestCancelledContextWritesNothing(t *testing.T) {
	l := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tk, err := l.Commit(ctx, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrWrite) || !errors.Is(err, context.Canceled) || tk.Valid() {
		t.Fatalf("Commit = valid %v, %v", tk.Valid(), err)
	}
	mustVerify(t, l, 0)
	mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	mustVerify(t, l, 1)
}
