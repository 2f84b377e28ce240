package audit

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/reins-app/reins/vocab"
)

// StoppedDetail is the sentence of an outcome [Log.FinishStopped] writes.
const StoppedDetail = "Reins stopped while this act was firing (it was killed, it crashed, or the computer stopped), " +
	"so what happened is not known: it may have been done in full, in part, or not at all"

// FinishStopped ends every "about to fire" row that has no outcome with
// the outcome unknown, code reins_stopped: the act was firing when Reins
// stopped without a word. It returns the fire rows it ended, oldest first.
//
// Only the Reins that holds the data folder may call it, once, as it
// starts and before its first act; a row of an act in flight in another
// process would be ended too.
func (l *Log) FinishStopped(ctx context.Context) ([]int64, error) {
	if l.closed.Load() {
		return nil, errClosed
	}
	// Only the live part: a part is sealed only while no act is firing.
	l.dbmu.RLock()
	fired, err := readRecords(ctx, l.rdb, "SELECT "+columns+` FROM audit_rows AS f WHERE f.phase = 'fire'
		AND NOT EXISTS (SELECT 1 FROM audit_rows AS o WHERE o.ref_seq = f.seq) ORDER BY f.seq`)
	l.dbmu.RUnlock()
	if err != nil {
		return nil, err
	}
	var ended []int64
	for _, f := range fired {
		// Who, what and where as the fire row stored them: secret text
		// was left out of it already.
		r := f
		r.phase = PhaseOutcome
		r.refSeq = sql.NullInt64{Int64: f.seq, Valid: true}
		r.outcome = vocab.OutcomeUnknown
		r.code = vocab.CodeStopped
		r.detail = StoppedDetail
		r.plan = ""
		if _, err := l.append(ctx, &r); err != nil {
			return ended, fmt.Errorf("%w: the outcome of row %d: %w", ErrWrite, f.seq, err)
		}
		ended = append(ended, f.seq)
	}
	return ended, nil
}
