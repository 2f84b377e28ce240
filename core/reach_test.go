package core_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// scrollingPage is the fake browser with a page taller than its viewport:
// the button "Buy" lies at y in the page, and the page scrolls per CSS
// pixels for each wheel notch the executor turns (none when per is 0).
type scrollingPage struct {
	*coretest.Browser
	mu     sync.Mutex
	y, max float64 // guarded by mu: the page's scroll, and how far it goes
	at     float64 // the button's place in the page
	per    float64 // guarded by mu
	grow   float64 // guarded by mu: how much further the button lies after each burst
	steps  []executor.IntoViewStep
	rows   []int // guarded by mu: audit rows committed when each step fired
}

const buyID = 2

func (p *scrollingPage) Call(ctx context.Context, profile, method string, params, out any) error {
	if rp, ok := params.(protocol.ResolveParams); ok && method == protocol.MethodResolve && rp.ID == buyID {
		p.mu.Lock()
		top := p.at - p.y
		y, max := p.y, p.max
		p.mu.Unlock()
		if top < 0 || top+30 > coretest.Viewport.Height {
			return &protocol.Error{Code: protocol.CodeNotVisible, Message: "the element is scrolled out of view; scroll it into view first", Now: &protocol.Shown{
				ID: rp.ID, Role: rp.Role, Name: rp.Name, Reach: &protocol.Reach{
					Point: protocol.Point{X: 500, Y: 300}, DY: top + 15 - coretest.Viewport.Height/2, Scroll: protocol.Scroll{Y: y, MaxY: max}, Page: true,
					Viewport: coretest.Viewport, Window: coretest.Window,
				},
			}}
		}
	}
	return p.Browser.Call(ctx, profile, method, params, out)
}

// wheel moves the page as a step's notches would.
func (p *scrollingPage) wheel(ctx context.Context) error {
	st, ok := executor.IntoViewStepOf(ctx)
	if !ok {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, st)
	p.y = min(p.max, max(0, p.y+float64(st.DY)*p.per))
	if st.DY != 0 {
		p.at += p.grow
		p.max += p.grow
	}
	return nil
}

type intoViewRig struct {
	page  *scrollingPage
	exec  *executor.Fake
	log   *audit.Log
	agent *core.Session
	tab   string
	asked []string
	mu    sync.Mutex
}

func newIntoViewRig(t *testing.T, at, per float64) *intoViewRig {
	t.Helper()
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	page := &scrollingPage{Browser: coretest.NewBrowser(), at: at, per: per, max: 10000}
	r := &intoViewRig{page: page, exec: &executor.Fake{}, log: log}
	r.exec.BeforeFire = func(tk audit.Ticket) error {
		rows, err := core.ReadAudit(context.Background(), log, persondoor.AuditFilter{})
		if err != nil {
			return err
		}
		for _, row := range rows {
			if row.Seq == tk.Seq() && row.Phase == audit.PhaseFire {
				return nil
			}
		}
		t.Errorf("a step fired before row %d was committed", tk.Seq())
		return nil
	}
	r.exec.WhileFiring = page.wheel
	e := core.New(core.Options{Browser: page, Audit: log, Executor: r.exec, Logf: t.Logf})
	coretest.Run(t, e, log)
	events, stop := e.Subscribe(64)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				r.mu.Lock()
				r.asked = append(r.asked, ev.Request.Sentence())
				r.mu.Unlock()
				e.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	page.Connect()
	page.Open(3, coretest.Page{URL: "https://shop.example/long", Title: "Long page", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Top", 10, 10), coretest.Button(buyID, "Buy", 10, 300)),
	}})
	ew := &coretest.Engine{Engine: e}
	r.tab = ew.WaitTab(t, "https://shop.example/long")
	if err := e.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	r.agent = e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	return r
}

func (r *intoViewRig) clickBuy(t *testing.T) (*agentdoor.ActResult, error) {
	t.Helper()
	s, err := r.agent.Snapshot(context.Background(), r.tab)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"Buy"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no Buy in\n%s", s.Text)
	}
	ref := m[1]
	return r.agent.Act(context.Background(), agentdoor.ActRequest{Tab: r.tab, Ref: ref, Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
}

// clicks counts the steps that were the act itself, not the wheel.
func (r *intoViewRig) clicks() (wheel, act int) {
	r.page.mu.Lock()
	defer r.page.mu.Unlock()
	for _, st := range r.page.steps {
		if st.DX == 0 && st.DY == 0 {
			act++
		} else {
			wheel++
		}
	}
	return wheel, act
}

func TestAnActOnAnElementBelowTheFoldScrollsToItFirst(t *testing.T) {
	r := newIntoViewRig(t, 6000, 100)
	res, err := r.clickBuy(t)
	if err != nil {
		t.Fatal(err)
	}
	if res.Done != "Scroll to and click “Buy”" {
		t.Errorf("done %q", res.Done)
	}
	if len(r.asked) != 1 || r.asked[0] != "Scroll to and click “Buy”" {
		t.Errorf("the person was asked %q, want once, to scroll to and click", r.asked)
	}
	wheel, act := r.clicks()
	if act != 1 || wheel < 2 {
		t.Errorf("%d bursts of the wheel and %d clicks, want a few bursts and one click", wheel, act)
	}
	r.page.mu.Lock()
	first := r.page.steps[0]
	r.page.mu.Unlock()
	if first.DY != executor.MaxIntoViewNotches {
		t.Errorf("the first burst turned %d notches, want the most a burst turns (%d) for a button 5,700 px away", first.DY, executor.MaxIntoViewNotches)
	}
	rows, _ := core.ReadAudit(context.Background(), r.log, persondoor.AuditFilter{})
	var fire, outcome int
	for _, row := range rows {
		switch {
		case row.Phase == audit.PhaseFire && row.Seq == res.Audit:
			fire++
			if !strings.Contains(string(row.Act), `"reach":true`) {
				t.Errorf("the fire row's act %s does not say it scrolls", row.Act)
			}
		case row.Phase == audit.PhaseOutcome && row.RefSeq == res.Audit:
			outcome++
			if row.Outcome != vocab.OutcomeDone || !strings.Contains(row.Detail, "turned the wheel") {
				t.Errorf("outcome %s %q, want done saying how far it scrolled", row.Outcome, row.Detail)
			}
		}
	}
	if fire != 1 || outcome != 1 {
		t.Errorf("%d fire rows and %d outcome rows for the act, want one each", fire, outcome)
	}
}

func TestAReachThatCannotScrollClicksNothing(t *testing.T) {
	r := newIntoViewRig(t, 3000, 0) // the page keeps the wheel to itself
	_, err := r.clickBuy(t)
	if codeOf(err) != vocab.CodeNotVisible || !strings.Contains(err.Error(), "did not scroll") {
		t.Fatalf("got %v, want %s saying the wheel did not scroll", err, vocab.CodeNotVisible)
	}
	if wheel, act := r.clicks(); act != 0 || wheel != 1 {
		t.Errorf("%d bursts and %d clicks, want one burst and no click", wheel, act)
	}
}

func TestAScrollIntoViewGivesUpAfterMaxIntoViewBursts(t *testing.T) {
	r := newIntoViewRig(t, 6000, 100)
	// The page grows as it scrolls: the button is always further on.
	r.page.mu.Lock()
	r.page.grow = executor.MaxIntoViewNotches * 100
	r.page.mu.Unlock()
	_, err := r.clickBuy(t)
	if codeOf(err) != vocab.CodeNotVisible || !strings.Contains(err.Error(), "still out of view") {
		t.Fatalf("got %v, want %s after %d bursts", err, vocab.CodeNotVisible, core.MaxIntoViewBursts)
	}
	if wheel, act := r.clicks(); act != 0 || wheel != core.MaxIntoViewBursts {
		t.Errorf("%d bursts and %d clicks, want %d bursts and no click", wheel, act, core.MaxIntoViewBursts)
	}
	all := fmt.Sprintf("it scrolled %d,%03d px of ", core.MaxIntoViewBursts*executor.MaxIntoViewNotches*100/1000, core.MaxIntoViewBursts*executor.MaxIntoViewNotches*100%1000)
	for _, want := range []string{all, "press End or PageDown", "browser_find", "browser_handoff"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
}

// A control further than the bursts left can scroll is refused as soon as
// a burst shows it: saying how far the reach got of how far it had to go,
// and what the agent can do instead, and nothing is clicked.
func TestAReachOutOfRangeStopsEarlyAndSaysWhatToDo(t *testing.T) {
	for _, c := range []struct {
		name    string
		at, per float64
	}{
		{"a button 344,000 px down", 344000, 100},
		{"a page that scrolls a pixel a notch", 6000, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newIntoViewRig(t, c.at, c.per)
			r.page.mu.Lock()
			r.page.max = c.at + 1000
			r.page.mu.Unlock()
			_, err := r.clickBuy(t)
			if codeOf(err) != vocab.CodeNotVisible {
				t.Fatalf("got %v, want %s", err, vocab.CodeNotVisible)
			}
			moved := fmt.Sprintf("%.0f", c.per*executor.MaxIntoViewNotches)
			if len(moved) > 3 {
				moved = moved[:len(moved)-3] + "," + moved[len(moved)-3:]
			}
			if !regexp.MustCompile(`it scrolled ` + moved + ` px of [\d,]+ px down\. To get there: press End or PageDown \(browser_press_key`).MatchString(err.Error()) {
				t.Errorf("the refusal does not say how far it got of how far, then what to try: %v", err)
			}
			for _, want := range []string{"bursts of the wheel left would scroll at most", "browser_find", "browser_handoff"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal does not say %q: %v", want, err)
				}
			}
			if wheel, act := r.clicks(); act != 0 || wheel != 1 {
				t.Errorf("%d bursts and %d clicks, want one burst, which showed the rest out of reach, and no click", wheel, act)
			}
			t.Logf("refused: %v", err)
		})
	}
}

func TestAReachStepNeedsAReachTicketAndTheOtherWayRound(t *testing.T) {
	ex := &executor.Fake{}
	step := executor.WithIntoViewStep(context.Background(), executor.IntoViewStep{X: 10, Y: 10, DY: 3})
	if err := ex.Fire(step, audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{X: 10, Y: 10, Scale: 1})); err == nil {
		t.Error("a reach step fired under a plain click's ticket")
	}
	if err := ex.Fire(context.Background(), audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click, Reach: true}, audit.Landing{X: 10, Y: 10, Scale: 1})); err == nil {
		t.Error("a reach act fired without a step")
	}
	many := executor.WithIntoViewStep(context.Background(), executor.IntoViewStep{X: 10, Y: 10, DY: executor.MaxIntoViewNotches + 1})
	if err := ex.Fire(many, audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click, Reach: true}, audit.Landing{X: 10, Y: 10, Scale: 1})); err == nil {
		t.Error("a burst of more notches than a step turns fired")
	}
	if n := len(ex.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}

func TestAnAgentCannotAskForAReach(t *testing.T) {
	r := newIntoViewRig(t, 300, 100) // in view
	s, err := r.agent.Snapshot(context.Background(), r.tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`"Buy"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)[1]
	res, err := r.agent.Act(context.Background(), agentdoor.ActRequest{Tab: r.tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click, Reach: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Done != "Click “Buy”" {
		t.Errorf("done %q, want a plain click", res.Done)
	}
	if wheel, act := r.clicks(); wheel+act != 0 || len(r.exec.Fired()) != 1 {
		t.Errorf("%d reach steps and %d acts fired, want one plain click", wheel+act, len(r.exec.Fired()))
	}
}
