package approvals

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

func TestSetTimeoutAppliesToLaterRequests(t *testing.T) {
	b := NewBroker(BrokerOptions{Answerer: &scripted{wait: true}, Timeout: time.Minute})
	b.SetTimeout(20 * time.Millisecond)
	if b.Timeout() != 20*time.Millisecond {
		t.Fatalf("Timeout() = %v", b.Timeout())
	}
	start := time.Now()
	if _, err := b.Decide(context.Background(), click("1")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("silence: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the old minute still applied: %v", took)
	}
	b.SetTimeout(0)
	b.SetTimeout(-time.Second)
	if b.Timeout() != 20*time.Millisecond {
		t.Fatalf("a non-positive timeout was taken: %v", b.Timeout())
	}
}

func TestSetTimeoutKeepsThePendingRequestsTime(t *testing.T) {
	s := &scripted{wait: true, asking: make(chan struct{}, 1)}
	b := NewBroker(BrokerOptions{Answerer: s, Timeout: 60 * time.Millisecond})
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := b.Decide(context.Background(), click("1"))
		errc <- err
	}()
	s.pending(t)
	b.SetTimeout(time.Hour)
	select {
	case err := <-errc:
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("pending: %v", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the pending request took the new, longer time")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pending request took the new, longer time")
	}
}

func TestSetRememberLengthensLaterAndShortensEarlierMemories(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	s := &scripted{answer: vocab.AllowTab}
	b := NewBroker(BrokerOptions{Answerer: s, Now: c.now, Remember: 10 * time.Minute})
	ctx := context.Background()
	b.Decide(ctx, click("1"))
	// Shortened to 2 minutes: the 10-minute memory given before ends too.
	b.SetRemember(2 * time.Minute)
	if b.Remember() != 2*time.Minute {
		t.Fatalf("Remember() = %v", b.Remember())
	}
	c.add(time.Minute)
	if !b.Covered(click("1")) {
		t.Fatal("forgotten before the new length ran out")
	}
	c.add(90 * time.Second)
	if b.Covered(click("1")) {
		t.Fatal("a memory outlived the shortened length")
	}
	// Lengthened to 30 minutes: a new allow lasts 30.
	b.SetRemember(30 * time.Minute)
	b.Decide(ctx, click("1"))
	if s.asked != 2 {
		t.Fatalf("asked %d times, want 2", s.asked)
	}
	c.add(25 * time.Minute)
	if !b.Covered(click("1")) {
		t.Fatal("the new length was not used")
	}
	c.add(6 * time.Minute)
	if b.Covered(click("1")) {
		t.Fatal("the memory outlived 30 minutes")
	}
}

func TestBrokerSettersRaceWithDecide(t *testing.T) {
	b := NewBroker(BrokerOptions{Answerer: always(vocab.AllowTab)})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				b.Decide(context.Background(), click("1"))
				b.Covered(click("1"))
			}
		}()
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				b.SetTimeout(time.Duration(i+j+1) * time.Second)
				b.SetRemember(time.Duration(i+j+1) * time.Minute)
			}
		}(i)
	}
	wg.Wait()
}

// always answers every request with the same decision; safe for concurrent use.
type always vocab.Decision

func (a always) Answer(context.Context, vocab.Request) (vocab.Decision, error) {
	return vocab.Decision(a), nil
}

// Withheld, "allow on this tab" is neither offered nor taken: what was
// remembered is forgotten, and an AllowTab answer allows the act once.
func TestOfferRememberWithheldAsksEveryAct(t *testing.T) {
	s := &scripted{answer: vocab.AllowTab}
	b := NewBroker(BrokerOptions{Answerer: s})
	ctx := context.Background()
	b.Decide(ctx, click("1"))
	if !b.Covered(click("1")) {
		t.Fatal("not remembered while offered")
	}
	b.OfferRemember(false)
	if b.Covered(click("1")) {
		t.Fatal("a remembered allow outlived its withholding")
	}
	var offered bool
	b2 := NewBroker(BrokerOptions{Answerer: answerFunc(func(_ context.Context, req vocab.Request) (vocab.Decision, error) {
		offered = req.Rememberable
		return vocab.AllowTab, nil
	})})
	b2.OfferRemember(false)
	a, err := b2.Decide(ctx, click("1"))
	if err != nil || a.How() != vocab.AllowOnce || offered {
		t.Fatalf("withheld: %v, %v, offered %v", a.How(), err, offered)
	}
	if b2.Covered(click("1")) {
		t.Fatal("remembered while withheld")
	}
	b2.OfferRemember(true)
	if a, _ := b2.Decide(ctx, click("1")); a.How() != vocab.AllowTab || !b2.Covered(click("1")) {
		t.Fatalf("offered again: %v", a.How())
	}
}
