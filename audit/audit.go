// Package audit is Reins' record of every attempt an agent makes: reads,
// refusals, denials and acts. It is one append-only, hash-chained SQLite
// table, kept in a file only its owner may read.
//
// # Committed before firing
//
// An act is written twice. [Log.Commit] appends the "about to fire" row and
// returns a [Ticket] only after that row is durably committed (WAL with
// synchronous=FULL), and the executor fires nothing without a valid ticket.
// [Log.Finish] then appends what happened, pointing back at that row. When
// the first write fails for any reason — a full disk, a read-only file, a
// closed log — Commit returns an error wrapping [ErrWrite] and an invalid
// ticket, so the act never happens without its trace. Reads, refusals and
// denials are single rows written with [Log.Record].
//
// # Secrets
//
// Text typed into password and payment fields ([vocab.Act.Secret]) is
// never written, not even to the write-ahead log: the stored act carries
// "text_length" in its place. Ordinary typed text is stored, because the
// person needs to see what an agent typed on their behalf.
//
// # The chain
//
// Triggers refuse UPDATE and DELETE, which stops mistakes but not a person
// with the sqlite3 shell, who can drop them. The hash chain makes such edits
// evident: each row's hash is the lowercase hex SHA-256 of its prev_hash (as
// stored, 64 hex digits; 64 zeros for the first row) followed by every other
// column in table order — seq, time, agent_name, agent_version, agent_pid,
// agent_exe, agent_session, tab, tab_title, origin, frame_origin, desktop,
// act_kind, act_json, target_ref, target_role, target_name, phase, ref_seq,
// outcome, code, detail, plan_json, decision — where an integer is 8 bytes
// big-endian, a text is its byte length as 8 bytes big-endian followed by
// its UTF-8 bytes, and ref_seq, the one column that may be NULL, is a single
// 0 byte when NULL or a 1 byte followed by the integer. Anyone can recompute
// it without Reins; [Log.Verify] does, and also notices missing rows, since
// seq counts up from 1 without gaps.
//
// Deleting the newest rows leaves a shorter chain that is still whole. The
// open log notices that too, because it remembers the head it wrote, but a
// log that was truncated while Reins was not running cannot be told from a
// shorter one; that is the limit of a chain kept in the file it protects.
//
// # The anchor
//
// So every committed row also leaves the process ([Options.Anchor]): its
// seq and hash as one line to the system log (syslog(3): journald or
// rsyslog on Linux, the unified log on macOS), in the form [AnchorLine]
// writes, and the row to each receiver the settings name. A syslog
// receiver over plain TCP gets the same line; over TLS (RFC 5425, its
// certificate checked against the system's roots or a CA file, a client
// certificate shown when it asks) it gets the whole row as RFC 5424
// structured data ([RowSDID]); an OpenTelemetry collector gets whole rows
// as log records over OTLP/HTTP with JSON bodies. Secret text is in no
// copy: the rows are as the database holds them.
//
// The database is the queue. Each receiver has a delivery mark in it
// ([Delivery]), and a forwarder sends the rows past the mark, in order,
// whenever one is written and after every reconnect, with backoff: a
// receiver away for a day, or Reins stopped meanwhile, still gets every
// row. A collector acknowledges each request. Syslog acknowledges
// nothing, so after each reconnect the last [AnchorOptions.ResendWindow]
// rows are sent again, and [VerifyStream], the receiving side's check,
// takes a row received twice with the same hash as one.
//
// [VerifyFile] compares the chain with what a receiver kept, as
// [ReadAnchor] finds it, and so sees a cut tail and a rewritten chain.
// The system log is best effort: when it cannot be reached, rows are
// written all the same and [Log.Anchor] says so. A receiver marked
// required is not: while it does not take rows, [Log.Commit] refuses
// every act with [ErrAnchorUnreachable]; reads, refusals and denials are
// still written, and wait in the database for it. With
// [AnchorOptions.RequireAnchor], acts are refused while no copy leaves
// the database at all ([ErrUnanchored]).
//
// # Parts
//
// With [Options.Retention], the log is kept in parts: the live file, and
// beside it read-only sealed parts, each ending with a row that seals it
// and followed by a part whose first row names the sealed hash. Reads,
// forwarding and verification go across the parts; retention removes the
// oldest by age or size, never one holding a row a receiver has not
// taken, and writes a row for each removal, which is what lets a chain
// that no longer starts at row 1 verify.
package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/vocab"
)

// Phases of a row.
const (
	PhaseRecord  = "record"  // a complete attempt in one row: a read, a refusal, a denial
	PhaseFire    = "fire"    // an approved act about to fire
	PhaseOutcome = "outcome" // what happened to an earlier fire row (RefSeq)
)

func knownOutcome(s string) bool {
	switch s {
	case vocab.OutcomeDone, vocab.OutcomeRead, vocab.OutcomeRefused, vocab.OutcomeDenied, vocab.OutcomeTimeout, vocab.OutcomeFailed, vocab.OutcomeUnknown:
		return true
	}
	return false
}

// ErrWrite is wrapped by every error from a write that did not happen. For
// [Log.Commit] it means the act must not fire.
var ErrWrite = errors.New("the audit log could not be written, so nothing was done")

// ErrTampered is wrapped by a [*TamperedError] when rows were changed or
// removed after they were written.
var ErrTampered = errors.New("the audit log was changed outside Reins; keep a copy of the file as evidence (rows before the one named are intact)")

// ErrNotApproved is returned by [Log.Commit] for an approval the approvals
// package did not issue.
var ErrNotApproved = errors.New("this act has no valid approval from the person, so it was not recorded as about to fire and must not fire")

// TamperedError names the first row at which the chain breaks.
type TamperedError struct {
	Seq int64  // the first bad or missing row
	Why string // what is wrong with it
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("audit row %d: %s: %v", e.Seq, e.Why, ErrTampered)
}

func (e *TamperedError) Unwrap() error { return ErrTampered }

// finishError is a failed outcome write. It counts as ErrWrite, but its words
// must not claim that nothing was done: the act has already run.
type finishError struct {
	seq int64
	err error
}

func (e *finishError) Error() string {
	return fmt.Sprintf("the audit log could not record the outcome of row %d (the act had already run): %v", e.seq, e.err)
}

func (e *finishError) Is(target error) bool { return target == ErrWrite }
func (e *finishError) Unwrap() error        { return e.err }

// errClosed says why a write after Close fails.
var errClosed = errors.New("the audit log is closed (Reins is shutting down)")

// Options configures [Open].
type Options struct {
	Path string           // required: the database file; its folder is created owner-only if missing
	Now  func() time.Time // optional: the clock; default time.Now
	// Anchor, when set, copies each committed row's seq and hash to the
	// system log and a remote receiver; see the package documentation.
	Anchor *AnchorOptions // optional
	// Retention, when set, seals the log into parts as it grows and
	// removes the oldest parts past their age or size; only the Reins
	// that holds the data folder sets it. Nil: one file, kept whole.
	Retention *RetentionOptions // optional
}

// Log is an open audit log. Writes are serialised; reads run concurrently
// with them and with each other.
type Log struct {
	now       func() time.Time
	path      string
	closed    atomic.Bool
	anchor    *anchor      // nil without Options.Anchor
	last      atomic.Int64 // the head's seq, for readers that must not wait for mu
	retention *RetentionOptions
	maint     *maintenance // nil without Options.Retention

	// dbmu is held for reading by every read of the databases, and for
	// writing while a part is sealed or removed, which swaps them. Take it
	// before mu, never after.
	dbmu     sync.RWMutex
	wdb      *sql.DB    // guarded by dbmu: one connection, the only writer
	rdb      *sql.DB    // guarded by dbmu: read-only connections for Rows and Verify
	marks    *marks     // guarded by dbmu: each destination's delivery mark
	archives []*segment // guarded by dbmu: the sealed parts, oldest first

	mu   sync.Mutex
	w    *writer // guarded by mu
	head head    // guarded by mu: the last row this log knows to be committed
}

// head is the newest row of the chain.
type head struct {
	seq  int64
	hash string
}

// zeroHash is the prev_hash of the first row.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// Entry is one complete attempt for [Log.Record].
type Entry struct {
	Agent    vocab.Agent
	Act      vocab.Act
	Target   vocab.Target
	Outcome  string // one of the Outcome words, not OutcomeAboutToFire
	Code     string // a stable reason code such as "stale_ref"; may be empty
	Detail   string // a sentence for the person
	Decision string // how a person decided, vocab.Decision.String(); empty when no one was asked
}

// Open opens the log at opts.Path, creating it if needed, checks that it is a
// Reins audit log this version understands, and finds the head of the chain.
func Open(ctx context.Context, opts Options) (*Log, error) {
	if opts.Path == "" {
		return nil, errors.New("audit: Options.Path is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	path, err := filepath.Abs(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", opts.Path, err)
	}
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	l := &Log{now: opts.Now, path: path, retention: opts.Retention}
	if l.archives, err = findSegments(path); err != nil {
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	base := head{seq: 0, hash: zeroHash}
	if n := len(l.archives); n > 0 {
		base = head{seq: l.archives[n-1].last, hash: l.archives[n-1].lastHash}
	}
	if err := l.open(ctx, base); err != nil {
		l.closeDBs()
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	if l.marks, err = openMarks(ctx, l.path, l.now); err != nil {
		l.closeDBs()
		return nil, fmt.Errorf("audit log %s: %w", path, err)
	}
	if opts.Anchor != nil {
		ao := *opts.Anchor
		if ao.ID == "" {
			ao.ID = path
		}
		l.anchor = newAnchor(l, ao)
	}
	if opts.Retention != nil {
		// Sealed a part and stopped before the next one began: it begins now.
		if err := l.continueAfterSeal(ctx); err != nil {
			l.Close()
			return nil, fmt.Errorf("audit log %s: %w", path, err)
		}
		startMaintenance(l)
	}
	return l, nil
}

// prepareFile makes the file before SQLite does, because SQLite would create
// it readable by everyone (it then gives the -wal and -shm files the same
// mode as the database). An existing folder is left alone: it may be shared,
// such as a temporary directory.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot create the audit log's folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("cannot create the audit log %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot create the audit log %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("cannot make the audit log %s private: %w", path, err)
	}
	return nil
}

// open opens the live part at l.path; base is the row its first row
// follows (the last sealed part's last row, or none).
func (l *Log) open(ctx context.Context, base head) error {
	var err error
	// fullfsync matters on macOS only, where a plain fsync leaves the
	// commit in the drive's cache; elsewhere SQLite ignores it.
	l.wdb, err = sql.Open("sqlite", dsn(l.path, "_busy_timeout=5000&_foreign_keys=1&_journal_mode=WAL&_synchronous=FULL&_pragma=fullfsync(1)"))
	if err != nil {
		return err
	}
	l.wdb.SetMaxOpenConns(1)
	l.wdb.SetMaxIdleConns(1)
	l.wdb.SetConnMaxLifetime(0)
	l.wdb.SetConnMaxIdleTime(0)
	if err := checkPragmas(ctx, l.wdb); err != nil {
		return err
	}
	if err := setupSchema(ctx, l.wdb); err != nil {
		return err
	}
	if l.w, err = newWriter(ctx, l.wdb, base); err != nil {
		return err
	}
	if l.head, err = l.w.last(ctx); err != nil {
		return err
	}
	l.last.Store(l.head.seq)
	// Readers open only once the writer has made the file a WAL database:
	// a read-only connection cannot do that itself.
	l.rdb, err = sql.Open("sqlite", dsn(l.path, "mode=ro&_busy_timeout=5000"))
	if err != nil {
		return err
	}
	l.rdb.SetMaxOpenConns(4)
	return l.rdb.PingContext(ctx)
}

// checkPragmas refuses a file system on which the durability promise cannot
// be kept: without WAL, readers would block the writer that Commit waits on.
func checkPragmas(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("the file system refused write-ahead logging (journal mode %q); keep the audit log on a local disk", mode)
	}
	var sync int
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		return err
	}
	if sync != 2 {
		return fmt.Errorf("synchronous is %d, not FULL", sync)
	}
	return nil
}

// Close waits for a write in progress and closes the file. Later writes fail
// with ErrWrite.
func (l *Log) Close() error {
	if l.maint != nil {
		l.maint.stop() // before mu: sealing takes dbmu, then mu
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Swap(true) {
		return nil
	}
	var aerr error
	if l.anchor != nil {
		aerr = l.anchor.close()
	}
	return errors.Join(aerr, l.closeDBs())
}

// AnchorReady returns an error wrapping [ErrAnchorUnreachable] while a
// remote receiver the person marked required does not answer, trying it
// once more first; nil otherwise. Acts are refused meanwhile.
func (l *Log) AnchorReady() error {
	if l.anchor == nil {
		return nil
	}
	return l.anchor.ready()
}

// AnchorStatus says why the system log (local) and the remote receiver
// (remote) did not take the last row's hash; nil for a copy that works or
// is not used.
func (l *Log) AnchorStatus() (local, remote error) {
	if l.anchor == nil {
		return nil, nil
	}
	return l.anchor.status()
}

func (l *Log) closeDBs() error {
	var errs []error
	if l.w != nil {
		errs = append(errs, l.w.close())
	}
	// Readers go first so that the writer's close, the last one, can
	// checkpoint the WAL into the database and remove it.
	if l.rdb != nil {
		errs = append(errs, l.rdb.Close())
	}
	if l.marks != nil {
		errs = append(errs, l.marks.close())
	}
	if l.wdb != nil {
		errs = append(errs, l.wdb.Close())
	}
	for _, s := range l.archives {
		errs = append(errs, s.close())
	}
	return errors.Join(errs...)
}

// Path is the database file.
func (l *Log) Path() string { return l.path }

// Record appends one complete row (a read, a refusal, a denial) and returns
// its seq once it is committed.
func (l *Log) Record(ctx context.Context, e Entry) (int64, error) {
	if !knownOutcome(e.Outcome) {
		return 0, fmt.Errorf("%w: outcome %q is not one of done, read, refused, denied, timeout, failed, unknown", ErrWrite, e.Outcome)
	}
	r := record{
		phase:    PhaseRecord,
		outcome:  e.Outcome,
		code:     e.Code,
		detail:   e.Detail,
		decision: e.Decision,
	}
	if err := r.describe(e.Agent, e.Act, e.Target); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	seq, err := l.append(ctx, &r)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	return seq, nil
}

// Commit appends the "about to fire" row for a and returns the ticket the
// executor needs, only once the row is durably committed. On any failure the
// ticket is invalid and the act must not fire: the error wraps ErrWrite, is
// ErrNotApproved, or wraps ErrAnchorUnreachable (a required remote receiver
// does not answer; then no row is written).
func (l *Log) Commit(ctx context.Context, a approvals.Approved, p Landing) (Ticket, error) {
	if !a.Valid() {
		return Ticket{}, ErrNotApproved
	}
	if err := l.AnchorReady(); err != nil {
		return Ticket{}, err
	}
	req := a.Request()
	r := record{
		phase:    PhaseFire,
		outcome:  vocab.OutcomeAboutToFire,
		detail:   req.Sentence(),
		decision: a.How().String(),
	}
	if err := r.describe(req.Agent, req.Act, req.Target); err != nil {
		return Ticket{}, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	if p != (Landing{}) {
		b, err := json.Marshal(p)
		if err != nil {
			return Ticket{}, fmt.Errorf("%w: the plan cannot be stored: %w", ErrWrite, err)
		}
		r.plan = string(b)
	}
	seq, err := l.append(ctx, &r)
	if err != nil {
		return Ticket{}, fmt.Errorf("%w: %w", ErrWrite, err)
	}
	return Ticket{seq: seq, approved: a, landing: p, ok: true}, nil
}

// Finish appends what happened to t's act — outcome is one of the Outcome
// words, code a stable reason code (may be empty), detail a sentence — and
// returns the new row's seq. A ticket can be finished once.
func (l *Log) Finish(ctx context.Context, t Ticket, outcome, code, detail string) (int64, error) {
	if !t.Valid() || t.Seq() <= 0 {
		return 0, &finishError{seq: t.Seq(), err: errors.New("the ticket was not issued by an audit log")}
	}
	if !knownOutcome(outcome) {
		return 0, &finishError{seq: t.Seq(), err: fmt.Errorf("outcome %q is not one of done, read, refused, denied, timeout, failed, unknown", outcome)}
	}
	req := t.Approved().Request()
	r := record{
		phase:    PhaseOutcome,
		refSeq:   sql.NullInt64{Int64: t.Seq(), Valid: true},
		outcome:  outcome,
		code:     code,
		detail:   detail,
		decision: t.Approved().How().String(),
	}
	if err := r.describe(req.Agent, req.Act, req.Target); err != nil {
		return 0, &finishError{seq: t.Seq(), err: err}
	}
	seq, err := l.append(ctx, &r)
	if err != nil {
		return 0, &finishError{seq: t.Seq(), err: err}
	}
	return seq, nil
}

// append chains r onto the head and commits it. The head moves only after
// the commit succeeds, so a failed write leaves the chain where it was.
func (l *Log) append(ctx context.Context, r *record) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	seq, err := l.appendLocked(ctx, r)
	if err == nil && l.maint != nil && l.maint.due(l, seq) {
		l.maint.kick()
	}
	return seq, err
}

// appendLocked is append with mu held.
func (l *Log) appendLocked(ctx context.Context, r *record) (int64, error) {
	if l.closed.Load() {
		return 0, errClosed
	}
	r.seq = l.head.seq + 1
	r.time = formatTime(l.now())
	r.prevHash = l.head.hash
	r.hash = r.sum()
	// Once begun, a write runs to its commit or rollback whatever happens to
	// ctx: abandoning it halfway could leave the caller unsure whether the
	// row exists, and the caller's answer decides whether an act fires.
	if err := l.w.append(context.WithoutCancel(ctx), l.head, r); err != nil {
		return 0, explain(err)
	}
	l.head = head{seq: r.seq, hash: r.hash}
	l.last.Store(r.seq)
	if l.anchor != nil {
		// Under l.mu, so that the system log's lines leave in the rows' order.
		l.anchor.appended(r)
	}
	return r.seq, nil
}

// headSeq is the newest row's seq, without waiting for a write.
func (l *Log) headSeq() int64 { return l.last.Load() }

// rowsAfter reads at most limit rows newer than seq, oldest first, from
// the sealed part that holds them or the live one: what a destination has
// not taken yet. Rows retention removed are skipped.
func (l *Log) rowsAfter(ctx context.Context, seq int64, limit int) ([]record, error) {
	l.dbmu.RLock()
	defer l.dbmu.RUnlock()
	for _, s := range l.archives {
		if s.last <= seq {
			continue
		}
		db, err := s.open()
		if err != nil {
			return nil, err
		}
		out, err := readRecords(ctx, db, "SELECT "+columns+" FROM audit_rows WHERE seq > ? ORDER BY seq LIMIT ?", seq, limit)
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
	return readRecords(ctx, l.rdb, "SELECT "+columns+" FROM audit_rows WHERE seq > ? ORDER BY seq LIMIT ?", seq, limit)
}

// readRecords runs query on db and reads every row it returns.
func readRecords(ctx context.Context, db querier, query string, args ...any) ([]record, error) {
	rs, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	defer rs.Close()
	var out []record
	for rs.Next() {
		r, err := scanRecord(rs)
		if err != nil {
			return nil, fmt.Errorf("reading the audit log: %w", err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	return out, nil
}

// querier is a database, a connection or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}
