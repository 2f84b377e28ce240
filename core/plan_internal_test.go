package core

import (
	"context"
	"testing"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/vocab"
)

type allPlans struct{}

func (allPlans) Answer(context.Context, vocab.Request) (vocab.Decision, error) {
	return vocab.AllowOnce, nil
}
func (allPlans) AnswerPlan(_ context.Context, r vocab.Request) (int, error) { return len(r.Plan), nil }

// A step the plan covered is checked once more right before it fires: the
// plan must still run, on the page it covered the step on.
func TestAStepThePlanCoveredIsCheckedAgainBeforeItFires(t *testing.T) {
	b := approvals.NewBroker(approvals.BrokerOptions{Answerer: allPlans{}})
	step := vocab.PlanStep{Act: vocab.Act{Kind: vocab.Click}, Target: vocab.Target{Tab: "1", Origin: "https://a.example", Ref: "e1", Role: "button", Name: "Next"}}
	fresh := func() *approvals.Planned {
		p, err := b.DecidePlan(context.Background(), vocab.Request{Act: vocab.Act{Kind: vocab.Plan}, Plan: []vocab.PlanStep{step}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	page := grounding.FrameState{Doc: "d1", Epoch: 1}
	e := &Engine{tabs: map[string]*tabState{"1": {id: "1", frames: map[int]grounding.FrameState{0: page}}}}
	f := firing{tab: "1", turn: &planTurn{plan: fresh(), page: page}}
	if err := e.planStill(f); err != nil {
		t.Fatalf("the same page, the plan running: %v", err)
	}

	e.tabs["1"].frames[0] = grounding.FrameState{Doc: "d2", Epoch: 1} // a new document
	if err := e.planStill(f); err == nil || err.(*vocab.Error).Code != vocab.CodePlanEnded {
		t.Fatalf("a new document: %v", err)
	}
	e.tabs["1"].frames[0] = grounding.FrameState{Doc: "d1", Epoch: 2} // a same-document navigation
	if err := e.planStill(f); err == nil {
		t.Fatal("a same-document navigation let the step fire")
	}

	e.tabs["1"].frames[0] = page
	f.turn.plan.End("the person changed how the tab is shared")
	if err := e.planStill(f); err == nil || err.(*vocab.Error).Code != vocab.CodePlanEnded {
		t.Fatalf("an ended plan: %v", err)
	}
	if err := e.planStill(firing{tab: "1"}); err == nil {
		t.Fatal("a step without a plan passed as one")
	}
}
