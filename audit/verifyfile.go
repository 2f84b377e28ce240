package audit

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Anchor is what a receiver kept of one log's anchor lines: each row's
// hash by seq, as [ReadAnchor] found them.
type Anchor struct {
	ID    string           // the log the lines name (db=…)
	Rows  map[int64]string // seq → hash
	Lines int              // lines read for this log
	// Conflict is the first seq for which the lines disagree, 0 if none:
	// someone wrote a line of their own for it.
	Conflict int64
	// Others counts lines that name another log.
	Others int
}

// Head is the newest seq the anchor holds, 0 for none.
func (a *Anchor) Head() int64 {
	var h int64
	for s := range a.Rows {
		h = max(h, s)
	}
	return h
}

// ReadAnchor collects from r the anchor lines of the log named id (see
// [AnchorLine]), wherever they sit in a line: a receiver prefixes its own
// time, host and tag. OTLP JSON lines of forwarded rows count too. Lines
// that are neither are skipped.
func ReadAnchor(r io.Reader, id string) (*Anchor, error) {
	id = lineSafe(id)
	a := &Anchor{ID: id, Rows: map[int64]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	add := func(seq int64, hash, db string) {
		if db != id {
			a.Others++
			return
		}
		a.Lines++
		if have, dup := a.Rows[seq]; dup && have != hash {
			if a.Conflict == 0 || seq < a.Conflict {
				a.Conflict = seq
			}
			return
		}
		a.Rows[seq] = hash
	}
	for sc.Scan() {
		line := sc.Text()
		if seq, hash, db, ok := parseAnchorLine(line); ok {
			add(seq, hash, db)
			continue
		}
		// A collector's OTLP JSON lines carry whole rows, and in them
		// each row's seq and hash.
		if strings.HasPrefix(line, "{") && strings.Contains(line, `"resourceLogs"`) {
			rows, err := parseOTLPLine([]byte(line))
			if err != nil {
				continue
			}
			for _, r := range rows {
				if r.r.seq > 0 && len(r.r.hash) == 64 {
					add(r.r.seq, r.r.hash, lineSafe(r.id))
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the anchor: %w", err)
	}
	return a, nil
}

// parseAnchorLine finds "reins-audit seq=N hash=H prev=P db=ID" in line.
func parseAnchorLine(line string) (seq int64, hash, db string, ok bool) {
	i := strings.Index(line, "reins-audit seq=")
	if i < 0 {
		return 0, "", "", false
	}
	rest := line[i+len("reins-audit "):]
	// db is last and may hold spaces (a path); the others are one word.
	j := strings.Index(rest, " db=")
	if j < 0 {
		return 0, "", "", false
	}
	db = strings.TrimRight(rest[j+len(" db="):], "\r\n")
	for _, f := range strings.Fields(rest[:j]) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "seq":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return 0, "", "", false
			}
			seq = n
		case "hash":
			hash = v
		}
	}
	return seq, hash, db, seq > 0 && len(hash) == 64
}

// Report is what [VerifyFile] found.
type Report struct {
	Rows int // rows of the chain, from the first, that are intact
	// Anchored counts rows whose hash the anchor holds and matches;
	// AnchorHead is the newest seq in the anchor (0 without one).
	Anchored   int
	AnchorHead int64
	// AnchorLines counts the anchor's lines for this log, AnchorOthers
	// those naming another log.
	AnchorLines, AnchorOthers int
	// Triggers names the append-only triggers that are missing or not as
	// Reins writes them: someone dropped them. Reported, not restored.
	Triggers []string
	// Delivered says how far each copy outside the database took the
	// log, as the log itself records it: where a -anchor file or a
	// receiver's stream can be fetched from. None: the log was never
	// anchored anywhere.
	Delivered []Delivery
	Head      int64 // the newest row
	// Parts counts the parts walked: the sealed ones beside the file, and
	// the file. RemovedBefore is the first row held when retention
	// removed the rows before it (a row in the log says so), else 0.
	Parts         int
	RemovedBefore int64
}

// VerifyFile checks the log at path without writing to it: the hash chain,
// the append-only triggers, and, when anchor is not nil, every row the
// anchor holds. It returns a [*TamperedError] naming the first row that is
// missing or changed: a row the anchor holds that the log lacks is a cut
// tail; a row whose hash differs from the anchor's was rewritten, even
// when every hash after it was recomputed. Rows newer than the anchor's
// newest are not counted against the log (the anchor may lag), only
// reported in Report.
func VerifyFile(ctx context.Context, path string, anchor *Anchor) (Report, error) {
	var rep Report
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("there is no audit log at %s: Reins creates it when it first starts; check that REINS_DATA_DIR is the one Reins uses (%w)", path, err)
	} else if err != nil {
		return rep, fmt.Errorf("audit log %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, "mode=ro&_busy_timeout=5000"))
	if err != nil {
		return rep, fmt.Errorf("audit log %s: %w", path, err)
	}
	defer db.Close()
	var app int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return rep, fmt.Errorf("audit log %s: %w", path, err)
	}
	if app != applicationID {
		return rep, fmt.Errorf("audit log %s: this file is not a Reins audit log", path)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rep, fmt.Errorf("reading the audit log: %w", err)
	}
	defer tx.Rollback()
	if rep.Triggers, err = changedTriggers(ctx, tx); err != nil {
		return rep, fmt.Errorf("reading the audit log: %w", err)
	}
	if anchor != nil {
		rep.AnchorHead = anchor.Head()
		rep.AnchorLines, rep.AnchorOthers = anchor.Lines, anchor.Others
	}
	archives, err := findSegments(path)
	if err != nil {
		return rep, fmt.Errorf("audit log %s: %w", path, err)
	}
	defer func() {
		for _, s := range archives {
			s.close()
		}
	}()
	c := newChainWalk(func(r record) error {
		if anchor == nil {
			return nil
		}
		if anchor.Conflict != 0 && r.seq == anchor.Conflict {
			return &TamperedError{Seq: r.seq, Why: "the anchor holds two different hashes for it: a line in the anchor was forged"}
		}
		want, ok := anchor.Rows[r.seq]
		switch {
		case !ok:
			return nil
		case want != r.hash:
			return &TamperedError{Seq: r.seq, Why: fmt.Sprintf("the anchor holds hash %s for it, the log %s: the row was changed and the chain after it rewritten", short12(want), short12(r.hash))}
		}
		rep.Anchored++
		return nil
	})
	walk := func() error {
		for _, s := range archives {
			db, err := s.open()
			if err != nil {
				return err
			}
			if err := c.part(ctx, db); err != nil {
				return err
			}
		}
		if err := c.part(ctx, tx); err != nil {
			return err
		}
		return c.end()
	}
	err = walk()
	last := c.prev.seq
	rep.Rows, rep.Head, rep.Parts, rep.RemovedBefore = c.n, last, len(archives)+1, c.removedBefore()
	if err != nil {
		return rep, err
	}
	if rep.Delivered, err = readMarks(ctx, tx); err != nil {
		return rep, err
	}
	if anchor != nil {
		if anchor.Head() > last {
			// The anchor proves rows up to its head existed, so the
			// first one missing is the one after the log's end.
			return rep, &TamperedError{Seq: last + 1, Why: fmt.Sprintf("it is missing: the anchor holds rows up to %d, the log ends at %d; its newest rows were deleted", anchor.Head(), last)}
		}
		if anchor.Conflict != 0 {
			return rep, &TamperedError{Seq: anchor.Conflict, Why: "the anchor holds two different hashes for it: a line in the anchor was forged"}
		}
	}
	return rep, nil
}

// changedTriggers names the append-only triggers that are gone or differ.
func changedTriggers(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_rows'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]string{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			return nil, err
		}
		have[name] = text
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []string
	for _, name := range triggerNames() {
		if strings.TrimSpace(have[name]) != triggers[name] {
			out = append(out, name)
		}
	}
	for name := range have {
		if _, ours := triggers[name]; !ours {
			out = append(out, name)
		}
	}
	return out, nil
}

func short12(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
