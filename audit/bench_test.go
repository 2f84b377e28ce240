package audit

import (
	"context"
	"testing"

	"github.com/reins-app/reins/approvals"
)

// Both benchmarks write to a real file with synchronous=FULL, so they
// measure the disk's flush as much as the code.

func BenchmarkRecord(b *testing.B) {
	l := openAt(b, testPath(b), nil)
	ctx := context.Background()
	e := Entry{Agent: agent, Act: approvals.Act{Kind: approvals.Read}, Target: tab, Outcome: OutcomeRead, Detail: "Snapshot of the tab."}
	for b.Loop() {
		if _, err := l.Record(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitFinish is one act's cost in the log: its two rows.
func BenchmarkCommitFinish(b *testing.B) {
	l := openAt(b, testPath(b), nil)
	ctx := context.Background()
	a := approve(approvals.Act{Kind: approvals.Click}, tab)
	p := Plan{X: 100, Y: 200, Scale: 2}
	for b.Loop() {
		tk, err := l.Commit(ctx, a, p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Finish(ctx, tk, OutcomeDone, "", ""); err != nil {
			b.Fatal(err)
		}
	}
}
