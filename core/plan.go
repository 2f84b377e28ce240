package core

import (
	"context"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

// RunPlan puts a plan to the person and runs the steps they allow.
func (s *Session) RunPlan(ctx context.Context, p agentdoor.PlanRequest) (*agentdoor.PlanResult, error) {
	return nil, errorf(vocab.CodeBadRequest, "plans are not available yet")
}
