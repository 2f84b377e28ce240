package core

import (
	"context"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/persondoor"
)

// The person's door has audit rows, filters and the anchor's state of its
// own, so that the person's windows do not link the log's database; they
// are converted here. A row and a filter have the log's fields one for one,
// so a field added to the log's and not to the door's fails to compile.

// personRow is r as the person's door reads it.
func personRow(r audit.Row) persondoor.AuditRow { return persondoor.AuditRow(r) }

// personRows is rows as the person's door reads them.
func personRows(rows []audit.Row) []persondoor.AuditRow {
	out := make([]persondoor.AuditRow, len(rows))
	for i, r := range rows {
		out[i] = personRow(r)
	}
	return out
}

// personAnchor is st as the person's door reads it.
func personAnchor(st audit.AnchorState) persondoor.AnchorState {
	out := persondoor.AnchorState{Anchored: st.Anchored, Required: st.Required, Head: st.Head}
	for _, c := range st.Copies {
		out.Copies = append(out.Copies, persondoor.CopyState{
			Where: c.Where, Whole: c.Whole, Required: c.Required, Err: c.Err, Why: c.Why, Seq: c.Seq, Behind: c.Behind,
		})
	}
	return out
}

// ReadAudit returns the rows of log that f selects, newest first, as the
// person's door gives them: for `reins audit`, which opens the log itself
// (OpenAudit).
func ReadAudit(ctx context.Context, log *audit.Log, f persondoor.AuditFilter) ([]persondoor.AuditRow, error) {
	rows, err := log.Rows(ctx, audit.Filter(f))
	if err != nil {
		return nil, err
	}
	return personRows(rows), nil
}
