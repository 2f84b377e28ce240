package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

// BenchmarkClickByRefReal is the whole chain's overhead from an agent's
// click by ref to the XTEST events sent: the share check, two re-resolutions through
// the real extension (every frame hop hit-tested), the audit row committed to
// SQLite, the deny-list check and the input itself. The person's decision is
// excluded: "allow on this tab" is remembered after the first click.
func BenchmarkClickByRefReal(b *testing.B) {
	r := setup(b, "1280x800x24", 0, 10*time.Second)
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		b.Fatal(err)
	}
	r.answer.set("allow-tab")
	s := r.snapshot()
	req := agentdoor.ActRequest{Tab: r.tab, Ref: ref(b, s, "button", "Main button"), Act: vocab.Act{Kind: "click"}}
	if _, err := r.agent.Act(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.agent.Act(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	r.assertFiredChecked()
}

// BenchmarkSnapshotReal is a snapshot of the test page (four frames' trees
// through the bridge, stitched and rendered).
func BenchmarkSnapshotReal(b *testing.B) {
	r := setup(b, "1280x800x24", 0, 10*time.Second)
	if err := r.rt.SetShare(r.tab, vocab.ReadOnly); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r.snapshot()
	}
}
