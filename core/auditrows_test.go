package core

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// stepClock is a clock that moves a second at each reading, so that rows
// have times a filter can tell apart.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func openStepLog(t *testing.T) *audit.Log {
	t.Helper()
	clock := &stepClock{t: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)}
	l, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db"), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// AuditFilter.Match selects what the log selects: the person's door's fake
// and any filter of rows already read agree with the log itself.
func TestFilterMatchAgreesWithRows(t *testing.T) {
	l := openStepLog(t)
	ctx := context.Background()
	agents := []vocab.Agent{{Name: "Claude Code", Session: "s1"}, {Name: "Codex", Session: "s2"}}
	kinds := []vocab.ActKind{vocab.Click, vocab.Read, vocab.Type}
	outcomes := []string{vocab.OutcomeDone, vocab.OutcomeRefused, vocab.OutcomeDenied}
	for i := 0; i < 36; i++ {
		target := vocab.Target{Tab: fmt.Sprint(i % 4), Origin: []string{"https://a.example", "https://b.example"}[i%2]}
		if i%5 == 0 {
			target.FrameOrigin = "https://frame.example"
		}
		if _, err := l.Record(ctx, audit.Entry{Agent: agents[i%2], Act: vocab.Act{Kind: kinds[i%3]}, Target: target, Outcome: outcomes[(i/3)%3]}); err != nil {
			t.Fatalf("Record: %v", err)
		}
	}
	all, err := ReadAudit(ctx, l, persondoor.AuditFilter{})
	if err != nil || len(all) != 36 {
		t.Fatalf("Rows() = %d rows, %v", len(all), err)
	}
	mid := all[18].Time
	filters := []persondoor.AuditFilter{
		{}, {Tab: "2"}, {Origin: "https://b.example"}, {Origin: "https://frame.example"}, {Agent: "Codex"}, {Agent: "s1"},
		{Act: "read"}, {Outcome: "refused"}, {Since: mid}, {Until: mid}, {Since: mid, Until: mid.Add(5 * time.Second)},
		{Tab: "1", Agent: "Codex", Outcome: "done"}, {Origin: "https://a.example", Act: "click", Limit: 3}, {Tab: "nowhere"},
	}
	for _, f := range filters {
		want, err := ReadAudit(ctx, l, f)
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

// A row the person's door reads is written as JSON exactly as the log's own
// row is: `reins audit -json` and the viewer's export write the log's data.
func TestThePersonsRowIsTheLogsRowInJSON(t *testing.T) {
	l := openStepLog(t)
	ctx := context.Background()
	agent := vocab.Agent{Name: "agent", Version: "1", PID: 42, Exe: "/usr/bin/agent", Session: "s1"}
	target := vocab.Target{Tab: "3", TabTitle: "Shop", Origin: "https://shop.example", FrameOrigin: "https://pay.example", Ref: "e7", Role: "button", Name: "Pay"}
	if _, err := l.Record(ctx, audit.Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Click}, Target: target, Outcome: vocab.OutcomeRefused, Code: "denied", Detail: "the person said no", Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	rows, err := l.Rows(ctx, audit.Filter{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("Rows() = %d rows, %v", len(rows), err)
	}
	b, err := json.Marshal(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	want := string(append(plain.JSON(b), '\n'))
	got, err := persondoor.AuditJSON(personRow(rows[0]))
	if err != nil || string(got) != want {
		t.Errorf("AuditJSON = %s, %v\nthe log's row is %s", got, err, want)
	}
}
