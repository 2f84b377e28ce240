package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/reins-app/reins/vocab"
)

// The popup rests, hidden, after an Allow: Reins is on its own deny list, so
// the act just allowed fires only once Reins has left the front.

// showing fails the test unless the popup has id on screen; "" is nothing.
func (r *popupRig) showing(t *testing.T, id string) {
	t.Helper()
	got := ""
	if c := r.p.Current(); c != nil {
		got = c.ID
	}
	if got != id {
		t.Fatalf("the popup shows %q, want %q", got, id)
	}
}

func payNow(id string) vocab.Request {
	r := click(id, true)
	r.Target.Name = "Pay now"
	return r
}

func TestAllowHidesThePopupForARestBeforeTheNext(t *testing.T) {
	for _, tc := range []struct {
		name, button string
		first        vocab.Request
		want         vocab.Decision
	}{
		{"allow once", "once", click("a1", true), vocab.AllowOnce},
		{"allow on this tab", "tab", click("a1", true), vocab.AllowTab},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newPopupRig(t, tc.first, payNow("a2"))
			r.clock.Advance(ArmDelay)
			test.Tap(r.p.button(tc.button))
			r.answers(t, Answered{ID: tc.first.ID, Decision: tc.want})
			if r.hidden != 1 {
				t.Fatalf("OnHide called %d times after the Allow, want 1: Reins must leave the front for the act to fire", r.hidden)
			}
			r.showing(t, "")
			if !r.p.Resting() || r.p.Len() != 1 {
				t.Fatalf("resting %v with %d waiting, want a rest with a2 waiting", r.p.Resting(), r.p.Len())
			}
			r.clock.Advance(AllowRest - time.Millisecond)
			r.showing(t, "")
			if r.shown != 1 {
				t.Fatalf("OnShow called %d times before the rest ended, want only the first request's", r.shown)
			}
			r.clock.Advance(time.Millisecond)
			r.showing(t, "a2")
			if r.shown != 2 || r.hidden != 1 || r.p.Resting() {
				t.Fatalf("after the rest: OnShow %d, OnHide %d, resting %v; want the popup shown again", r.shown, r.hidden, r.p.Resting())
			}
			if got := richText(r.p.sentence); !strings.Contains(got, "Pay now") {
				t.Fatalf("sentence = %q, want a2's act", got)
			}
		})
	}
}

func TestAllowOnTheNextRequestArmsOnlyAfterItShows(t *testing.T) {
	r := newPopupRig(t, click("a1", true), click("a2", true))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	test.Tap(r.p.button("once")) // the double click lands in the rest
	r.clock.Advance(AllowRest)
	r.showing(t, "a2")
	test.Tap(r.p.button("once"))
	test.Tap(r.p.button("tab"))
	r.clock.Advance(ArmDelay - time.Millisecond)
	test.Tap(r.p.button("once"))
	r.answers(t, Answered{ID: "a1", Decision: vocab.AllowOnce})
	if r.p.Armed() || !r.p.button("once").Disabled() {
		t.Fatal("Allow is enabled before a2 has been on screen for the arming delay")
	}
	r.clock.Advance(time.Millisecond)
	test.Tap(r.p.button("once"))
	r.answers(t, Answered{ID: "a1", Decision: vocab.AllowOnce}, Answered{ID: "a2", Decision: vocab.AllowOnce})
}

func TestDenyShowsTheNextAtOnce(t *testing.T) {
	r := newPopupRig(t, click("a1", true), payNow("a2"))
	test.Tap(r.p.button("deny"))
	r.answers(t, Answered{ID: "a1", Decision: vocab.Deny})
	r.showing(t, "a2")
	if r.p.Resting() || r.hidden != 0 || r.shown != 2 {
		t.Fatalf("after Deny: resting %v, OnHide %d, OnShow %d; want a2 shown at once", r.p.Resting(), r.hidden, r.shown)
	}
	if r.p.Armed() {
		t.Fatal("a2's Allow is armed at once")
	}
}

func TestARequestThatEndsDuringTheRestIsNotShown(t *testing.T) {
	r := newPopupRig(t, click("a1", true), click("a2", true), payNow("a3"))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.eng.End("a2", vocab.Deny) // timed out meanwhile
	r.p.End("a2")
	r.clock.Advance(AllowRest)
	r.showing(t, "a3")
	if r.shown != 2 {
		t.Fatalf("OnShow called %d times, want a1 and a3 only", r.shown)
	}
	if got := richText(r.p.counter); got != "" {
		t.Fatalf("counter = %q with one request left", got)
	}
}

func TestARestWithNothingLeftShowsNothing(t *testing.T) {
	r := newPopupRig(t, click("a1", true), click("a2", true))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.eng.End("a2", vocab.Deny) // withdrawn meanwhile
	r.p.End("a2")
	r.clock.Advance(AllowRest)
	r.showing(t, "")
	if r.shown != 1 || r.hidden != 1 || r.p.Resting() {
		t.Fatalf("OnShow %d, OnHide %d, resting %v; want no second show and no second hide", r.shown, r.hidden, r.p.Resting())
	}
}

func TestANewRequestDoesNotCutTheRestShort(t *testing.T) {
	r := newPopupRig(t, click("a1", true), click("a2", true))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.clock.Advance(AllowRest / 2)
	a3 := click("a3", true)
	r.eng.Ask(a3)
	r.p.Add(&a3)
	r.showing(t, "")
	if r.shown != 1 {
		t.Fatal("a request arriving during the rest showed the popup")
	}
	r.clock.Advance(AllowRest - AllowRest/2)
	r.showing(t, "a2") // the oldest, not the newest
	if got := richText(r.p.counter); got != "1 of 2" {
		t.Fatalf("counter = %q, want 1 of 2", got)
	}
}

// An agent that asks again right after its act fired asks during the rest
// too: the rest follows every Allow, not only one that leaves requests
// waiting, or that request would put Reins back in front.
func TestTheRestFollowsAnAllowThatEmptiedTheQueue(t *testing.T) {
	r := newPopupRig(t, click("a1", true))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	if r.hidden != 1 {
		t.Fatalf("OnHide called %d times after the last Allow, want 1", r.hidden)
	}
	r.clock.Advance(AllowRest / 3)
	a2 := click("a2", true)
	r.eng.Ask(a2)
	r.p.Add(&a2)
	r.showing(t, "")
	r.clock.Advance(AllowRest)
	r.showing(t, "a2")
}

func TestTheRestDoesNotExtendTheCountdown(t *testing.T) {
	r := newPopupRig(t, click("a1", true), click("a2", true))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once")) // at 0:01
	r.clock.Advance(500 * time.Millisecond)
	a3 := click("a3", true)
	a3.Asked = time.Time{} // says nothing of when it was asked: it arrived at 0:01.5
	r.eng.Ask(a3)
	r.p.Add(&a3)
	r.clock.Advance(time.Second)
	r.p.ActDone("a1") // a2 shows at 0:02.5 of its 0:30
	r.showing(t, "a2")
	if got := richText(r.p.remaining); got != "Denied automatically in 0:28" {
		t.Fatalf("a2's countdown = %q, want 0:28: it runs from when a2 was asked", got)
	}
	test.Tap(r.p.button("deny"))
	r.showing(t, "a3")
	if got := richText(r.p.remaining); got != "Denied automatically in 0:29" {
		t.Fatalf("a3's countdown = %q, want 0:29: it runs from when a3 arrived, not from when it showed", got)
	}
}

func TestTheRestEndsWhenTheAllowedActIsOver(t *testing.T) {
	r := newPopupRig(t, click("a1", true), payNow("a2"))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.showing(t, "")
	r.p.ActDone("a2") // another request's act: not the one the rest waits for
	r.showing(t, "")
	r.clock.Advance(300 * time.Millisecond)
	r.p.ActDone("a1")
	r.showing(t, "a2")
	if r.p.Resting() {
		t.Fatal("still resting after the act was over")
	}
	// The rest's own timer, when it comes, changes nothing.
	r.clock.Advance(AllowRest)
	r.showing(t, "a2")
}

func TestAllowingAConnectionNeedsNoRest(t *testing.T) {
	connect := click("c1", false)
	connect.Act = vocab.Act{Kind: vocab.Connect}
	r := newPopupRig(t, connect, payNow("a2"))
	r.clock.Advance(ArmDelay)
	test.Tap(r.p.button("once"))
	r.answers(t, Answered{ID: "c1", Decision: vocab.AllowOnce})
	if r.p.Resting() {
		t.Fatal("resting after allowing a connection, which fires nothing")
	}
	r.showing(t, "a2")
}
