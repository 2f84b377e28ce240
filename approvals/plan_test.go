package approvals

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

// planAnswerer answers plans with upTo and single acts with d, and keeps
// what it was asked.
type planAnswerer struct {
	upTo  int
	d     vocab.Decision
	plans []vocab.Request
}

func (p *planAnswerer) Answer(ctx context.Context, r vocab.Request) (vocab.Decision, error) {
	return p.d, nil
}

func (p *planAnswerer) AnswerPlan(ctx context.Context, r vocab.Request) (int, error) {
	p.plans = append(p.plans, r)
	if p.upTo < 0 {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return p.upTo, nil
}

const shopSite = "https://shop.example"

func field(ref, name string) vocab.Target {
	return vocab.Target{Tab: "1", Origin: shopSite, Ref: ref, Role: "textbox", Name: name}
}

// checkout is a plan of four steps: a name typed, a password typed, a
// radio clicked, and "Place order" clicked.
func checkout() vocab.Request {
	return vocab.Request{Act: vocab.Act{Kind: vocab.Plan, Steps: 4}, Target: vocab.Target{Tab: "1", Origin: shopSite}, Plan: []vocab.PlanStep{
		{Act: vocab.Act{Kind: vocab.Type, Text: "Ada"}, Target: field("e1", "Name")},
		{Act: vocab.Act{Kind: vocab.Type, Text: "pw", Secret: true}, Target: field("e2", "Password")},
		{Act: vocab.Act{Kind: vocab.Click}, Target: vocab.Target{Tab: "1", Origin: shopSite, Ref: "e3", Role: "radio", Name: "Standard delivery"}},
		{Act: vocab.Act{Kind: vocab.Click}, Target: vocab.Target{Tab: "1", Origin: shopSite, Ref: "e4", Role: "button", Name: "Place order"}},
	}}
}

func asStep(p vocab.Request, i int) vocab.Request {
	return vocab.Request{Act: p.Plan[i].Act, Target: p.Plan[i].Target}
}

func TestAPlanCoversItsOwnStepsInOrderAndNeverTheRiskyOnes(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	a := &planAnswerer{upTo: 4}
	b := NewBroker(BrokerOptions{Answerer: a, Now: c.now})
	plan := checkout()
	p, err := b.DecidePlan(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	asked := a.plans[0]
	if asked.Plan[0].Risk != "" || asked.Plan[1].Risk == "" || asked.Plan[2].Risk != "" || asked.Plan[3].Risk == "" {
		t.Errorf("the person was not shown which steps are asked on their own: %+v", asked.Plan)
	}
	if want := PlanTimeout(30*time.Second, 4); !asked.Deadline.Equal(c.now().Add(want)) || want != 46*time.Second {
		t.Errorf("deadline %v, want now + %v (46 s)", asked.Deadline.Sub(c.now()), want)
	}
	if _, err := p.Step(1, asStep(plan, 1)); err == nil {
		t.Fatal("step 2 was covered before step 1 had its turn")
	}
	ok, err := p.Step(0, asStep(plan, 0))
	if err != nil || !ok.Valid() || ok.How() != vocab.AllowPlan || ok.Quiet() != RememberedQuiet {
		t.Fatalf("step 1: %v %v", ok, err)
	}
	if _, err := p.Step(1, asStep(plan, 1)); err == nil || !strings.Contains(err.Error(), "risk table") {
		t.Fatalf("typing into a password field was covered by the plan: %v", err)
	}
	if _, err := p.Step(2, asStep(plan, 2)); err != nil {
		t.Fatalf("step 3: %v", err)
	}
	if _, err := p.Step(3, asStep(plan, 3)); err == nil || !strings.Contains(err.Error(), "risk table") {
		t.Fatalf("Place order was covered by the plan: %v", err)
	}
}

func TestAStepThatDiffersFromThePlanIsNotCovered(t *testing.T) {
	plan := checkout()
	change := map[string]func(*vocab.Request){
		"other text":         func(r *vocab.Request) { r.Act.Text = "Eve" },
		"press Enter after":  func(r *vocab.Request) { r.Act.Submit = true },
		"another kind":       func(r *vocab.Request) { r.Act.Kind = vocab.DoubleClick },
		"another element":    func(r *vocab.Request) { r.Target.Ref = "e9" },
		"relabelled":         func(r *vocab.Request) { r.Target.Name = "Card number" },
		"another role":       func(r *vocab.Request) { r.Target.Role = "combobox" },
		"another site":       func(r *vocab.Request) { r.Target.Origin = "https://evil.example" },
		"a frame of another": func(r *vocab.Request) { r.Target.FrameOrigin = "https://ads.example" },
		"another tab":        func(r *vocab.Request) { r.Target.Tab = "2" },
		"scrolled to first":  func(r *vocab.Request) { r.Act.Reach = true },
	}
	for name, f := range change {
		t.Run(name, func(t *testing.T) {
			b := NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: 4}})
			p, err := b.DecidePlan(context.Background(), plan)
			if err != nil {
				t.Fatal(err)
			}
			r := asStep(plan, 0)
			f(&r)
			if ok, err := p.Step(0, r); err == nil || ok.Valid() {
				t.Fatalf("covered: %v", ok)
			}
			// Its turn has passed: the plan does not offer it again.
			if _, err := p.Step(0, asStep(plan, 0)); err == nil {
				t.Fatal("the step was covered at a second try")
			}
		})
	}
}

func TestAPlanEndsAndNeverCoversMoreThanThePersonSaid(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	plan := checkout()
	plan.Plan[1].Act.Secret = false // four plain steps
	plan.Plan[3].Target.Name = "Continue"

	b := NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: 2}, Now: c.now})
	p, _ := b.DecidePlan(context.Background(), plan)
	p.Step(0, asStep(plan, 0))
	p.Step(1, asStep(plan, 1))
	if _, err := p.Step(2, asStep(plan, 2)); err == nil || !strings.Contains(err.Error(), "1 to 2") {
		t.Fatalf("step 3 of a plan allowed up to step 2: %v", err)
	}

	b = NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: 4}, Now: c.now})
	p, _ = b.DecidePlan(context.Background(), plan)
	p.End("the tab navigated")
	if _, err := p.Step(0, asStep(plan, 0)); err == nil || !strings.Contains(err.Error(), "navigated") {
		t.Fatalf("an ended plan covered a step: %v", err)
	}

	p, _ = b.DecidePlan(context.Background(), plan)
	c.add(PlanLife + 4*PlanLifePerStep)
	if _, err := p.Step(0, asStep(plan, 0)); err == nil || !strings.Contains(err.Error(), "time ran out") {
		t.Fatalf("a plan past its time covered a step: %v", err)
	}
}

func TestAPlanDeniedOrUnansweredCoversNothing(t *testing.T) {
	b := NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: 0}})
	if _, err := b.DecidePlan(context.Background(), checkout()); !errors.Is(err, ErrDenied) {
		t.Fatalf("denied: %v", err)
	}
	b = NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: -1}, Timeout: time.Millisecond})
	if _, err := b.DecidePlan(context.Background(), checkout()); !errors.Is(err, ErrTimeout) {
		t.Fatalf("silence: %v", err)
	}
	// An answerer that cannot show a plan cannot be given one.
	b = NewBroker(BrokerOptions{Answerer: answerFunc(func(context.Context, vocab.Request) (vocab.Decision, error) { return vocab.AllowOnce, nil })})
	if _, err := b.DecidePlan(context.Background(), checkout()); !errors.Is(err, ErrNoAnswerer) {
		t.Fatalf("no plan answerer: %v", err)
	}
}

func TestPlanTimeoutGrowsWithThePlanUpToALimit(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		n       int
		want    time.Duration
	}{
		{30 * time.Second, 1, 34 * time.Second},
		{30 * time.Second, 20, 110 * time.Second},
		{30 * time.Second, 30, 150 * time.Second},
		{4 * time.Minute, 30, 5 * time.Minute},
		{10 * time.Minute, 30, 10 * time.Minute}, // never less than a single act gets
	} {
		if got := PlanTimeout(c.timeout, c.n); got != c.want {
			t.Errorf("PlanTimeout(%v, %d) = %v, want %v", c.timeout, c.n, got, c.want)
		}
	}
}
