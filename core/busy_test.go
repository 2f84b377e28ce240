package core_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// answerWith answers every approval with what decide says, after it has
// seen the request, until the test ends; it returns the requests seen.
func (f *fixture) answerWith(decide func(r vocab.Request) vocab.Decision) func() []vocab.Request {
	events, unsubscribe := f.Subscribe(64)
	f.t.Cleanup(unsubscribe)
	var mu sync.Mutex
	var seen []vocab.Request
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			mu.Lock()
			seen = append(seen, *ev.Request)
			mu.Unlock()
			f.Engine.Answer(ev.Request.ID, decide(*ev.Request))
		}
	}()
	return func() []vocab.Request {
		mu.Lock()
		defer mu.Unlock()
		return append([]vocab.Request(nil), seen...)
	}
}

func TestAnActIsHeldAndAskedAgainWhileThePersonUsesTheMouse(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	// The person goes on using the mouse after each answer.
	seen := f.answerWith(func(vocab.Request) vocab.Decision {
		f.Exec.SetLastInput(time.Now().Add(time.Hour))
		return vocab.AllowOnce
	})
	err := f.click(ref)
	if codeOf(err) != vocab.CodePersonActive {
		t.Fatalf("click while the person kept using the mouse: %v, want %s", err, vocab.CodePersonActive)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Fatalf("%d acts fired while the person was at the mouse", n)
	}
	reqs := seen()
	if len(reqs) != core.MaxBusy {
		t.Fatalf("asked %d times, want %d", len(reqs), core.MaxBusy)
	}
	for i, r := range reqs {
		if r.Busy != i {
			t.Errorf("request %d says it was held %d times, want %d", i+1, r.Busy, i)
		}
	}
	// Each time the person was busy is a row of its own, and nothing was about to fire.
	rows := f.rows(persondoor.AuditFilter{Act: "click"})
	if len(rows) != core.MaxBusy {
		t.Fatalf("%d rows, want %d holds: %+v", len(rows), core.MaxBusy, rows)
	}
	for _, r := range rows {
		if r.Phase == audit.PhaseFire || r.Code != vocab.CodePersonActive || r.Decision != "allowed once" {
			t.Errorf("row %+v is not a hold of an allowed act", r)
		}
	}
}

func TestAnActWaitsForThePersonToBeStill(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	var nudged time.Time
	f.answerWith(func(vocab.Request) vocab.Decision {
		// The answer's own key comes back up a moment later.
		nudged = time.Now().Add(50 * time.Millisecond)
		f.Exec.SetLastInput(nudged)
		return vocab.AllowOnce
	})
	var firedAt time.Time
	f.Exec.BeforeFire = func(audit.Ticket) error { firedAt = time.Now(); return nil }
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Exec.Fired()); n != 1 {
		t.Fatalf("fired %d acts, want 1", n)
	}
	if still := firedAt.Sub(nudged); still < approvals.AnsweredQuiet {
		t.Fatalf("fired %s after the person's last input, want at least %s", still, approvals.AnsweredQuiet)
	}
}

func TestAHeldActFiresOnceThePersonAllowsItAgain(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	seen := f.answerWith(func(r vocab.Request) vocab.Decision {
		if r.Busy == 0 {
			f.Exec.SetLastInput(time.Now().Add(time.Hour)) // still at the mouse
		} else {
			f.Exec.SetLastInput(time.Time{}) // back from it
		}
		return vocab.AllowOnce
	})
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Exec.Fired()); n != 1 {
		t.Fatalf("fired %d acts, want 1", n)
	}
	if reqs := seen(); len(reqs) != 2 || reqs[1].Busy != 1 {
		t.Fatalf("want the act asked about twice, the second time as held: %+v", reqs)
	}
	if rows := f.rows(persondoor.AuditFilter{Act: "click", Outcome: vocab.OutcomeDone}); len(rows) != 1 {
		t.Fatalf("want one done row, got %+v", rows)
	}
	if rows := f.rows(persondoor.AuditFilter{Act: "click", Outcome: vocab.OutcomeRefused}); len(rows) != 1 || rows[0].Code != vocab.CodePersonActive {
		t.Fatalf("want one hold row, got %+v", rows)
	}
}

func TestARememberedAllowDoesNotCoverAHeldAct(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Next")
	seen := f.answerWith(func(r vocab.Request) vocab.Decision {
		if r.Busy > 0 {
			f.Exec.SetLastInput(time.Time{})
			return vocab.AllowOnce
		}
		return vocab.AllowTab
	})
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	// Remembered now: the next click is not asked about, unless the person
	// is at the mouse, which they are, and stay.
	f.Exec.SetLastInput(time.Now().Add(time.Hour))
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	reqs := seen()
	if len(reqs) != 2 || reqs[0].Busy != 0 || reqs[1].Busy != 1 {
		t.Fatalf("want the first click asked and the remembered second one asked again as held: %+v", reqs)
	}
	if n := len(f.Exec.Fired()); n != 2 {
		t.Fatalf("fired %d acts, want 2", n)
	}
	// With the person away, a click is covered by the remembered allow.
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	if n := len(seen()); n != 2 {
		t.Fatalf("asked %d times, want the third click covered without asking", n)
	}
}

func TestPausingStopsAnActThatIsFiring(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	f.Exec.WhileFiring = func(ctx context.Context) error {
		f.Pause(true) // the chord, pressed while the act is under way
		if ctx.Err() == nil {
			return errors.New("pausing did not stop the act firing")
		}
		return ctx.Err()
	}
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); codeOf(err) != vocab.CodePaused {
		t.Fatalf("an act the person paused mid-way: %v, want %s", err, vocab.CodePaused)
	}
	if rows := f.rows(persondoor.AuditFilter{Act: "click"}); len(rows) != 2 || rows[0].Code != vocab.CodePaused {
		t.Fatalf("want the fire row and a paused outcome, got %+v", rows)
	}
}

func TestApprovedInputWaitsForReinsOwnPopupToLeaveTheFront(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	reins := executor.App{Name: "reins", Class: "reins.Reins", PID: os.Getpid()}
	chrome := executor.App{Name: "Chromium", Class: "chromium.Chromium", PID: 1}
	f.answerWith(func(vocab.Request) vocab.Decision {
		// The person answers in the popup, which is in front until the
		// desktop gives the focus back a little later.
		f.Exec.SetFrontmost(reins)
		time.AfterFunc(150*time.Millisecond, func() { f.Exec.SetFrontmost(chrome) })
		return vocab.AllowOnce
	})
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); err != nil {
		t.Fatalf("click answered in the popup: %v", err)
	}
	if n := len(f.Exec.Fired()); n != 1 {
		t.Fatalf("fired %d acts, want 1", n)
	}
}

func TestInputIsRefusedWhenReinsStaysInFront(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	f.Exec.SetFrontmost(executor.App{Name: "reins", Class: "reins.Reins", PID: os.Getpid()})
	ref, _ := f.snapRef("Place order")
	if err := f.click(ref); codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("click with Reins in front: %v, want %s", err, vocab.CodeOwnWindow)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Fatalf("fired %d acts", n)
	}
}

func TestTheDoorHearsWhenAnAllowedActIsOver(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	ref, _ := f.snapRef("Place order")
	events, stop := f.Subscribe(64)
	defer stop()
	defer f.AnswerAll(vocab.AllowOnce)()
	if err := f.click(ref); err != nil {
		t.Fatal(err)
	}
	asked := ""
	for deadline := time.After(2 * time.Second); ; {
		select {
		case ev := <-events:
			switch ev.Kind {
			case persondoor.EventApproval:
				asked = ev.Request.ID
			case persondoor.EventActDone:
				if asked == "" || ev.Request.ID != asked {
					t.Fatalf("act over for request %q, want the one asked, %q", ev.Request.ID, asked)
				}
				if n := len(f.Exec.Fired()); n != 1 {
					t.Fatalf("the act was reported over with %d fired", n)
				}
				return
			}
		case <-deadline:
			t.Fatal("no word that the act was over")
		}
	}
}
