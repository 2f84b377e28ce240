package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// The person reaching for the mouse or keyboard while an act fires stops
// it: the agent is told, the row says stopped_by_person, the strip says the
// person took the controls, and an "allow on this tab" given before no
// longer answers for them: the next act on that tab is asked afresh.
func TestThePersonsHandStopsTheActAndEndsWhatWasRemembered(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowTab)()
	ref, _ := f.snapRef("Next")
	if err := f.click(ref); err != nil { // allowed on this tab
		t.Fatal(err)
	}
	f.Exec.WhileFiring = func(ctx context.Context) error {
		f.Exec.ReachIn(hand.Key)
		return nil
	}
	err := f.click(ref)
	if codeOf(err) != vocab.CodeStoppedByPerson || !strings.Contains(err.Error(), "pressed a key") || !strings.Contains(err.Error(), "asked afresh") {
		t.Fatalf("a click the person reached into: %v, want %s saying so", err, vocab.CodeStoppedByPerson)
	}
	rows := f.rows(persondoor.AuditFilter{Act: "click"})
	if rows[0].Code != vocab.CodeStoppedByPerson || rows[0].Outcome != vocab.OutcomeRefused {
		t.Fatalf("the outcome row: %+v", rows[0])
	}
	if words, refused := persondoor.OutcomeWords(persondoor.Activity{Outcome: rows[0].Outcome, Code: rows[0].Code, Detail: rows[0].Detail}); words != "stopped — you took the keyboard" || refused {
		t.Errorf("the strip says %q (refusal mark %v)", words, refused)
	}
	// The next click on the tab is asked, although it was allowed on the tab:
	// the one the person reached into was answered by that.
	if rows[0].Decision != vocab.Remembered.String() {
		t.Fatalf("the stopped click was %q, want it covered by the allow on this tab", rows[0].Decision)
	}
	f.Exec.WhileFiring = nil
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	rows = f.rows(persondoor.AuditFilter{Act: "click"})
	if rows[0].Decision == vocab.Remembered.String() {
		t.Errorf("the next click was %q, want it asked afresh (and allowed on the tab again)", rows[0].Decision)
	}
}

// Where the person's own input cannot be told from Reins', no act is put to
// them: it could not be stopped by reaching in.
func TestNoActIsAskedWhereThePersonsHandCannotBeWatched(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	a := countAsked(t, f.Engine)
	f.Exec.SetHandWatch(hand.ErrNoWatch)
	ref, _ := f.snapRef("Place order")
	err := f.click(ref)
	refusedBeforeAsking(t, f.Engine, a, err, vocab.CodeNoInputWatch)
}
