package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

func TestAFireRowLeftWithoutAnOutcomeIsEndedAsStopped(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	clk := newClock()
	l, err := Open(ctx, Options{Path: path, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	secret := vocab.Act{Kind: vocab.Type, Text: "hunter2", Secret: true}
	done := mustCommit(t, l, approve(vocab.Act{Kind: vocab.Click}, tab), Landing{X: 1, Y: 2})
	if _, err := l.Finish(ctx, done, vocab.OutcomeDone, "", "clicked"); err != nil {
		t.Fatal(err)
	}
	typing := mustCommit(t, l, approve(secret, tab), Landing{X: 3, Y: 4})
	mustRecord(t, l, Entry{Agent: agent, Act: vocab.Act{Kind: vocab.Read}, Target: tab, Outcome: vocab.OutcomeRead})
	// Reins is killed here: the typing has no outcome.
	l.Close()

	l = openAt(t, path, clk.Now)
	ended, err := l.FinishStopped(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0] != typing.Seq() {
		t.Fatalf("ended %v, want [%d]", ended, typing.Seq())
	}
	rows := allRows(t, l)
	last := rows[0]
	if last.Phase != PhaseOutcome || last.RefSeq != typing.Seq() || last.Outcome != vocab.OutcomeUnknown ||
		last.Code != vocab.CodeStopped || last.Detail != StoppedDetail {
		t.Errorf("the outcome row: %+v", last)
	}
	if last.AgentName != agent.Name || last.TargetName != tab.Name || last.ActKind != string(vocab.Type) {
		t.Errorf("the outcome row does not name the act's agent and target: %+v", last)
	}
	if strings.Contains(string(last.Act), "hunter2") {
		t.Errorf("the secret text reached the outcome row: %s", last.Act)
	}
	mustVerify(t, l, 5)
	if ended, err := l.FinishStopped(ctx); err != nil || len(ended) != 0 {
		t.Errorf("a second call ended %v (%v)", ended, err)
	}
	// An unknown outcome reads like any other.
	rows, err = l.Rows(ctx, Filter{Outcome: vocab.OutcomeUnknown})
	if err != nil || len(rows) != 1 {
		t.Errorf("filtered by outcome unknown: %d rows (%v)", len(rows), err)
	}
}
