package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// hurried answers as a person in a hurry does: every plain question allowed
// on the tab, every warned one denied. It keeps what it was asked; before,
// when set, runs before each answer.
type hurried struct {
	mu     sync.Mutex
	asked  []vocab.Request
	before func(vocab.Request)
}

func (h *hurried) answer(f *fixture) (stop func()) {
	events, unsubscribe := f.Subscribe(64)
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			h.mu.Lock()
			h.asked = append(h.asked, *ev.Request)
			before := h.before
			h.mu.Unlock()
			if before != nil {
				before(*ev.Request)
			}
			d := vocab.AllowTab
			if ev.Request.Risk != "" {
				d = vocab.Deny
			}
			f.Engine.Engine.Answer(ev.Request.ID, d)
		}
	}()
	return unsubscribe
}

func (h *hurried) last(t *testing.T) vocab.Request {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.asked) == 0 {
		t.Fatal("the person was asked nothing")
	}
	return h.asked[len(h.asked)-1]
}

func (f *fixture) act(r agentdoor.ActRequest) error {
	r.Tab = f.tab
	_, err := f.agent.Act(context.Background(), r)
	return err
}

// A "Next" that leads to another site: asked as a navigation there, shown
// with its address, under an "allow on this tab" given for clicks before.
func TestAClickThatLeadsToAnotherSiteIsAskedWithItsAddress(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	h := &hurried{}
	defer h.answer(f)()
	search, _ := f.snapRef("Search")
	if err := f.act(agentdoor.ActRequest{Ref: search, Act: vocab.Act{Kind: vocab.Click}}); err != nil {
		t.Fatal(err) // a plain question: allowed on the tab
	}
	dest := "https://evil.example/collect?iban=DE89370400440532013000"
	f.Browser.SetMotion(7, 4, &protocol.Motion{Leads: dest})
	next, _ := f.snapRef("Next")
	err := f.act(agentdoor.ActRequest{Ref: next, Act: vocab.Act{Kind: vocab.Click}})
	if codeOf(err) != vocab.CodeDenied {
		t.Fatalf("the click away was not denied: %v", err)
	}
	r := h.last(t)
	if r.Risk == "" || r.Rememberable || r.Target.Leads != dest || r.Sentence() != "Click “Next”, which opens "+dest {
		t.Errorf("asked %q (risk %q, rememberable %v)", r.Sentence(), r.Risk, r.Rememberable)
	}
	if n := len(f.Exec.Fired()); n != 1 {
		t.Errorf("%d acts fired, want only the first click", n)
	}
}

// A "Continue" whose form posts to /payments/confirm is asked as a
// payment; Enter in the form's Amount field too, judged by what has the
// focus.
func TestAFormThatPaysIsJudgedByWhatItSubmits(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	h := &hurried{}
	defer h.answer(f)()
	form := &protocol.Form{Action: "https://shop.example.com/payments/confirm", Method: "post", Submit: "Next", Control: true}
	f.Browser.SetMotion(7, 4, &protocol.Motion{Leads: form.Action, Form: form})
	next, _ := f.snapRef("Next")
	if err := f.act(agentdoor.ActRequest{Ref: next, Act: vocab.Act{Kind: vocab.Click}}); codeOf(err) != vocab.CodeDenied {
		t.Fatalf("the paying Next was not denied: %v", err)
	}
	if r := h.last(t); !strings.Contains(r.Risk, "pays") || r.Target.Form == nil || r.Target.Form.Action != form.Action {
		t.Errorf("asked %q with risk %q, form %+v", r.Sentence(), r.Risk, r.Target.Form)
	}
	f.Browser.SetFocus(7, protocol.FocusResult{Focused: true, Role: "textbox", Name: "Amount", Editable: true,
		Motion: &protocol.Motion{Form: &protocol.Form{Action: "https://shop.example.com/step/2", Submit: "Continue", Fields: []string{"amount"}}}})
	if err := f.act(agentdoor.ActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}}); codeOf(err) != vocab.CodeDenied {
		t.Fatalf("Enter in the Amount field was not denied: %v", err)
	}
	if r := h.last(t); r.Risk == "" || r.Target.Form == nil {
		t.Errorf("Enter asked %q with risk %q", r.Sentence(), r.Risk)
	}
	// Enter where nothing is submitted stays a plain question.
	f.Browser.SetFocus(7, protocol.FocusResult{})
	if err := f.act(agentdoor.ActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}}); err != nil {
		t.Fatalf("a plain Enter: %v", err)
	}
	if n := len(f.Exec.Fired()); n != 1 {
		t.Errorf("%d acts fired, want only the plain Enter", n)
	}
}

// An element that leads elsewhere once the person has allowed it is not
// clicked; nor is Enter once the focus has moved to a field that submits
// elsewhere.
func TestWhatChangesAfterTheQuestionDoesNotFire(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	h := &hurried{before: func(r vocab.Request) {
		f.Browser.SetMotion(7, 4, &protocol.Motion{Leads: "https://shop.example.com/elsewhere"})
		f.Browser.SetFocus(7, protocol.FocusResult{Focused: true, Motion: &protocol.Motion{Leads: "https://shop.example.com/other"}})
	}}
	defer h.answer(f)()
	f.Browser.SetMotion(7, 4, &protocol.Motion{Leads: "https://shop.example.com/orders"})
	next, _ := f.snapRef("Next")
	if err := f.act(agentdoor.ActRequest{Ref: next, Act: vocab.Act{Kind: vocab.Click}}); codeOf(err) != vocab.CodeChanged {
		t.Fatalf("a click whose link changed after the question: %v", err)
	}
	f.Browser.SetFocus(7, protocol.FocusResult{Focused: true, Motion: &protocol.Motion{Leads: "https://shop.example.com/orders"}})
	if err := f.act(agentdoor.ActRequest{Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}}); codeOf(err) != vocab.CodeChanged {
		t.Fatalf("an Enter whose focus moved after the question: %v", err)
	}
	if n := len(f.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}

// A new tab on another site is warned and shows its address whole; one too
// long to show whole is refused before anyone is asked.
func TestANewTabOnAnotherSiteIsAskedLikeANavigation(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	h := &hurried{}
	defer h.answer(f)()
	ctx := context.Background()
	to := "https://evil.example/?iban=DE89370400440532013000"
	if _, err := f.agent.OpenTab(ctx, f.tab, to); codeOf(err) != vocab.CodeDenied {
		t.Fatalf("the new tab elsewhere was not denied: %v", err)
	}
	if r := h.last(t); r.Risk == "" || !strings.Contains(r.Sentence(), to) {
		t.Errorf("asked %q with risk %q", r.Sentence(), r.Risk)
	}
	n := len(h.asked)
	long := "https://evil.example/?d=" + strings.Repeat("A", 200)
	if _, err := f.agent.OpenTab(ctx, f.tab, long); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("an address too long to show: %v", err)
	}
	if len(h.asked) != n {
		t.Error("the person was asked about an address they could not read whole")
	}
	if _, err := f.agent.OpenTab(ctx, f.tab, "https://shop.example.com/help"); err != nil {
		t.Fatalf("a new tab on the same site, a plain question: %v", err)
	}
}
