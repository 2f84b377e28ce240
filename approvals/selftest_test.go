package approvals

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

// selfTestPlan is the self-test's kind of plan: desktop acts in its window.
func selfTestPlan() vocab.Request {
	in := vocab.Target{Desktop: true, App: "Reins self-test · reins (pid 42)", Window: "Reins self-test", Name: "the box “Click”"}
	typed := in
	typed.Name = "its text field"
	return vocab.Request{Act: vocab.Act{Kind: vocab.Plan, Steps: 2}, Target: vocab.Target{Desktop: true}, Plan: []vocab.PlanStep{
		{Act: vocab.Act{Kind: vocab.Click}, Target: in},
		{Act: vocab.Act{Kind: vocab.Type, Text: "aq@é€\n", Clear: true}, Target: typed},
	}}
}

func TestTheSelfTestsPlanCoversItsDesktopStepsAndAnAgentsNever(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	b := NewBroker(BrokerOptions{Answerer: &planAnswerer{upTo: 2}, Now: c.now})
	plan := selfTestPlan()

	agents, err := b.DecidePlan(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agents.Step(0, asStep(plan, 0)); err == nil || !strings.Contains(err.Error(), "desktop act") {
		t.Fatalf("an agent's plan covered a desktop act: %v", err)
	}

	p, err := b.DecideSelfTest(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plan.Plan {
		ok, err := p.Step(i, asStep(plan, i))
		if err != nil || !ok.Valid() || ok.How() != vocab.AllowPlan {
			t.Fatalf("step %d of the self-test: %v %v", i+1, ok, err)
		}
	}

	p, err = b.DecideSelfTest(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	other := asStep(plan, 0)
	other.Target.Name = "the box “Drag”"
	if _, err := p.Step(0, other); err == nil {
		t.Fatal("the self-test's plan covered a step it does not hold")
	}

	tab := selfTestPlan()
	tab.Plan[1].Target = field("e1", "Name")
	if _, err := b.DecideSelfTest(context.Background(), tab); err == nil {
		t.Fatal("the self-test's plan took a step in a tab")
	}
}
