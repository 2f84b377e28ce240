package audit

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Filter.Match selects what Rows selects: the person's door's fake and any
// filter of rows already read agree with the log itself.
func TestFilterMatchAgreesWithRows(t *testing.T) {
	l := openTest(t)
	ctx := context.Background()
	agents := []vocab.Agent{{Name: "Claude Code", Session: "s1"}, {Name: "Codex", Session: "s2"}}
	kinds := []vocab.ActKind{vocab.Click, vocab.Read, vocab.Type}
	outcomes := []string{vocab.OutcomeDone, vocab.OutcomeRefused, vocab.OutcomeDenied}
	for i := 0; i < 36; i++ {
		target := vocab.Target{Tab: fmt.Sprint(i % 4), Origin: []string{"https://a.example", "https://b.example"}[i%2]}
		if i%5 == 0 {
			target.FrameOrigin = "https://frame.example"
		}
		mustRecord(t, l, Entry{Agent: agents[i%2], Act: vocab.Act{Kind: kinds[i%3]}, Target: target, Outcome: outcomes[(i/3)%3]})
	}
	all, err := l.Rows(ctx, Filter{})
	if err != nil || len(all) != 36 {
		t.Fatalf("Rows() = %d rows, %v", len(all), err)
	}
	mid := all[18].Time
	filters := []Filter{
		{}, {Tab: "2"}, {Origin: "https://b.example"}, {Origin: "https://frame.example"}, {Agent: "Codex"}, {Agent: "s1"},
		{Act: "read"}, {Outcome: "refused"}, {Since: mid}, {Until: mid}, {Since: mid, Until: mid.Add(5 * time.Second)},
		{Tab: "1", Agent: "Codex", Outcome: "done"}, {Origin: "https://a.example", Act: "click", Limit: 3}, {Tab: "nowhere"},
	}
	for _, f := range filters {
		want, err := l.Rows(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range all {
			if f.Match(r) && (f.Limit == 0 || len(got) < f.Limit) {
				got = append(got, r.Seq)
			}
		}
		var seqs []int64
		for _, r := range want {
			seqs = append(seqs, r.Seq)
		}
		if !slices.Equal(got, seqs) {
			t.Errorf("filter %+v: Match selects %v, Rows %v", f, got, seqs)
		}
	}
}
