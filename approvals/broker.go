package approvals

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Answerer puts a request before a person and returns their decision. It
// returns when they answer or ctx ends; an error or ctx's end means deny.
type Answerer interface {
	Answer(ctx context.Context, req vocab.Request) (vocab.Decision, error)
}

// BrokerOptions configures [NewBroker].
type BrokerOptions struct {
	Answerer Answerer         // required
	Timeout  time.Duration    // optional: how long a person has to answer; default 30 s
	Remember time.Duration    // optional: how long AllowTab lasts; default 10 min
	Now      func() time.Time // optional: the clock
}

// Broker asks a person about each act and mints [Approved].
type Broker struct {
	opts BrokerOptions // Timeout and Remember are guarded by mu; they change with SetTimeout and SetRemember

	closed    chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	remember map[memoryKey]time.Time // guarded by mu: until when
	// withheld says "allow on this tab" is not offered at all (an
	// organisation's policy); guarded by mu.
	withheld bool
}

type memoryKey struct {
	session string
	tab     string
	kind    vocab.ActKind
}

// NewBroker makes a broker.
func NewBroker(opts BrokerOptions) *Broker {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Remember <= 0 {
		opts.Remember = 10 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Broker{opts: opts, closed: make(chan struct{}), remember: map[memoryKey]time.Time{}}
}

// Timeout is how long a person has to answer a request asked from now on.
func (b *Broker) Timeout() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opts.Timeout
}

// Remember is how long an "allow on this tab" given from now on lasts.
func (b *Broker) Remember() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opts.Remember
}

// SetTimeout changes how long a person has to answer. A request already
// before the person keeps the time it was given; later ones get d. A
// non-positive d is ignored: silence must always end in a deny.
func (b *Broker) SetTimeout(d time.Duration) {
	if d <= 0 {
		return
	}
	b.mu.Lock()
	b.opts.Timeout = d
	b.mu.Unlock()
}

// SetRemember changes how long an "allow on this tab" lasts. Decisions
// remembered already never outlast the new length: a person who shortens it
// means the shorter time from now on, for what they allowed before too. A
// non-positive d is ignored.
func (b *Broker) SetRemember(d time.Duration) {
	if d <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opts.Remember = d
	limit := b.opts.Now().Add(d)
	for k, until := range b.remember {
		if until.After(limit) {
			b.remember[k] = limit
		}
	}
}

// OfferRemember says whether "allow on this tab" may be offered at all.
// Withholding it forgets every decision remembered: from then on every
// act is asked on its own.
func (b *Broker) OfferRemember(on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.withheld = !on
	if !on {
		clear(b.remember)
	}
}

// rememberable is Rememberable, and false while "allow on this tab" is
// withheld.
func (b *Broker) rememberable(act vocab.Act, t vocab.Target) bool {
	b.mu.Lock()
	withheld := b.withheld
	b.mu.Unlock()
	return !withheld && Rememberable(act, t)
}

// Rememberable reports whether an act may be covered by "allow on this tab
// for a while": never typing into a secret field, never typing that presses
// Enter (a line break in the text, or a submit), which sends or submits
// what was typed, never navigation, which may leave the origin, never
// desktop acts, and never an act that a rule of the risk table ([Tiers])
// matches.
func Rememberable(act vocab.Act, t vocab.Target) bool {
	if t.Desktop || t.Tab == "" {
		return false
	}
	if _, risky := RiskOf(act, t); risky {
		return false
	}
	switch act.Kind {
	case vocab.Click, vocab.DoubleClick, vocab.RightClick, vocab.Hover, vocab.Scroll:
		return true
	case vocab.Type:
		return !act.Secret && act.Enters() == 0
	}
	return false
}

// Covered reports whether a remembered "allow on this tab" answers req
// without asking, so callers can skip preparing what only a person needs.
func (b *Broker) Covered(req vocab.Request) bool {
	if !b.rememberable(req.Act, req.Target) || req.Busy > 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.remember[memoryKey{req.Agent.Session, req.Target.Tab, req.Act.Kind}]
	return ok && b.opts.Now().Before(until)
}

// Decide returns leave for req, or why not: [ErrDenied], [ErrTimeout],
// [ErrShutdown] or [ErrNoAnswerer]. It blocks until the person answers.
// It sets what the person is shown about the request itself: whether
// "allow on this tab" is offered, and the warning of the risk table's rule
// the act falls under, if any; what the caller set there counts for
// nothing.
func (b *Broker) Decide(ctx context.Context, req vocab.Request) (Approved, error) {
	select {
	case <-b.closed:
		return Approved{}, ErrShutdown
	default:
	}
	now := b.opts.Now()
	if req.Asked.IsZero() {
		req.Asked = now
	}
	req.Rememberable = b.rememberable(req.Act, req.Target)
	req.Risk = Risk(req.Act, req.Target)
	key := memoryKey{req.Agent.Session, req.Target.Tab, req.Act.Kind}
	if req.Rememberable && req.Busy == 0 {
		b.mu.Lock()
		until, ok := b.remember[key]
		b.mu.Unlock()
		if ok && now.Before(until) {
			return Approved{req: req, how: vocab.Remembered, at: now, ok: true}, nil
		}
	}
	if b.opts.Answerer == nil {
		return Approved{}, ErrNoAnswerer
	}
	timeout := b.Timeout()
	req.Deadline = now.Add(timeout)
	var d vocab.Decision
	if err := b.ask(ctx, timeout, func(actx context.Context) (err error) {
		d, err = b.opts.Answerer.Answer(actx, req)
		return err
	}); err != nil {
		return Approved{}, err
	}
	switch d {
	case vocab.AllowOnce:
	case vocab.AllowTab:
		if !req.Rememberable {
			d = vocab.AllowOnce
			break
		}
		b.mu.Lock()
		if b.withheld { // withheld while the person looked: this once
			d = vocab.AllowOnce
		} else {
			b.remember[key] = b.opts.Now().Add(b.opts.Remember)
		}
		b.mu.Unlock()
	default:
		return Approved{}, ErrDenied
	}
	return Approved{req: req, how: d, at: b.opts.Now(), ok: true}, nil
}

// ask puts a question to the person through answer, which gets a context
// that ends after timeout or when the broker closes. It returns why the
// question got no answer, if it did not: [ErrTimeout], [ErrShutdown],
// ctx's error, or [ErrDenied] joined with the answerer's.
func (b *Broker) ask(ctx context.Context, timeout time.Duration, answer func(context.Context) error) error {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	go func() {
		select {
		case <-b.closed:
			cancel()
		case <-actx.Done():
		}
	}()
	err := answer(actx)
	select {
	case <-b.closed:
		return ErrShutdown
	default:
	}
	if err != nil || actx.Err() != nil {
		if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return ErrTimeout
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.Join(ErrDenied, err)
	}
	return nil
}

// ForgetTab drops remembered decisions for a tab (it navigated or closed).
func (b *Broker) ForgetTab(tab string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.remember {
		if k.tab == tab {
			delete(b.remember, k)
		}
	}
}

// Close denies every pending and future request.
func (b *Broker) Close() { b.closeOnce.Do(func() { close(b.closed) }) }
