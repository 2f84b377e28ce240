package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// schemaVersion is PRAGMA user_version of a log this code writes. Version
// 2 added the delivery marks (audit_delivery); a version 1 log gains that
// table when it is opened, and its rows stay as they were.
const schemaVersion = 2

// applicationID marks the file as a Reins audit log ("Rein"), so that Open
// never adopts somebody else's database.
const applicationID = 0x5265696e

// The table is STRICT so that a value of the wrong type cannot stand in for
// the one that was hashed (an integer 7 read back as the text "7").
const createTable = `CREATE TABLE audit_rows (
	seq           INTEGER PRIMARY KEY,
	time          TEXT    NOT NULL,
	agent_name    TEXT    NOT NULL,
	agent_version TEXT    NOT NULL,
	agent_pid     INTEGER NOT NULL,
	agent_exe     TEXT    NOT NULL,
	agent_session TEXT    NOT NULL,
	tab           TEXT    NOT NULL,
	tab_title     TEXT    NOT NULL,
	origin        TEXT    NOT NULL,
	frame_origin  TEXT    NOT NULL,
	desktop       INTEGER NOT NULL CHECK (desktop IN (0, 1)),
	act_kind      TEXT    NOT NULL,
	act_json      TEXT    NOT NULL,
	target_ref    TEXT    NOT NULL,
	target_role   TEXT    NOT NULL,
	target_name   TEXT    NOT NULL,
	phase         TEXT    NOT NULL CHECK (phase IN ('record', 'fire', 'outcome')),
	ref_seq       INTEGER REFERENCES audit_rows (seq),
	outcome       TEXT    NOT NULL,
	code          TEXT    NOT NULL,
	detail        TEXT    NOT NULL,
	plan_json     TEXT    NOT NULL,
	decision      TEXT    NOT NULL,
	prev_hash     TEXT    NOT NULL,
	hash          TEXT    NOT NULL,
	CHECK ((phase = 'outcome') = (ref_seq IS NOT NULL))
) STRICT`

// createDelivery holds, per destination outside the database, the newest
// row it has taken: the database is the queue, and a row is sent again
// until the mark passes it. The marks are not part of the chain; a mark
// set back only sends rows again, which receivers take as duplicates.
const createDelivery = `CREATE TABLE audit_delivery (
	destination  TEXT    PRIMARY KEY,
	seq          INTEGER NOT NULL,
	acknowledged INTEGER NOT NULL CHECK (acknowledged IN (0, 1)),
	time         TEXT    NOT NULL
) STRICT`

var createIndexes = []string{
	// One outcome per fire row: a second Finish of the same ticket fails.
	`CREATE UNIQUE INDEX audit_rows_outcome ON audit_rows (ref_seq) WHERE ref_seq IS NOT NULL`,
	`CREATE INDEX audit_rows_time ON audit_rows (time)`,
	`CREATE INDEX audit_rows_tab ON audit_rows (tab)`,
}

// triggers are compared with the schema at every Open and restored when
// someone has dropped or replaced them.
var triggers = map[string]string{
	"audit_rows_no_update": `CREATE TRIGGER audit_rows_no_update BEFORE UPDATE ON audit_rows
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: its rows cannot be changed'); END`,
	"audit_rows_no_delete": `CREATE TRIGGER audit_rows_no_delete BEFORE DELETE ON audit_rows
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: its rows cannot be deleted'); END`,
	"audit_rows_outcome_of_fire": `CREATE TRIGGER audit_rows_outcome_of_fire BEFORE INSERT ON audit_rows
WHEN NEW.phase = 'outcome' AND (SELECT phase FROM audit_rows WHERE seq = NEW.ref_seq) IS NOT 'fire'
BEGIN SELECT RAISE(ABORT, 'an outcome row must point at an about-to-fire row'); END`,
}

// columns lists the table's columns in hash order, then the two hash columns.
const columns = `seq, time, agent_name, agent_version, agent_pid, agent_exe, agent_session,
	tab, tab_title, origin, frame_origin, desktop, act_kind, act_json,
	target_ref, target_role, target_name, phase, ref_seq, outcome, code, detail,
	plan_json, decision, prev_hash, hash`

const insertRow = `INSERT INTO audit_rows (` + columns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const selectHead = `SELECT seq, hash FROM audit_rows ORDER BY seq DESC LIMIT 1`

// dsn names path as a SQLite URI, so that SQLite's own parameters (mode=ro)
// apply and a path holding '?' or '#' stays one path.
func dsn(path, query string) string {
	u := url.URL{Scheme: "file", Path: path, OmitHost: true}
	return u.String() + "?" + query
}

// setupSchema creates the schema in an empty file, or checks that an
// existing one is ours and of a version this code writes.
func setupSchema(ctx context.Context, db *sql.DB) error {
	var app, version int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	var objects int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&objects); err != nil {
		return err
	}
	switch {
	case app == 0 && version == 0 && objects == 0:
		return createSchema(ctx, db)
	case app != applicationID:
		return errors.New("this file is not a Reins audit log; choose another path")
	case version > schemaVersion:
		return fmt.Errorf("this audit log was written by a newer Reins (schema %d, this one knows %d); update Reins", version, schemaVersion)
	case version == 1:
		if err := migrateFrom1(ctx, db); err != nil {
			return err
		}
	case version != schemaVersion:
		return fmt.Errorf("this audit log has an unknown schema version %d", version)
	}
	return restoreTriggers(ctx, db)
}

func createSchema(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := append([]string{createTable, createDelivery}, createIndexes...)
	for _, name := range triggerNames() {
		stmts = append(stmts, triggers[name])
	}
	stmts = append(stmts,
		fmt.Sprintf("PRAGMA application_id = %d", applicationID),
		fmt.Sprintf("PRAGMA user_version = %d", schemaVersion))
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("creating the audit log: %w", err)
		}
	}
	return tx.Commit()
}

// migrateFrom1 adds what version 2 has that version 1 lacks.
func migrateFrom1(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range []string{createDelivery, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("updating the audit log to schema %d: %w", schemaVersion, err)
		}
	}
	return tx.Commit()
}

func triggerNames() []string {
	return []string{"audit_rows_no_update", "audit_rows_no_delete", "audit_rows_outcome_of_fire"}
}

// restoreTriggers puts back the append-only triggers exactly as written here.
// The chain already shows any edit made while they were gone; this only
// stops the next accident.
func restoreTriggers(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_rows'`)
	if err != nil {
		return err
	}
	have := map[string]string{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			rows.Close()
			return err
		}
		have[name] = text
	}
	if err := rows.Close(); err != nil {
		return err
	}
	same := len(have) == len(triggers)
	for name, text := range triggers {
		same = same && strings.TrimSpace(have[name]) == text
	}
	if same {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for name := range have {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
			return fmt.Errorf("restoring the audit log's triggers: %w", err)
		}
	}
	for _, name := range triggerNames() {
		if _, err := tx.ExecContext(ctx, triggers[name]); err != nil {
			return fmt.Errorf("restoring the audit log's triggers: %w", err)
		}
	}
	return tx.Commit()
}

// writer is the one connection that appends, with its statements prepared.
// Transactions are plain BEGIN IMMEDIATE / COMMIT / ROLLBACK statements on
// it, so that after any failure the connection is known to be back outside a
// transaction.
type writer struct {
	conn   *sql.Conn
	insert *sql.Stmt
	head   *sql.Stmt
	base   head // the head while the file holds no row: the last sealed part's
}

func newWriter(ctx context.Context, db *sql.DB, base head) (*writer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	w := &writer{conn: conn, base: base}
	if w.insert, err = conn.PrepareContext(ctx, insertRow); err != nil {
		w.close()
		return nil, err
	}
	if w.head, err = conn.PrepareContext(ctx, selectHead); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *writer) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{w.insert, w.head} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(append(errs, w.conn.Close())...)
}

// last reads the head of the chain from the file.
func (w *writer) last(ctx context.Context) (head, error) {
	var h head
	err := w.head.QueryRowContext(ctx).Scan(&h.seq, &h.hash)
	if errors.Is(err, sql.ErrNoRows) {
		return w.base, nil
	}
	return h, err
}

// append writes r in its own transaction, after checking under the write
// lock that the file's head is still the one r was chained onto: a row
// written or removed behind the log's back must not be papered over.
func (w *writer) append(ctx context.Context, want head, r *record) (err error) {
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// Errors such as a full disk may have rolled back already; a
			// second rollback then only reports that none is active.
			w.conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	got, err := w.last(ctx)
	if err != nil {
		return err
	}
	if got != want {
		// The first row that differs: the changed head itself, or the
		// first row one side has and the other lacks.
		seq := min(got.seq, want.seq) + 1
		if got.seq == want.seq {
			seq = got.seq
		}
		return &TamperedError{Seq: seq, Why: fmt.Sprintf("the newest row is %d but Reins last wrote %d; another program changed the log", got.seq, want.seq)}
	}
	if _, err := w.insert.ExecContext(ctx, r.args()...); err != nil {
		return err
	}
	_, err = w.conn.ExecContext(ctx, "COMMIT")
	return err
}

// explain puts a person's words on SQLite's failures.
func explain(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("the disk is full; free some space and try again: %w", err)
	case sqlite3.SQLITE_READONLY:
		return fmt.Errorf("the log file is read-only; make it writable and restart Reins: %w", err)
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("another program holds the log locked; close it and try again: %w", err)
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
		return fmt.Errorf("the disk reported an error; check the disk, then restart Reins: %w", err)
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("the log file is damaged; move it aside and restart Reins: %w", err)
	}
	return err
}
