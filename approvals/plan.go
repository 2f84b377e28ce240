package approvals

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reins-app/reins/vocab"
)

// PlanAnswerer is an [Answerer] that can put a plan to the person: it
// returns how many of the plan's steps, from the first, they allowed; 0
// is a deny.
type PlanAnswerer interface {
	AnswerPlan(ctx context.Context, req vocab.Request) (upTo int, err error)
}

// How long the person has to read a plan, and how long an allowed plan
// lasts. Both grow with its length: a longer plan takes longer to read,
// and longer to run.
const (
	PlanReadPerStep = 4 * time.Second // added to the approval timeout for each step
	PlanReadMax     = 5 * time.Minute // the most the popup waits, however long the plan
	PlanLife        = 2 * time.Minute // an allowed plan lasts this long…
	PlanLifePerStep = 15 * time.Second
)

// PlanTimeout is how long the person has to answer a plan of n steps when a
// single act gets timeout.
func PlanTimeout(timeout time.Duration, n int) time.Duration {
	return min(timeout+time.Duration(n)*PlanReadPerStep, max(timeout, PlanReadMax))
}

// Planned is a plan the person allowed, up to a step: leave for each of
// those steps, in order, while it matches the plan exactly, and for nothing
// else. A step the risk table ([Tiers]) matches is never covered: it is
// asked on its own when its turn comes.
type Planned struct {
	req   vocab.Request // the plan, as the person read it
	upTo  int           // steps 1 to upTo were allowed
	until time.Time
	now   func() time.Time

	// desktop: the plan is Reins' own self-test, whose steps are desktop
	// acts in its own window (DecideSelfTest); no agent's plan is.
	desktop bool

	mu    sync.Mutex
	next  int    // guarded by mu: the index of the step whose turn it is
	ended string // guarded by mu: why the plan ended, "" while it runs
}

// Allowed is how many steps, from the first, the person allowed.
func (p *Planned) Allowed() int { return p.upTo }

// Request is the plan as it was put to the person.
func (p *Planned) Request() vocab.Request { return p.req }

// Until is when the plan ends if it has not ended before.
func (p *Planned) Until() time.Time { return p.until }

// DecidePlan puts a plan (req.Act.Kind vocab.Plan, its steps in req.Plan)
// to the person and returns what they allowed, or why not: [ErrDenied],
// [ErrTimeout], [ErrShutdown] or [ErrNoAnswerer]. It sets what the person
// is shown of each step's risk; a plan is never remembered, and never
// answered by a remembered "allow on this tab".
func (b *Broker) DecidePlan(ctx context.Context, req vocab.Request) (*Planned, error) {
	select {
	case <-b.closed:
		return nil, ErrShutdown
	default:
	}
	if req.Act.Kind != vocab.Plan || len(req.Plan) == 0 {
		return nil, errors.New("approvals: DecidePlan needs a plan with steps")
	}
	pa, ok := b.opts.Answerer.(PlanAnswerer)
	if !ok || b.opts.Answerer == nil {
		return nil, ErrNoAnswerer
	}
	now := b.opts.Now()
	if req.Asked.IsZero() {
		req.Asked = now
	}
	req.Rememberable, req.Risk = false, ""
	req.Plan = append([]vocab.PlanStep(nil), req.Plan...)
	for i := range req.Plan {
		req.Plan[i].Risk = Risk(req.Plan[i].Act, req.Plan[i].Target)
	}
	timeout := PlanTimeout(b.Timeout(), len(req.Plan))
	req.Deadline = now.Add(timeout)
	var upTo int
	if err := b.ask(ctx, timeout, func(actx context.Context) (err error) {
		upTo, err = pa.AnswerPlan(actx, req)
		return err
	}); err != nil {
		return nil, err
	}
	if upTo <= 0 {
		return nil, ErrDenied
	}
	upTo = min(upTo, len(req.Plan))
	at := b.opts.Now()
	life := PlanLife + time.Duration(len(req.Plan))*PlanLifePerStep
	return &Planned{req: req, upTo: upTo, until: at.Add(life), now: b.opts.Now}, nil
}

// Step returns leave for the act req as step i of the plan (from 0), when
// it is that step's turn, the person allowed it, the plan has not ended or
// run out of time, the act falls under no rule of the risk table, and it
// matches the step exactly: the same kind and the same text, keys, wheel
// notches and options; the same tab, origin and frame origin; the same
// element by ref, role and name. Otherwise it says why not, and the act
// must be asked on its own. A step covered or not, its turn passes.
func (p *Planned) Step(i int, req vocab.Request) (Approved, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.liveLocked(); err != nil {
		return Approved{}, err
	}
	if i != p.next {
		return Approved{}, fmt.Errorf("step %d is not the plan's next step (%d)", i+1, p.next+1)
	}
	p.next++
	if i >= p.upTo {
		return Approved{}, fmt.Errorf("the person allowed steps 1 to %d only", p.upTo)
	}
	if _, risky := RiskOf(req.Act, req.Target); risky {
		return Approved{}, errors.New("the risk table says such an act is always asked on its own")
	}
	if req.Act.Kind == vocab.Key {
		// Keys go wherever the focus is, which the page can move between
		// the steps; the plan names no element for them.
		return Approved{}, errors.New("a key press goes wherever the focus is, so it is asked on its own")
	}
	step := p.req.Plan[i]
	if why := differs(step, req, p.desktop); why != "" {
		return Approved{}, errors.New("it no longer matches the plan: " + why)
	}
	req.Rememberable, req.Risk = false, ""
	return Approved{req: req, how: vocab.AllowPlan, at: p.now(), ok: true}, nil
}

// Pass moves the plan past step i when that step was not run through
// [Planned.Step]: refused before it could be matched.
func (p *Planned) Pass(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == i {
		p.next++
	}
}

// End ends the plan with a reason; the first reason stays.
func (p *Planned) End(why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended == "" {
		p.ended = why
	}
}

// Live returns nil while the plan runs, else why it ended.
func (p *Planned) Live() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.liveLocked()
}

func (p *Planned) liveLocked() error {
	if p.ended == "" && !p.now().Before(p.until) {
		p.ended = "its time ran out"
	}
	if p.ended != "" {
		return errors.New("the plan ended: " + p.ended)
	}
	return nil
}

// differs says how req differs from step, or "" when it matches; a
// desktop act matches only when desktop allows it.
func differs(step vocab.PlanStep, req vocab.Request, desktop bool) string {
	a, b := step.Act, req.Act
	switch {
	case a.Kind != b.Kind:
		return fmt.Sprintf("the plan said %s, this is %s", a.Kind, b.Kind)
	case a.Text != b.Text || a.Secret != b.Secret || a.Clear != b.Clear || a.Submit != b.Submit:
		return "the text or how it is typed differs"
	case a.Keys != b.Keys:
		return "the keys differ"
	case a.DX != b.DX || a.DY != b.DY:
		return "the scrolling differs"
	case a.URL != b.URL:
		return "the address differs"
	case a.Reach != b.Reach:
		return "the element must be scrolled into view first, which the plan did not say"
	}
	s, t := step.Target, req.Target
	switch {
	case s.Tab != t.Tab:
		return "another tab"
	case s.Origin != t.Origin:
		return "the tab is on another site"
	case s.FrameOrigin != t.FrameOrigin:
		return "the element is in a frame of another site"
	case s.Ref != t.Ref:
		return "another element"
	case s.Role != t.Role || s.Name != t.Name:
		return "the element's role or name changed"
	case !s.SameMotion(t):
		return "the element now leads elsewhere or submits something else"
	case t.Desktop && !desktop:
		return "a desktop act"
	}
	return ""
}
