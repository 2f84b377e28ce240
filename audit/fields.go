package audit

import (
	"database/sql"
	"fmt"
	"strconv"
)

// field is one column of a row as it leaves the database: its name, as
// the table and every forwarded copy call it, and where it lives in a
// record. Exactly one of text and num is set.
type field struct {
	name string
	text func(*record) *string
	num  func(*record) *int64
}

// rowFields are the columns a forwarded row carries, in table order: what
// the hash covers, then prev_hash and hash. ref_seq, the one column that
// may be NULL, is left out of a copy when it is.
var rowFields = []field{
	{name: "seq", num: func(r *record) *int64 { return &r.seq }},
	{name: "time", text: func(r *record) *string { return &r.time }},
	{name: "agent_name", text: func(r *record) *string { return &r.agentName }},
	{name: "agent_version", text: func(r *record) *string { return &r.agentVersion }},
	{name: "agent_pid", num: func(r *record) *int64 { return &r.agentPID }},
	{name: "agent_exe", text: func(r *record) *string { return &r.agentExe }},
	{name: "agent_session", text: func(r *record) *string { return &r.agentSession }},
	{name: "tab", text: func(r *record) *string { return &r.tab }},
	{name: "tab_title", text: func(r *record) *string { return &r.tabTitle }},
	{name: "origin", text: func(r *record) *string { return &r.origin }},
	{name: "frame_origin", text: func(r *record) *string { return &r.frameOrigin }},
	{name: "desktop", num: func(r *record) *int64 { return &r.desktop }},
	{name: "act_kind", text: func(r *record) *string { return &r.actKind }},
	{name: "act_json", text: func(r *record) *string { return &r.act }},
	{name: "target_ref", text: func(r *record) *string { return &r.targetRef }},
	{name: "target_role", text: func(r *record) *string { return &r.targetRole }},
	{name: "target_name", text: func(r *record) *string { return &r.targetName }},
	{name: "phase", text: func(r *record) *string { return &r.phase }},
	{name: "ref_seq", num: func(r *record) *int64 { return &r.refSeq.Int64 }},
	{name: "outcome", text: func(r *record) *string { return &r.outcome }},
	{name: "code", text: func(r *record) *string { return &r.code }},
	{name: "detail", text: func(r *record) *string { return &r.detail }},
	{name: "plan_json", text: func(r *record) *string { return &r.plan }},
	{name: "decision", text: func(r *record) *string { return &r.decision }},
	{name: "prev_hash", text: func(r *record) *string { return &r.prevHash }},
	{name: "hash", text: func(r *record) *string { return &r.hash }},
}

// present reports whether f has a value in r: all but a NULL ref_seq.
func (f field) present(r *record) bool {
	return f.name != "ref_seq" || r.refSeq.Valid
}

// rowBuilder fills a record from a copy's named values, checking that
// every column came once.
type rowBuilder struct {
	r    record
	seen map[string]bool
}

func newRowBuilder() *rowBuilder { return &rowBuilder{seen: map[string]bool{}} }

var fieldByName = func() map[string]field {
	m := map[string]field{}
	for _, f := range rowFields {
		m[f.name] = f
	}
	return m
}()

// setText sets a column from text; a numeric column's text is decimal.
func (b *rowBuilder) setText(name, v string) error {
	f, ok := fieldByName[name]
	if !ok {
		return nil // a field of the copy's own (db), or of a later Reins
	}
	if b.seen[name] {
		return fmt.Errorf("%s twice", name)
	}
	b.seen[name] = true
	if f.text != nil {
		*f.text(&b.r) = v
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a number: %q", name, v)
	}
	return b.setNum(name, n)
}

// setNum sets a numeric column.
func (b *rowBuilder) setNum(name string, n int64) error {
	f, ok := fieldByName[name]
	if !ok {
		return nil
	}
	if f.num == nil {
		return fmt.Errorf("%s must be text", name)
	}
	b.seen[name] = true
	*f.num(&b.r) = n
	if name == "ref_seq" {
		b.r.refSeq = sql.NullInt64{Int64: n, Valid: true}
	}
	return nil
}

// record returns the row, or which column is missing.
func (b *rowBuilder) record() (record, error) {
	for _, f := range rowFields {
		if !b.seen[f.name] && f.name != "ref_seq" {
			return record{}, fmt.Errorf("it lacks %s", f.name)
		}
	}
	return b.r, nil
}
