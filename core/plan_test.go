package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// planPerson answers as a person would: a plan up to upTo (0: all of it),
// every other question with single, and counts the questions.
type planPerson struct {
	mu     sync.Mutex
	asked  []vocab.Request
	upTo   int
	single vocab.Decision
}

func (f *fixture) person(p *planPerson) {
	events, stop := f.Subscribe(64)
	f.t.Cleanup(stop)
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			r := *ev.Request
			p.mu.Lock()
			p.asked = append(p.asked, r)
			upTo, single := p.upTo, p.single
			p.mu.Unlock()
			if r.Act.Kind == vocab.Plan {
				if upTo == 0 {
					upTo = len(r.Plan)
				}
				f.AnswerPlan(r.ID, upTo)
				continue
			}
			f.Answer(r.ID, single)
		}
	}()
}

func (p *planPerson) questions() []vocab.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]vocab.Request(nil), p.asked...)
}

// plan is the shop page's four steps: a search typed, Next clicked, a
// password typed, Place order clicked.
func (f *fixture) plan() agentdoor.PlanRequest {
	search, snap := f.snapRef("Search")
	next, _ := f.snapRef("Next")
	password, _ := f.snapRef("Password")
	order, _ := f.snapRef("Place order")
	return agentdoor.PlanRequest{Tab: f.tab, Snapshot: snap, Summary: "check out", Steps: []agentdoor.PlanStepRequest{
		{Ref: search, Act: vocab.Act{Kind: vocab.Type, Text: "socks"}, Reason: "find the socks"},
		{Ref: next, Act: vocab.Act{Kind: vocab.Click}},
		{Ref: password, Act: vocab.Act{Kind: vocab.Type, Text: "hunter2"}},
		{Ref: order, Act: vocab.Act{Kind: vocab.Click}},
	}}
}

func TestAPlanIsAskedOnceAndOnlyItsRiskyStepsAgain(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	p := &planPerson{single: vocab.AllowOnce}
	f.person(p)
	res, err := f.agent.RunPlan(context.Background(), f.plan())
	if err != nil {
		t.Fatal(err)
	}
	if res.Ended != "" || res.Allowed != 4 || len(res.Steps) != 4 {
		t.Fatalf("result %+v", res)
	}
	qs := p.questions()
	if len(qs) != 3 || qs[0].Act.Kind != vocab.Plan || qs[1].Target.Name != "Password" || qs[2].Target.Name != "Place order" {
		t.Fatalf("want the plan, the password and Place order asked, got %d questions: %+v", len(qs), qs)
	}
	plan := qs[0]
	if len(plan.Plan) != 4 || !plan.Plan[2].Act.Secret || plan.Plan[2].Risk == "" || plan.Plan[3].Risk == "" || plan.Plan[0].Risk != "" {
		t.Fatalf("the plan as shown: %+v", plan.Plan)
	}
	if strings.Contains(plan.Plan[2].Sentence(), "hunter2") || !strings.Contains(plan.Plan[2].Sentence(), "7 characters") {
		t.Fatalf("the password step reads %q", plan.Plan[2].Sentence())
	}
	if plan.Plan[0].Box == nil {
		t.Fatal("the first step's target has no box in the plan's picture")
	}
	if !res.Steps[2].Asked || !res.Steps[3].Asked || res.Steps[0].Asked || res.Steps[1].Asked {
		t.Fatalf("asked on their own: %+v", res.Steps)
	}
	if got := len(f.Exec.Fired()); got != 4 {
		t.Fatalf("%d acts fired, want 4", got)
	}
	rows := f.rows(persondoor.AuditFilter{})
	var covered, planRows int
	for _, r := range rows {
		if r.Decision == vocab.AllowPlan.String() && r.Phase == audit.PhaseFire {
			covered++
		}
		if r.ActKind == string(vocab.Plan) {
			planRows++
		}
	}
	for _, r := range rows {
		if r.ActKind == string(vocab.Plan) && r.Outcome == vocab.OutcomeDone && r.Decision != "" {
			if !strings.Contains(r.Detail, "3. Type 7 characters into “Password”") || strings.Contains(r.Detail, "hunter2") {
				t.Errorf("the plan's row lists its steps as %q", r.Detail)
			}
		}
	}
	if covered != 2 || planRows != 2 {
		t.Fatalf("%d fire rows allowed by the plan (want 2), %d plan rows (want its answer and its end)", covered, planRows)
	}
}

func TestARelabelledStepIsAskedNotFired(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	p := &planPerson{single: vocab.Deny}
	f.person(p)
	plan := f.plan()
	plan.Steps = plan.Steps[:2]
	// The page renames Next as the first step types: the plan's Next is
	// not what is there at step 2's turn.
	f.Exec.BeforeFire = func(audit.Ticket) error {
		f.Browser.Mutate(7, func(pg *coretest.Page) { relabel(pg, 4, "Delete account") })
		return nil
	}
	res, err := f.agent.RunPlan(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Exec.Fired()); got != 1 {
		t.Fatalf("%d acts fired, want only the first step", got)
	}
	qs := p.questions()
	if len(qs) != 2 || qs[1].Target.Name != "Delete account" || qs[1].Act.Step != 2 {
		t.Fatalf("the relabelled step was not asked as it is now: %+v", qs)
	}
	if !res.Steps[1].Asked || res.Steps[1].Code != vocab.CodeDenied || !strings.Contains(res.Ended, "step 2") {
		t.Fatalf("result %+v", res)
	}
}

func TestAPlanEndsOnNavigationPauseAndShareChange(t *testing.T) {
	for name, during := range map[string]func(f *fixture){
		"navigation": func(f *fixture) { f.Browser.Load(7, shop()) },
		"pause":      func(f *fixture) { f.Pause(true) },
		// Shared anew: the plan was allowed on the share before.
		"share change": func(f *fixture) { f.SetShare(f.tab, vocab.Control) },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, 2*time.Second)
			f.SetShare(f.tab, vocab.Control)
			f.person(&planPerson{single: vocab.AllowOnce})
			plan := f.plan()
			plan.Steps = plan.Steps[:2]
			f.Exec.BeforeFire = func(audit.Ticket) error {
				during(f)
				return nil
			}
			res, err := f.agent.RunPlan(context.Background(), plan)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(f.Exec.Fired()); got > 1 {
				t.Fatalf("%d acts fired after the plan ended", got)
			}
			// Step 2 is not run: the plan ended, or, when it comes first,
			// the navigation made its ref stale, or the pause refused it.
			switch res.Steps[1].Code {
			case vocab.CodePlanEnded, vocab.CodeStaleRef, vocab.CodePaused:
			default:
				t.Fatalf("step 2 after the %s: %+v", name, res.Steps[1])
			}
			if res.Ended == "" || res.Steps[1].Audit != 0 {
				t.Fatalf("the plan went on: %+v", res)
			}
		})
	}
}

func TestAPlanAllowedUpToAStepRunsNoFurther(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	p := &planPerson{upTo: 1, single: vocab.AllowOnce}
	f.person(p)
	res, err := f.agent.RunPlan(context.Background(), f.plan())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Exec.Fired()); got != 1 || res.Allowed != 1 || res.Steps[1].Code != vocab.CodePlanEnded || len(p.questions()) != 1 {
		t.Fatalf("fired %d, result %+v", got, res)
	}
}

func TestAPlanThatCannotRunIsRefusedBeforeAnyoneIsAsked(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	p := &planPerson{single: vocab.AllowOnce}
	f.person(p)
	f.SetShare(f.tab, vocab.ReadOnly)
	plan := f.plan()
	if _, err := f.agent.RunPlan(context.Background(), plan); codeOf(err) != vocab.CodeControlRequired {
		t.Fatalf("read-only: %v", err)
	}
	f.SetShare(f.tab, vocab.Control)
	nav := plan
	nav.Steps = append([]agentdoor.PlanStepRequest{{Act: vocab.Act{Kind: vocab.Navigate, URL: "https://evil.example"}}}, plan.Steps...)
	if _, err := f.agent.RunPlan(context.Background(), nav); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("navigation in a plan: %v", err)
	}
	long := plan
	for len(long.Steps) <= agentdoor.MaxPlanSteps {
		long.Steps = append(long.Steps, plan.Steps[1])
	}
	if _, err := f.agent.RunPlan(context.Background(), long); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("%d steps: %v", len(long.Steps), err)
	}
	if _, err := f.agent.RunPlan(context.Background(), agentdoor.PlanRequest{Tab: f.tab}); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("no steps: %v", err)
	}
	if len(p.questions()) != 0 || len(f.Exec.Fired()) != 0 {
		t.Fatal("a plan that could not run was put to the person")
	}
}

// relabel renames node id of a page's top frame.
func relabel(pg *coretest.Page, id int, name string) {
	var walk func(n *protocol.Node)
	walk = func(n *protocol.Node) {
		if n == nil {
			return
		}
		if n.ID == id {
			n.Name = name
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(pg.Frames[0].Root)
}

func TestTheStripTicksOffEachStep(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	events, stop := f.Subscribe(256)
	defer stop()
	f.person(&planPerson{single: vocab.AllowOnce})
	if _, err := f.agent.RunPlan(context.Background(), f.plan()); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for len(events) > 0 {
		if ev := <-events; ev.Kind == persondoor.EventActivity && ev.Activity.Outcome != "firing" {
			lines = append(lines, ev.Activity.Act+" · "+ev.Activity.Outcome)
		}
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"Run a plan of 4 steps; the agent says “check out” · done",
		"Step 1 of 4: Type “socks” into “Search” · done",
		"Step 2 of 4: Click “Next” · done",
		"Step 3 of 4: Type 7 characters into “Password” · done",
		"Step 4 of 4: Click “Place order” · done",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the strip does not show %q; it shows:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hunter2") {
		t.Fatal("the strip shows a password")
	}
}

// A step whose click landed elsewhere fired, but the plan stops there:
// what came next was planned for a page the miss may have changed.
func TestAPlanStopsAtAStepThatMissed(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	f.person(&planPerson{single: vocab.AllowOnce})
	f.Browser.SetEffects(func(p protocol.EffectsParams) protocol.EffectsResult {
		if p.Kind == string(vocab.Click) {
			cover := &protocol.Landed{Role: "dialog", Name: "Newsletter", Tag: "div"}
			return protocol.EffectsResult{Down: cover, Up: cover, Click: cover}
		}
		on := &protocol.Landed{On: true, Role: "textbox", Name: "Search", Tag: "input"}
		return protocol.EffectsResult{Keys: 5, KeysOn: 5, Input: on, Inputs: 5}
	})
	res, err := f.agent.RunPlan(context.Background(), f.plan())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Exec.Fired()) != 2 || len(res.Steps) != 4 {
		t.Fatalf("fired %d acts, result %+v; want the search typed and Next clicked, then nothing", len(f.Exec.Fired()), res)
	}
	if st := res.Steps[1]; st.Code != vocab.CodeMissed || st.Audit == 0 || !strings.Contains(st.Effect, "landed on dialog “Newsletter”") {
		t.Errorf("step 2 %+v, want fired and missed, saying where it landed", st)
	}
	if res.Steps[2].Code != vocab.CodePlanEnded || !strings.Contains(res.Ended, "step 2 fired but missed") {
		t.Errorf("the plan went on after the miss: %+v", res)
	}
}
