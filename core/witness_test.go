package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// The witness in the target's frame is asked where the pointer is before
// anything is pressed, at the act's own point on screen. When the frame sees
// the pointer over something else, the act is refused as unmapped, naming
// what is there; the pointer moved, so the row was committed first, and no
// act counts as fired.
func TestAPointerOverSomethingElseIsRefusedAsUnmapped(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	var asked []protocol.WitnessParams
	f.Browser.SetWitness(func(p protocol.WitnessParams) protocol.WitnessResult {
		asked = append(asked, p)
		return protocol.WitnessResult{Seen: true, Near: true, X: p.X, Y: p.Y, At: &protocol.Landed{Role: "generic", Tag: "html"}}
	})
	ref, _ := f.snapRef("Place order")
	err := f.click(ref)
	if codeOf(err) != vocab.CodeUnmapped || !strings.Contains(err.Error(), "over html") || !strings.Contains(err.Error(), "nothing was pressed") {
		t.Fatalf("click = %v, want unmapped naming html and saying nothing was pressed", err)
	}
	// The button's centre on screen, as the plan has it.
	if len(asked) != 1 || asked[0].X != 150 || asked[0].Y != 302 {
		t.Errorf("the witness was asked %+v, want once at (150, 302)", asked)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
	rows := f.rows(persondoor.AuditFilter{Act: "click"})
	if len(rows) != 2 || rows[1].Phase != audit.PhaseFire || rows[0].Outcome != vocab.OutcomeRefused || rows[0].Code != vocab.CodeUnmapped {
		t.Fatalf("want the fire row, then refused/unmapped; got %+v", rows)
	}
}

// A frame that cannot be asked to watch refuses the act before any input.
func TestAnActNoFrameCanWatchFiresNothing(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	ref, _ := f.snapRef("Place order")
	f.Browser.FailWatch(true)
	err := f.click(ref)
	if codeOf(err) != vocab.CodeUnmapped {
		t.Fatalf("click = %v, want unmapped", err)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}

// After the act, the frame says where its events arrived: on the element,
// the answer and the outcome row say the click reached it; elsewhere, the
// act is done but missed, and both say where it landed.
func TestTheActsAnswerSaysWhereItsEventsArrived(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	ref, _ := f.snapRef("Place order")
	res, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Effect != "the click reached button “Place order”" || res.Missed {
		t.Errorf("effect %q (missed %v), want the click reaching the button", res.Effect, res.Missed)
	}
	if rows := f.rows(persondoor.AuditFilter{Act: "click", Limit: 1}); rows[0].Outcome != vocab.OutcomeDone || rows[0].Code != "" || !strings.Contains(rows[0].Detail, "reached button") {
		t.Errorf("outcome row %+v, want done saying the click reached the button", rows[0])
	}

	f.Browser.SetEffects(func(p protocol.EffectsParams) protocol.EffectsResult {
		cover := &protocol.Landed{Role: "generic", Name: "Special offer!\u202e", Tag: "div#cover"}
		return protocol.EffectsResult{Down: cover, Up: cover, Click: cover}
	})
	ref, _ = f.snapRef("Place order")
	res, err = f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	if err != nil {
		t.Fatal(err)
	}
	want := "the click fired but landed on div#cover, not on button “Place order”: the page may not have reacted"
	if !res.Missed || res.Effect != want {
		t.Errorf("effect %q (missed %v), want %q", res.Effect, res.Missed, want)
	}
	if rows := f.rows(persondoor.AuditFilter{Act: "click", Limit: 1}); rows[0].Outcome != vocab.OutcomeDone || rows[0].Code != vocab.CodeMissed || !strings.Contains(rows[0].Detail, "div#cover") {
		t.Errorf("outcome row %+v, want done/missed naming div#cover", rows[0])
	}

	// A click whose events the frame never saw landed in another frame.
	f.Browser.SetEffects(func(p protocol.EffectsParams) protocol.EffectsResult { return protocol.EffectsResult{} })
	ref, _ = f.snapRef("Place order")
	res, err = f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Missed || !strings.Contains(res.Effect, "never arrived in the element's frame") {
		t.Errorf("effect %q (missed %v), want a click said never to have arrived", res.Effect, res.Missed)
	}

	f.Browser.SetEffects(func(p protocol.EffectsParams) protocol.EffectsResult {
		return protocol.EffectsResult{Keys: 5, KeysOn: 0}
	})
	ref, _ = f.snapRef("Search")
	res, err = f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Type, Text: "socks"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Missed || !strings.Contains(res.Effect, "did not have the focus") {
		t.Errorf("typing effect %q (missed %v), want the keys said to have gone elsewhere", res.Effect, res.Missed)
	}
}

// A key pressed at an element is said to have reached it when the element
// had the focus as the key went down, and to have missed otherwise.
func TestAKeyPressSaysWhetherItReachedTheElement(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	f.Browser.SetFocused(7, true)
	press := func() *agentdoor.ActResult {
		t.Helper()
		ref, _ := f.snapRef("Search")
		res, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	f.Browser.SetEffects(func(p protocol.EffectsParams) protocol.EffectsResult {
		return protocol.EffectsResult{Keys: 1, KeysOn: 1}
	})
	if res := press(); res.Missed || res.Effect != "the key reached textbox “Search”" {
		t.Errorf("effect %q (missed %v)", res.Effect, res.Missed)
	}
	f.Browser.SetEffects(func(p protocol.EffectsParams) protocol.EffectsResult { return protocol.EffectsResult{Keys: 1} })
	if res := press(); !res.Missed || !strings.Contains(res.Effect, "did not have the focus") {
		t.Errorf("effect %q (missed %v), want the key said to have gone elsewhere", res.Effect, res.Missed)
	}
}

// A watch refused because the element went is a stale ref, not a mapping
// fault.
func TestAWatchOnAGoneElementIsAStaleRef(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	ref, _ := f.snapRef("Place order")
	f.Browser.Hold(protocol.MethodWatch)
	done := make(chan error, 1)
	go func() { done <- f.click(ref) }()
	testenv.WaitFor(t, "the act to ask for its watch", func() bool {
		for _, c := range f.Browser.Calls() {
			if c == protocol.MethodWatch {
				return true
			}
		}
		return false
	})
	f.Browser.Mutate(7, func(p *coretest.Page) { p.Frames[0].Root.Children = p.Frames[0].Root.Children[1:] })
	f.Browser.Release(protocol.MethodWatch)
	if err := <-done; codeOf(err) != vocab.CodeStaleRef {
		t.Fatalf("click = %v, want stale_ref", err)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}
