package audit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

// fill writes a mix of every kind of row: n records, then a fire and its outcome.
func fill(t *testing.T, l *Log, n int) {
	t.Helper()
	for i := range n {
		mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead, Detail: "snapshot " + string(rune('a'+i))})
	}
	tk := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Type, Text: "hello"}, tab), Landing{X: 3, Y: 4, Scale: 1.5})
	if _, err := l.Finish(context.Background(), tk, vocab.OutcomeDone, "", "Typed."); err != nil {
		t.Fatal(err)
	}
}

// tamper runs stmts through a raw connection, as someone with the sqlite3
// shell would, after dropping the triggers that stand in their way.
func tamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db := rawDB(t, path, "")
	all := append([]string{
		"DROP TRIGGER audit_rows_no_update",
		"DROP TRIGGER audit_rows_no_delete",
	}, stmts...)
	for _, s := range all {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
}

func wantTampered(t *testing.T, l *Log, seq int64, intact int) {
	t.Helper()
	n, err := l.Verify(context.Background())
	var te *TamperedError
	t.Logf("Verify: %v", err)
	if !errors.Is(err, ErrTampered) || !errors.As(err, &te) {
		t.Fatalf("Verify = %d, %v; want ErrTampered", n, err)
	}
	if te.Seq != seq {
		t.Errorf("first bad row = %d, want %d (%v)", te.Seq, seq, err)
	}
	if n != intact {
		t.Errorf("intact rows = %d, want %d", n, intact)
	}
}

func TestVerifyPassesOnAGoodLog(t *testing.T) {
	l := openTest(t)
	mustVerify(t, l, 0)
	fill(t, l, 5)
	mustVerify(t, l, 7)
}

func TestTriggersRefuseUpdateAndDelete(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 2)
	db := rawDB(t, path, "")
	for _, s := range []string{
		"UPDATE audit_rows SET detail = 'nothing happened' WHERE seq = 1",
		"DELETE FROM audit_rows WHERE seq = 1",
		"DELETE FROM audit_rows",
	} {
		_, err := db.Exec(s)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: err = %v, want the append-only refusal", s, err)
		}
	}
	mustVerify(t, l, 4)
}

func TestVerifyFindsAnEditedRow(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 5)
	tamper(t, path, "UPDATE audit_rows SET outcome = 'denied' WHERE seq = 3")
	wantTampered(t, l, 3, 2)
}

func TestVerifyFindsAnEditedRowAfterReopen(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 5)
	l.Close()
	tamper(t, path, "UPDATE audit_rows SET agent_name = 'Someone else' WHERE seq = 6")
	l = openAt(t, path, nil)
	wantTampered(t, l, 6, 5)
}

func TestVerifyFindsADeletedRow(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 5)
	tamper(t, path, "DELETE FROM audit_rows WHERE seq = 4")
	wantTampered(t, l, 4, 3)
}

func TestVerifyFindsARenumberedRow(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 5)
	// Hide row 4 by shifting the rows after it down, keeping seq gapless.
	tamper(t, path,
		"DELETE FROM audit_rows WHERE seq = 4",
		"UPDATE audit_rows SET seq = seq - 1 WHERE seq = 5",
	)
	wantTampered(t, l, 4, 3)
}

func TestVerifyFindsARemovedTailWhileOpen(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 5)
	// What remains is a whole chain; only the open log knows it wrote more.
	tamper(t, path, "DELETE FROM audit_rows WHERE seq >= 6")
	wantTampered(t, l, 6, 5)
	// And it will not write onto the shortened chain.
	tk, err := l.Commit(context.Background(), approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 1, Scale: 1})
	if !errors.Is(err, ErrWrite) || !errors.Is(err, ErrTampered) || tk.Valid() {
		t.Fatalf("Commit onto a shortened chain = valid %v, %v", tk.Valid(), err)
	}
}

func TestVerifyFindsARewrittenChainWhileOpen(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 2)
	// A careful forger edits the last row and recomputes its hash.
	db := rawDB(t, path, "")
	r, err := scanRecord(db.QueryRow("SELECT " + columns + " FROM audit_rows WHERE seq = 4"))
	if err != nil {
		t.Fatal(err)
	}
	r.outcome = vocab.OutcomeFailed
	r.hash = r.sum()
	db.Close()
	tamper(t, path, "UPDATE audit_rows SET outcome = 'failed', hash = '"+r.hash+"' WHERE seq = 4")
	wantTampered(t, l, 4, 3)
}

func TestVerifyFindsAForeignRowAppended(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 1)
	db := rawDB(t, path, "")
	r, err := scanRecord(db.QueryRow("SELECT " + columns + " FROM audit_rows WHERE seq = 3"))
	if err != nil {
		t.Fatal(err)
	}
	r.seq, r.prevHash, r.refSeq, r.phase, r.outcome = 4, r.hash, sql.NullInt64{}, PhaseRecord, vocab.OutcomeRead
	r.hash = r.sum()
	if _, err := db.Exec("INSERT INTO audit_rows ("+columns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", r.args()...); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// The chain is whole, but the log did not write row 4 and will not
	// write after it.
	if _, err := l.Record(context.Background(), Entry{Agent: agent, Outcome: vocab.OutcomeRead}); !errors.Is(err, ErrTampered) {
		t.Fatalf("Record after a foreign row = %v, want ErrTampered", err)
	}
}

func TestOpenRestoresDroppedTriggers(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 1)
	l.Close()
	db := rawDB(t, path, "")
	for _, s := range []string{
		"DROP TRIGGER audit_rows_no_update",
		"DROP TRIGGER audit_rows_no_delete",
		// A trigger of the same name that lets everything through.
		"CREATE TRIGGER audit_rows_no_delete BEFORE DELETE ON audit_rows BEGIN SELECT 1; END",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	openAt(t, path, nil)
	for _, s := range []string{"UPDATE audit_rows SET detail = '' WHERE seq = 1", "DELETE FROM audit_rows WHERE seq = 1"} {
		if _, err := db.Exec(s); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s after reopen: %v, want the append-only refusal", s, err)
		}
	}
}

// The chain can be checked by anyone who reads the package documentation:
// this recomputes it from raw SQL values, without record or sum.
func TestChainMatchesTheDocumentedEncoding(t *testing.T) {
	path := testPath(t)
	l := openAt(t, path, nil)
	fill(t, l, 3)
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Hover}, Target: vocab.Target{Desktop: true}, Outcome: vocab.OutcomeRefused, Code: "deny_listed_app"})
	l.Close()

	db := rawDB(t, path, "mode=ro")
	rows, err := db.Query("SELECT * FROM audit_rows ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	names, _ := rows.Columns()
	prev := strings.Repeat("0", 64)
	n := 0
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		b := []byte(prev)
		var stored, storedPrev string
		for i, name := range names {
			switch v := vals[i].(type) {
			case int64:
				if name == "ref_seq" {
					b = append(b, 1)
				}
				b = binary.BigEndian.AppendUint64(b, uint64(v))
			case string:
				switch name {
				case "hash":
					stored = v
					continue
				case "prev_hash":
					storedPrev = v
					continue
				}
				b = binary.BigEndian.AppendUint64(b, uint64(len(v)))
				b = append(b, v...)
			case nil:
				b = append(b, 0)
			default:
				t.Fatalf("column %s holds %T", name, v)
			}
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != stored || storedPrev != prev {
			t.Fatalf("row %d: recomputed %s, stored %s (prev %s, want %s)", n+1, got, stored, storedPrev, prev)
		}
		prev = stored
		n++
	}
	if n != 6 {
		t.Fatalf("checked %d rows, want 6", n)
	}
}
