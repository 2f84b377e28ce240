package core_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

// BenchmarkClickByRef measures what Reins adds between an agent's click by
// ref and the executor: the share check, snapshot lookup, two re-resolutions, the
// audit row committed to a real SQLite file, and its outcome row. The
// person's decision is excluded: "allow on this tab" is given once, then
// remembered. The browser and executor are fakes; e2e's benchmark has the
// real ones.
func BenchmarkClickByRef(b *testing.B) {
	e := coretest.New(b, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(7, shop())
	tab := e.WaitTab(b, shopURL)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		b.Fatal(err)
	}
	stop := e.AnswerAll(vocab.AllowTab)
	defer stop()
	agent := e.Connect(vocab.Agent{Name: "bench"})
	s, err := agent.Snapshot(context.Background(), tab)
	if err != nil {
		b.Fatal(err)
	}
	ref := regexp.MustCompile(`"Next" \[ref=(e\d+)\]`).FindStringSubmatch(s.Text)[1]
	req := agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: "click"}}
	if _, err := agent.Act(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := agent.Act(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
