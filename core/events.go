package core

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

func activityOf(en audit.Entry, now time.Time) *persondoor.Activity {
	act := vocab.StepSentence(en.Act, en.Target)
	if en.Act.Kind == vocab.Share && en.Detail != "" {
		// A share's line says what it is now, and with whom: a strip
		// shows the act, not its detail.
		r, n := utf8.DecodeRuneInString(en.Detail)
		act = plain.Text(string(unicode.ToUpper(r))+en.Detail[n:], plain.DetailMax)
	}
	return &persondoor.Activity{
		Time: now, Agent: en.Agent.Label(), Act: act, Kind: plain.Text(string(en.Act.Kind), plain.NameMax),
		Outcome: en.Outcome, Code: plain.Text(en.Code, plain.NameMax), Detail: plain.Text(en.Detail, plain.DetailMax),
	}
}

type subscribers struct {
	mu     sync.Mutex
	list   map[chan persondoor.Event]struct{} // guarded by mu
	closed bool                               // guarded by mu
}

// Subscribe returns a channel of events and a function that ends the
// subscription. A subscriber that falls behind by buf events loses the
// newest rather than stall the engine; the UI re-reads state on each event.
func (e *Engine) Subscribe(buf int) (<-chan persondoor.Event, func()) {
	ch := make(chan persondoor.Event, buf)
	e.subs.mu.Lock()
	defer e.subs.mu.Unlock()
	if e.subs.list == nil {
		e.subs.list = map[chan persondoor.Event]struct{}{}
	}
	if e.subs.closed {
		close(ch)
		return ch, func() {}
	}
	e.subs.list[ch] = struct{}{}
	return ch, func() {
		e.subs.mu.Lock()
		defer e.subs.mu.Unlock()
		if _, ok := e.subs.list[ch]; ok {
			delete(e.subs.list, ch)
			close(ch)
		}
	}
}

func (e *Engine) publish(ev persondoor.Event) {
	e.subs.mu.Lock()
	defer e.subs.mu.Unlock()
	for ch := range e.subs.list {
		select {
		case ch <- ev:
		default:
		}
	}
}

func (s *subscribers) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for ch := range s.list {
		close(ch)
	}
	s.list = nil
}

// queue is the person's side of the broker: pending requests wait here until
// a front end answers them through Engine.Answer.
type queue struct {
	e       *Engine
	mu      sync.Mutex
	pending map[string]*pending // guarded by mu
	order   []string            // guarded by mu
}

type pending struct {
	req    vocab.Request
	answer chan answer
}

// answer is the person's: a decision, and for a plan the last step allowed.
type answer struct {
	d    vocab.Decision
	upTo int
}

func newQueue(e *Engine) *queue { return &queue{e: e, pending: map[string]*pending{}} }

// Answer implements approvals.Answerer.
func (q *queue) Answer(ctx context.Context, req vocab.Request) (vocab.Decision, error) {
	a, err := q.ask(ctx, req)
	return a.d, err
}

// AnswerPlan implements approvals.PlanAnswerer: how many of the plan's
// steps, from the first, the person allowed.
func (q *queue) AnswerPlan(ctx context.Context, req vocab.Request) (int, error) {
	a, err := q.ask(ctx, req)
	if err != nil || a.d == vocab.Deny {
		return 0, err
	}
	return a.upTo, nil
}

// ask puts req before the person and waits for their answer or ctx's end.
func (q *queue) ask(ctx context.Context, req vocab.Request) (answer, error) {
	p := &pending{req: req, answer: make(chan answer, 1)}
	q.mu.Lock()
	q.pending[req.ID] = p
	q.order = append(q.order, req.ID)
	q.mu.Unlock()
	q.e.publish(persondoor.Event{Kind: persondoor.EventApproval, Tab: req.Target.Tab, Request: &req})
	defer func() {
		q.mu.Lock()
		delete(q.pending, req.ID)
		for i, id := range q.order {
			if id == req.ID {
				q.order = append(q.order[:i:i], q.order[i+1:]...)
				break
			}
		}
		q.mu.Unlock()
	}()
	select {
	case a := <-p.answer:
		q.e.publish(persondoor.Event{Kind: persondoor.EventApprovalEnd, Tab: req.Target.Tab, Request: &req, Decision: a.d})
		return a, nil
	case <-ctx.Done():
		q.e.publish(persondoor.Event{Kind: persondoor.EventApprovalEnd, Tab: req.Target.Tab, Request: &req, Decision: vocab.Deny})
		return answer{}, ctx.Err()
	}
}

// has reports whether a question with id waits for the person.
func (q *queue) has(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending[id] != nil
}

// Pending lists acts waiting for the person, oldest first.
func (e *Engine) Pending() []vocab.Request {
	q := e.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]vocab.Request, 0, len(q.order))
	for _, id := range q.order {
		out = append(out, q.pending[id].req)
	}
	return out
}

// Answer is the person's decision on a pending act. Only the person's door
// calls it; no agent-facing tool reaches it.
func (e *Engine) Answer(id string, d vocab.Decision) error {
	q := e.queue
	q.mu.Lock()
	p := q.pending[id]
	q.mu.Unlock()
	if p == nil {
		return persondoor.ErrNoSuchApproval
	}
	a := answer{d: d}
	if p.req.Act.Kind == vocab.Plan {
		// A plan is allowed whole or not at all through Answer; "allow on
		// this tab" means no more than allowing it once.
		if d != vocab.Deny {
			a = answer{d: vocab.AllowOnce, upTo: len(p.req.Plan)}
		}
	}
	return p.put(a)
}

// AnswerPlan is the person's answer to a pending plan: steps 1 to upTo
// allowed, 0 denies it.
func (e *Engine) AnswerPlan(id string, upTo int) error {
	q := e.queue
	q.mu.Lock()
	p := q.pending[id]
	q.mu.Unlock()
	if p == nil || p.req.Act.Kind != vocab.Plan {
		return persondoor.ErrNoSuchApproval
	}
	if upTo < 0 || upTo > len(p.req.Plan) {
		return fmt.Errorf("the plan has steps 1 to %d; %d is none of them", len(p.req.Plan), upTo)
	}
	if upTo == 0 {
		return p.put(answer{d: vocab.Deny})
	}
	return p.put(answer{d: vocab.AllowOnce, upTo: upTo})
}

func (p *pending) put(a answer) error {
	select {
	case p.answer <- a:
		return nil
	default:
		return persondoor.ErrNoSuchApproval
	}
}
