package approvals

import (
	"context"
	"errors"

	"github.com/reins-app/reins/vocab"
)

// DecideSelfTest puts Reins' own self-test to the person as a plan, and
// returns what they allowed, as DecidePlan does. Unlike an agent's plan,
// whose steps are acts in one tab, its steps are desktop acts, each in the
// self-test's own window, which the self-test checks is under the point
// before each fires; every step must still match the plan exactly. Only
// core calls it, for the self-test the person or `reins selftest` asked
// for; no agent can reach it.
func (b *Broker) DecideSelfTest(ctx context.Context, req vocab.Request) (*Planned, error) {
	for _, st := range req.Plan {
		if !st.Target.Desktop {
			return nil, errors.New("approvals: the self-test's steps are desktop acts")
		}
	}
	p, err := b.DecidePlan(ctx, req)
	if err != nil {
		return nil, err
	}
	p.desktop = true
	return p, nil
}
