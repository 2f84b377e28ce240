//go:build reinstest

package executor

import (
	"context"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

// TestOnlyOffsetClicks returns ex broken on purpose, for the self-test's
// own test: every Click lands dx, dy DIP away from its plan's point, as a
// wrong mapping inside the executor would put it; every other act and
// question goes to ex unchanged. Only the reinstest build has it.
func TestOnlyOffsetClicks(ex Executor, dx, dy float64) Executor {
	seq, ok := ex.(interface{ guarded() *sequence })
	b, isBackend := ex.(backend)
	if !ok || !isBackend {
		return ex
	}
	return &offsetClicks{Executor: ex, seq: seq.guarded(), b: b, dx: dx, dy: dy}
}

type offsetClicks struct {
	Executor
	seq    *sequence
	b      backend
	dx, dy float64
}

func (o *offsetClicks) Fire(ctx context.Context, t audit.Ticket) error {
	if t.Valid() && t.Act().Kind == vocab.Click {
		return o.seq.fire(ctx, offsetBackend{backend: o.b, dx: o.dx, dy: o.dy}, t)
	}
	return o.Executor.Fire(ctx, t)
}

// offsetBackend moves every point it reaches.
type offsetBackend struct {
	backend
	dx, dy float64
}

func (b offsetBackend) toDevice(pts []point, scale float64) ([]point, error) {
	moved := make([]point, len(pts))
	for i, p := range pts {
		moved[i] = point{p.X + b.dx, p.Y + b.dy}
	}
	return b.backend.toDevice(moved, scale)
}

// guarded is the wrapped executor's sequence, so that the release guard
// can still be attached to it and swapped.
func (o *offsetClicks) guarded() *sequence { return o.seq }
