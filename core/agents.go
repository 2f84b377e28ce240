package core

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

// agentBook holds every agent seen since Reins started.
type agentBook struct {
	once   sync.Once // makes agents
	mu     sync.Mutex
	agents map[string]*agentEntry // guarded by mu; by AgentKey
}

type agentEntry struct {
	last     vocab.Agent    // the latest connection's identity
	program  policy.Program // the latest connection's program, as the policy names programs
	allowed  bool
	sessions int
	ask      *connectAsk // the pending first-connection request, if any
}

// connectAsk is one first-connection request in the person's queue. done is
// closed when it is answered, withdrawn or timed out; allowed is set before.
type connectAsk struct {
	id   string
	done chan struct{}
	// withdraw takes the question back from the person's queue, for an
	// agent allowed before the question reached it.
	withdraw context.CancelFunc
	allowed  bool // set before done is closed
	denied   bool // likewise: the person said no, rather than nothing
}

func (e *Engine) agentBook() *agentBook {
	e.agents.once.Do(func() { e.agents.agents = map[string]*agentEntry{} })
	return &e.agents
}

// Admit opens a session for an agent arriving through one of the agents'
// doors. The session's every call is refused with
// agent_not_allowed until the person has allowed the agent once; its first
// call puts that question in the person's queue. Close the session when the
// agent's connection ends.
func (e *Engine) Admit(a vocab.Agent) *Session {
	s := e.session(a)
	s.gated = true
	s.program = e.pol.identify(a.PID)
	// The organisation's policy before the person: an agent it does not
	// list is turned away unasked, and every call of its session says why.
	if err := e.agentPolicy(s); err != nil {
		e.record(context.Background(), audit.Entry{
			Agent: s.agent, Act: vocab.Act{Kind: vocab.Connect}, Target: vocab.Target{Name: s.program.String()},
			Outcome: vocab.OutcomeRefused, Code: vocab.CodePolicy, Detail: err.Message,
		})
		return s
	}
	b := e.agentBook()
	key := persondoor.AgentKey(s.agent)
	b.mu.Lock()
	en := b.agents[key]
	if en == nil {
		en = &agentEntry{}
		b.agents[key] = en
	}
	en.last, en.program = s.agent, s.program
	en.sessions++
	b.mu.Unlock()
	// The person is asked as the agent arrives, not when it first acts.
	s.ask()
	e.publish(persondoor.Event{Kind: persondoor.EventAgents})
	return s
}

// RefuseConnection records a connection an agents' door turned away before
// any session began (another user's process, a malformed greeting), so the
// person sees it in the activity and the log.
func (e *Engine) RefuseConnection(a vocab.Agent, why string) {
	e.record(context.Background(), audit.Entry{
		Agent: a, Act: vocab.Act{Kind: vocab.Connect},
		Outcome: vocab.OutcomeRefused, Code: vocab.CodeAgentNotAllowed, Detail: why,
	})
}

// Close ends a session opened by [Engine.Admit]; a second Close does nothing.
// Snapshots it took stay until the tab forgets them.
func (s *Session) Close() {
	if !s.gated || s.closed.Swap(true) {
		return
	}
	b := s.e.agentBook()
	b.mu.Lock()
	if en := b.agents[persondoor.AgentKey(s.agent)]; en != nil && en.sessions > 0 {
		en.sessions--
	}
	b.mu.Unlock()
	s.e.publish(persondoor.Event{Kind: persondoor.EventAgents})
}

// Agents lists the agents seen since Reins started, by name.
func (e *Engine) Agents() []persondoor.AgentInfo {
	b := e.agentBook()
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]persondoor.AgentInfo, 0, len(b.agents))
	for key, en := range b.agents {
		out = append(out, persondoor.AgentInfo{
			Key: key, Name: en.last.Name, Version: en.last.Version, PID: en.last.PID, Exe: en.last.Exe,
			Allowed: en.allowed, Asking: en.ask != nil, Sessions: en.sessions,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// AllowAgent is the person allowing an agent to use Reins, for the life of
// this Reins process. A first-connection request it has pending is answered
// with it. Only the person's door calls it; no agent-facing tool reaches it.
func (e *Engine) AllowAgent(key string) error {
	return e.setAgentAllowed(key, true)
}

// ForgetAgent withdraws the person's allowance: the agent's next call, on any
// of its connections, asks the person again.
func (e *Engine) ForgetAgent(key string) error {
	return e.setAgentAllowed(key, false)
}

func (e *Engine) setAgentAllowed(key string, allowed bool) error {
	b := e.agentBook()
	b.mu.Lock()
	en := b.agents[key]
	if en == nil {
		b.mu.Unlock()
		return fmt.Errorf("no agent %q has connected since Reins started; the list of agents shows the ones that have", key)
	}
	changed := en.allowed != allowed
	en.allowed = allowed
	ask, who := en.ask, en.last
	if !allowed && en.sessions == 0 {
		delete(b.agents, key)
	}
	b.mu.Unlock()
	if ask != nil && allowed && e.Answer(ask.id, vocab.AllowOnce) != nil {
		// The question is not in the queue yet: take it back, or it would
		// wait there, answered already, until it timed out.
		ask.withdraw()
	}
	if changed {
		detail := "forgot the agent; it will be asked about again"
		if allowed {
			detail = "allowed the agent to use Reins until Reins quits"
		}
		e.record(context.Background(), audit.Entry{
			Agent: vocab.Agent{Name: "person"}, Act: vocab.Act{Kind: vocab.Connect},
			Target: vocab.Target{Name: who.Label()}, Outcome: vocab.OutcomeDone, Detail: detail,
		})
	}
	e.publish(persondoor.Event{Kind: persondoor.EventAgents})
	return nil
}

// admitted returns nil once the session's agent may act. A session opened
// with Connect always may. For one opened with Admit, an agent the person has
// not yet allowed gets one request in the person's queue, and this call waits
// for the answer (as long as an act's approval may wait). A denial holds for
// the rest of the session; silence does not, and the next call asks again.
func (s *Session) admitted(ctx context.Context) error {
	if !s.gated {
		return nil
	}
	if err := s.e.agentPolicy(s); err != nil {
		return err
	}
	if last := s.asked.Load(); last != nil {
		select {
		case <-last.done:
			if last.denied {
				s.refused.Store(true)
			}
		default:
		}
	}
	if s.refused.Load() {
		return errorf(vocab.CodeAgentNotAllowed, "the person did not allow %s to use Reins; reconnect to ask them again", s.agent.Label())
	}
	ask := s.ask()
	if ask == nil {
		return nil
	}
	e := s.e
	b := e.agentBook()
	key := persondoor.AgentKey(s.agent)
	select {
	case <-ask.done:
	case <-ctx.Done():
		return errorf(vocab.CodeAgentNotAllowed, "%s is not yet allowed to use Reins; the person was asked in Reins — try again once they answer", s.agent.Label())
	}
	if ask.allowed {
		return nil
	}
	if ask.denied {
		s.refused.Store(true)
	}
	b.mu.Lock()
	allowedMeanwhile := b.agents[key] != nil && b.agents[key].allowed
	b.mu.Unlock()
	if allowedMeanwhile {
		return nil
	}
	return errorf(vocab.CodeAgentNotAllowed, "the person has not allowed %s to use Reins; they were asked in Reins — try again once they allow it", s.agent.Label())
}

// ask returns nil when the session's agent is allowed, else its pending
// first-connection request, which it starts if there is none.
func (s *Session) ask() *connectAsk {
	e := s.e
	b := e.agentBook()
	key := persondoor.AgentKey(s.agent)
	b.mu.Lock()
	en := b.agents[key]
	if en == nil { // forgotten while connected: known again
		en = &agentEntry{last: s.agent, sessions: 1}
		b.agents[key] = en
	}
	if en.allowed {
		b.mu.Unlock()
		return nil
	}
	ask := en.ask
	started := ask == nil
	if started {
		ctx, withdraw := context.WithCancel(context.Background())
		ask = &connectAsk{id: e.newAskID("c"), done: make(chan struct{}), withdraw: withdraw}
		en.ask = ask
		go e.askConnect(ctx, key, ask, s.agent)
	}
	b.mu.Unlock()
	if started {
		e.publish(persondoor.Event{Kind: persondoor.EventAgents})
	}
	s.asked.Store(ask)
	return ask
}

// askConnect puts a first-connection request before the person and records
// the answer.
func (e *Engine) askConnect(ctx context.Context, key string, ask *connectAsk, a vocab.Agent) {
	// The broker asks through the person's queue with its timeout, and
	// ends the question when Reins shuts down or ctx is cancelled (the
	// person allowed the agent first). The leave it returns is never
	// committed: a connection is not an act.
	defer ask.withdraw()
	req := vocab.Request{ID: ask.id, Agent: a, Act: vocab.Act{Kind: vocab.Connect}, Asked: e.opts.Now()}
	approved, err := e.broker.Decide(ctx, req)
	allowed := err == nil
	d := approved.How()

	b := e.agentBook()
	b.mu.Lock()
	en := b.agents[key]
	if !allowed && ctx.Err() != nil && en != nil && en.allowed {
		allowed, d, err = true, vocab.AllowOnce, nil // withdrawn: the person allowed it in the list of agents
	}
	if en != nil {
		if allowed {
			en.allowed = true
		}
		if en.ask == ask {
			en.ask = nil
		}
	}
	b.mu.Unlock()
	ask.allowed = allowed
	ask.denied = errors.Is(err, approvals.ErrDenied)
	close(ask.done)
	if errors.Is(err, approvals.ErrShutdown) {
		return // the log is closing with the rest of Reins
	}

	en2 := audit.Entry{Agent: a, Act: req.Act, Outcome: vocab.OutcomeDone, Decision: d.String()}
	switch {
	case allowed:
		en2.Detail = "the person allowed this agent until Reins quits"
	case ask.denied:
		en2.Outcome, en2.Code, en2.Detail = vocab.OutcomeDenied, vocab.CodeAgentNotAllowed, "the person did not allow this agent"
	default:
		en2.Outcome, en2.Code, en2.Detail, en2.Decision = vocab.OutcomeTimeout, vocab.CodeAgentNotAllowed, "no one answered, so the agent was not allowed", ""
	}
	e.record(ctx, en2)
	e.publish(persondoor.Event{Kind: persondoor.EventAgents})
}

// agentLabel is how the person's menu names the agent of key: its process
// first, then the name it declared, as text; the key itself, as text, for an
// agent not seen. The share table calls it with e.mu held: nothing may take
// e.mu while holding the agent book's lock.
func (e *Engine) agentLabel(key string) string {
	b := e.agentBook()
	b.mu.Lock()
	defer b.mu.Unlock()
	if en := b.agents[key]; en != nil {
		return plain.Who(en.last.Exe, en.last.PID, en.last.Name)
	}
	return plain.Text(key, plain.NameMax)
}
