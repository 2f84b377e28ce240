package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/vocab"
)

// timeLayout is RFC 3339 with all nine fraction digits, unlike
// time.RFC3339Nano, which drops trailing zeros: fixed width makes the text
// order the time order, so Since and Until can compare strings.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// record is a row exactly as stored, which is what the hash covers.
type record struct {
	seq          int64
	time         string
	agentName    string
	agentVersion string
	agentPID     int64
	agentExe     string
	agentSession string
	tab          string
	tabTitle     string
	origin       string
	frameOrigin  string
	desktop      int64
	actKind      string
	act          string
	targetRef    string
	targetRole   string
	targetName   string
	phase        string
	refSeq       sql.NullInt64
	outcome      string
	code         string
	detail       string
	plan         string
	decision     string
	prevHash     string
	hash         string
}

// describe fills in who acted, what, and where.
func (r *record) describe(ag vocab.Agent, act vocab.Act, t vocab.Target) error {
	r.agentName = ag.Name
	r.agentVersion = ag.Version
	r.agentPID = int64(ag.PID)
	r.agentExe = ag.Exe
	r.agentSession = ag.Session
	r.tab = t.Tab
	r.tabTitle = t.TabTitle
	r.origin = t.Origin
	r.frameOrigin = t.FrameOrigin
	if t.Desktop {
		r.desktop = 1
	}
	r.targetRef = t.Ref
	r.targetRole = t.Role
	r.targetName = t.Name
	r.actKind = string(act.Kind)
	b, err := actJSON(act)
	if err != nil {
		return fmt.Errorf("the act cannot be stored: %w", err)
	}
	r.act = string(b)
	return nil
}

// storedAct is an act as the log keeps it.
type storedAct struct {
	vocab.Act
	TextLength *int `json:"text_length,omitempty"` // set only in place of secret text
}

// actJSON encodes act for the log. Secret text is dropped here, before
// SQLite sees any of it, so that it reaches neither the database nor the WAL
// nor a freed page.
func actJSON(act vocab.Act) ([]byte, error) {
	s := storedAct{Act: act}
	if act.Secret {
		n := utf8.RuneCountInString(act.Text)
		s.Text = ""
		s.TextLength = &n
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the stored text should read as it was typed
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sum is the row's hash; see the package documentation for the encoding.
func (r *record) sum() string {
	b := make([]byte, 0, 512)
	b = append(b, r.prevHash...)
	i := func(v int64) { b = binary.BigEndian.AppendUint64(b, uint64(v)) }
	s := func(v string) {
		b = binary.BigEndian.AppendUint64(b, uint64(len(v)))
		b = append(b, v...)
	}
	i(r.seq)
	s(r.time)
	s(r.agentName)
	s(r.agentVersion)
	i(r.agentPID)
	s(r.agentExe)
	s(r.agentSession)
	s(r.tab)
	s(r.tabTitle)
	s(r.origin)
	s(r.frameOrigin)
	i(r.desktop)
	s(r.actKind)
	s(r.act)
	s(r.targetRef)
	s(r.targetRole)
	s(r.targetName)
	s(r.phase)
	if r.refSeq.Valid {
		b = append(b, 1)
		i(r.refSeq.Int64)
	} else {
		b = append(b, 0)
	}
	s(r.outcome)
	s(r.code)
	s(r.detail)
	s(r.plan)
	s(r.decision)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// args are r's values in the order of columns.
func (r *record) args() []any {
	return []any{
		r.seq, r.time, r.agentName, r.agentVersion, r.agentPID, r.agentExe, r.agentSession,
		r.tab, r.tabTitle, r.origin, r.frameOrigin, r.desktop, r.actKind, r.act,
		r.targetRef, r.targetRole, r.targetName, r.phase, r.refSeq, r.outcome, r.code, r.detail,
		r.plan, r.decision, r.prevHash, r.hash,
	}
}

func scanRecord(sc interface{ Scan(...any) error }) (record, error) {
	var r record
	err := sc.Scan(
		&r.seq, &r.time, &r.agentName, &r.agentVersion, &r.agentPID, &r.agentExe, &r.agentSession,
		&r.tab, &r.tabTitle, &r.origin, &r.frameOrigin, &r.desktop, &r.actKind, &r.act,
		&r.targetRef, &r.targetRole, &r.targetName, &r.phase, &r.refSeq, &r.outcome, &r.code, &r.detail,
		&r.plan, &r.decision, &r.prevHash, &r.hash,
	)
	return r, err
}

// Row is one row of the log, every column.
type Row struct {
	Seq          int64           `json:"seq"`
	Time         time.Time       `json:"time"`
	AgentName    string          `json:"agent_name"`
	AgentVersion string          `json:"agent_version,omitempty"`
	AgentPID     int             `json:"agent_pid,omitempty"`
	AgentExe     string          `json:"agent_exe,omitempty"`
	AgentSession string          `json:"agent_session"`
	Tab          string          `json:"tab,omitempty"`
	TabTitle     string          `json:"tab_title,omitempty"`
	Origin       string          `json:"origin,omitempty"`
	FrameOrigin  string          `json:"frame_origin,omitempty"`
	Desktop      bool            `json:"desktop,omitempty"`
	ActKind      string          `json:"act_kind"`
	Act          json.RawMessage `json:"act"` // secret text appears only as "text_length"
	TargetRef    string          `json:"target_ref,omitempty"`
	TargetRole   string          `json:"target_role,omitempty"`
	TargetName   string          `json:"target_name,omitempty"`
	Phase        string          `json:"phase"`             // PhaseRecord, PhaseFire or PhaseOutcome
	RefSeq       int64           `json:"ref_seq,omitempty"` // for PhaseOutcome: the fire row
	Outcome      string          `json:"outcome"`
	Code         string          `json:"code,omitempty"`
	Detail       string          `json:"detail,omitempty"`
	Plan         json.RawMessage `json:"plan,omitempty"` // for PhaseFire
	Decision     string          `json:"decision,omitempty"`
	PrevHash     string          `json:"prev_hash"`
	Hash         string          `json:"hash"`
}

func (r *record) row() Row {
	t, _ := time.Parse(time.RFC3339Nano, r.time) // a mangled time shows as zero; Verify names the row
	return Row{
		Seq:          r.seq,
		Time:         t,
		AgentName:    r.agentName,
		AgentVersion: r.agentVersion,
		AgentPID:     int(r.agentPID),
		AgentExe:     r.agentExe,
		AgentSession: r.agentSession,
		Tab:          r.tab,
		TabTitle:     r.tabTitle,
		Origin:       r.origin,
		FrameOrigin:  r.frameOrigin,
		Desktop:      r.desktop != 0,
		ActKind:      r.actKind,
		Act:          rawJSON(r.act),
		TargetRef:    r.targetRef,
		TargetRole:   r.targetRole,
		TargetName:   r.targetName,
		Phase:        r.phase,
		RefSeq:       r.refSeq.Int64,
		Outcome:      r.outcome,
		Code:         r.code,
		Detail:       r.detail,
		Plan:         rawJSON(r.plan),
		Decision:     r.decision,
		PrevHash:     r.prevHash,
		Hash:         r.hash,
	}
}

// rawJSON keeps a Row encodable even when a stored column is not JSON
// (someone edited it), by carrying the text as a JSON string.
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// Filter selects rows for [Log.Rows]. Empty fields select everything.
type Filter struct {
	Since   time.Time // rows written at or after
	Until   time.Time // rows written before
	Tab     string    // Reins' tab id
	Origin  string    // the tab's origin, or the target frame's
	Agent   string    // an agent's declared name or its session id
	Act     string    // an vocab.ActKind
	Outcome string    // one of the Outcome words
	Limit   int       // at most this many; 0 for all
}

// Rows returns the rows f selects, newest first, from the live part and
// then the sealed ones, newest first, until f.Limit is reached.
func (l *Log) Rows(ctx context.Context, f Filter) ([]Row, error) {
	if l.closed.Load() {
		return nil, errClosed
	}
	l.dbmu.RLock()
	defer l.dbmu.RUnlock()
	out, err := queryRows(ctx, l.rdb, f, "DESC")
	if err != nil {
		return nil, err
	}
	for i := len(l.archives) - 1; i >= 0 && (f.Limit == 0 || len(out) < f.Limit); i-- {
		s := l.archives[i]
		if !s.overlaps(f) {
			continue
		}
		db, err := s.open()
		if err != nil {
			return nil, err
		}
		g := f
		if f.Limit > 0 {
			g.Limit = f.Limit - len(out)
		}
		more, err := queryRows(ctx, db, g, "DESC")
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// Each calls fn with every row f selects, oldest first, across every part
// still held (f.Limit aside), as an export reads them.
func (l *Log) Each(ctx context.Context, f Filter, fn func(Row) error) error {
	if l.closed.Load() {
		return errClosed
	}
	l.dbmu.RLock()
	defer l.dbmu.RUnlock()
	f.Limit = 0
	for _, s := range l.archives {
		if !s.overlaps(f) {
			continue
		}
		db, err := s.open()
		if err != nil {
			return err
		}
		if err := eachRow(ctx, db, f, fn); err != nil {
			return err
		}
	}
	return eachRow(ctx, l.rdb, f, fn)
}

// overlaps reports whether the part may hold rows of f's time range.
func (s *segment) overlaps(f Filter) bool {
	return (f.Since.IsZero() || s.lastTime >= formatTime(f.Since)) && (f.Until.IsZero() || s.firstTime < formatTime(f.Until))
}

// filterSQL is f as a WHERE clause and its arguments.
func filterSQL(f Filter) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, vals ...any) {
		where = append(where, cond)
		args = append(args, vals...)
	}
	if !f.Since.IsZero() {
		add("time >= ?", formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		add("time < ?", formatTime(f.Until))
	}
	if f.Tab != "" {
		add("tab = ?", f.Tab)
	}
	if f.Origin != "" {
		add("(origin = ? OR frame_origin = ?)", f.Origin, f.Origin)
	}
	if f.Agent != "" {
		add("(agent_name = ? OR agent_session = ?)", f.Agent, f.Agent)
	}
	if f.Act != "" {
		add("act_kind = ?", f.Act)
	}
	if f.Outcome != "" {
		add("outcome = ?", f.Outcome)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// queryRows reads the rows f selects from one part, in order ("ASC" or
// "DESC" by seq).
func queryRows(ctx context.Context, db querier, f Filter, order string) ([]Row, error) {
	where, args := filterSQL(f)
	q := "SELECT " + columns + " FROM audit_rows" + where + " ORDER BY seq " + order
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("reading the audit log: %w", err)
		}
		out = append(out, r.row())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	return out, nil
}

// eachRow calls fn with each row f selects from one part, oldest first.
func eachRow(ctx context.Context, db querier, f Filter, fn func(Row) error) error {
	where, args := filterSQL(f)
	rows, err := db.QueryContext(ctx, "SELECT "+columns+" FROM audit_rows"+where+" ORDER BY seq", args...)
	if err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return fmt.Errorf("reading the audit log: %w", err)
		}
		if err := fn(r.row()); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	return nil
}

// Verify recomputes the whole chain, every part still held and the live
// one from one consistent snapshot, and returns how many rows are intact.
// A changed, missing or reordered row is reported as a [*TamperedError]
// naming the first bad seq; so is a log that starts past row 1 without a
// row saying retention removed the rows before. So is the loss of rows
// this Log wrote, even when the rest of the chain was rebuilt to match.
func (l *Log) Verify(ctx context.Context) (rows int, err error) {
	if l.closed.Load() {
		return 0, errClosed
	}
	l.dbmu.RLock()
	defer l.dbmu.RUnlock()
	l.mu.Lock()
	wrote := l.head
	l.mu.Unlock()

	c := newChainWalk(func(r record) error {
		if r.seq == wrote.seq && r.hash != wrote.hash {
			return &TamperedError{Seq: r.seq, Why: "it is not the row Reins wrote"}
		}
		return nil
	})
	for _, s := range l.archives {
		db, err := s.open()
		if err != nil {
			return c.n, err
		}
		if err := c.part(ctx, db); err != nil {
			return c.n, err
		}
	}
	tx, err := l.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return c.n, fmt.Errorf("reading the audit log: %w", err)
	}
	defer tx.Rollback()
	if err := c.part(ctx, tx); err != nil {
		return c.n, err
	}
	if c.prev.seq < wrote.seq {
		return c.n, &TamperedError{Seq: c.prev.seq + 1, Why: fmt.Sprintf("it is missing (Reins wrote rows up to %d)", wrote.seq)}
	}
	return c.n, c.end()
}
