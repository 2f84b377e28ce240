package approvals

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestShareIsBoundToTheOriginSharedOn(t *testing.T) {
	g := NewShares(nil)
	if err := g.Set("1", "https://shop.example.com", vocab.Control); err != nil {
		t.Fatal(err)
	}
	if err := g.Check("1", "https://shop.example.com", vocab.Control); err != nil {
		t.Fatalf("same origin: %v", err)
	}
	if err := g.Check("1", "https://evil.example.net", vocab.ReadOnly); !errors.Is(err, ErrOriginChanged) {
		t.Fatalf("another origin: got %v", err)
	}
	// Withdrawn for good: coming back does not restore it.
	if err := g.Check("1", "https://shop.example.com", vocab.ReadOnly); !errors.Is(err, ErrNotShared) {
		t.Fatalf("after leaving: got %v", err)
	}
}

func TestShareLevels(t *testing.T) {
	g := NewShares(nil)
	o := "https://a.example"
	if err := g.Check("1", o, vocab.ReadOnly); !errors.Is(err, ErrNotShared) {
		t.Fatalf("none: %v", err)
	}
	g.Set("1", o, vocab.ReadOnly)
	if err := g.Check("1", o, vocab.ReadOnly); err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := g.Check("1", o, vocab.Control); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("control on read: %v", err)
	}
	g.Set("1", o, vocab.None)
	if err := g.Check("1", o, vocab.ReadOnly); !errors.Is(err, ErrNotShared) {
		t.Fatalf("unshared: %v", err)
	}
	if err := g.Set("2", "", vocab.ReadOnly); err == nil {
		t.Fatal("a page without an origin was shared")
	}
	if err := g.Check(vocab.DesktopKey, "", vocab.ReadOnly); !errors.Is(err, ErrDesktopNotShared) {
		t.Fatalf("desktop: %v", err)
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example/x?y#z":    "https://a.example",
		"http://127.0.0.1:8080/page": "http://127.0.0.1:8080",
		"about:blank":                "",
		"chrome://extensions":        "",
		"data:text/html,hi":          "",
		"javascript:alert(1)":        "",
		"https://user:pw@a.example/": "https://a.example",
		"file:///etc/passwd":         "",
		"HTTPS://A.EXAMPLE/":         "https://a.example",
		"https://a.example:443/path": "https://a.example",
		"https://a.example:8443/":    "https://a.example:8443",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}

type scripted struct {
	answer vocab.Decision
	err    error
	wait   bool          // block until ctx ends
	asking chan struct{} // if not nil, receives a value as each request reaches the person
	asked  int
}

func (s *scripted) Answer(ctx context.Context, req vocab.Request) (vocab.Decision, error) {
	s.asked++
	if s.asking != nil {
		s.asking <- struct{}{}
	}
	if s.wait {
		<-ctx.Done()
		return vocab.Deny, ctx.Err()
	}
	return s.answer, s.err
}

func click(tab string) vocab.Request {
	return vocab.Request{ID: "r", Agent: vocab.Agent{Name: "a", Session: "s1"}, Act: vocab.Act{Kind: vocab.Click}, Target: vocab.Target{Tab: tab, Name: "OK"}}
}

func TestBrokerDecisions(t *testing.T) {
	ctx := context.Background()
	a, err := NewBroker(BrokerOptions{Answerer: &scripted{answer: vocab.AllowOnce}}).Decide(ctx, click("1"))
	if err != nil || !a.Valid() || a.How() != vocab.AllowOnce || a.Request().Act.Kind != vocab.Click {
		t.Fatalf("allow once: %+v, %v", a, err)
	}
	if a, err := NewBroker(BrokerOptions{Answerer: &scripted{answer: vocab.Deny}}).Decide(ctx, click("1")); !errors.Is(err, ErrDenied) || a.Valid() {
		t.Fatalf("deny: %v", err)
	}
	if _, err := NewBroker(BrokerOptions{Answerer: &scripted{err: errors.New("popup closed")}}).Decide(ctx, click("1")); !errors.Is(err, ErrDenied) {
		t.Fatalf("a closed popup: %v", err)
	}
	if _, err := NewBroker(BrokerOptions{Answerer: &scripted{wait: true}, Timeout: 20 * time.Millisecond}).Decide(ctx, click("1")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("silence: %v", err)
	}
	if _, err := NewBroker(BrokerOptions{}).Decide(ctx, click("1")); !errors.Is(err, ErrNoAnswerer) {
		t.Fatalf("no answerer: %v", err)
	}
	var zero Approved
	if zero.Valid() {
		t.Fatal("the zero Approved is valid")
	}
}

// pending waits until a request has reached the person s plays.
func (s *scripted) pending(t *testing.T) {
	t.Helper()
	select {
	case <-s.asking:
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for the request to reach the person")
	}
}

func TestBrokerShutdownDeniesPendingAndFuture(t *testing.T) {
	s := &scripted{wait: true, asking: make(chan struct{}, 1)}
	b := NewBroker(BrokerOptions{Answerer: s, Timeout: time.Minute})
	errc := make(chan error, 1)
	go func() {
		_, err := b.Decide(context.Background(), click("1"))
		errc <- err
	}()
	s.pending(t)
	b.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrShutdown) {
			t.Fatalf("pending: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("shutdown left a request pending")
	}
	if _, err := b.Decide(context.Background(), click("1")); !errors.Is(err, ErrShutdown) {
		t.Fatalf("after: %v", err)
	}
}

func TestAllowOnTabIsRememberedForAWhileAndNeverForSecrets(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	s := &scripted{answer: vocab.AllowTab}
	b := NewBroker(BrokerOptions{Answerer: s, Now: c.now, Remember: 10 * time.Minute})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := b.Decide(ctx, click("1")); err != nil {
			t.Fatal(err)
		}
	}
	if s.asked != 1 {
		t.Fatalf("asked %d times, want 1", s.asked)
	}
	if !b.Covered(click("1")) || b.Covered(click("2")) {
		t.Fatal("Covered disagrees with the memory")
	}
	// Another tab, another agent session, another kind: asked again.
	other := click("1")
	other.Agent.Session = "s2"
	b.Decide(ctx, click("2"))
	b.Decide(ctx, other)
	if s.asked != 3 {
		t.Fatalf("asked %d times, want 3", s.asked)
	}
	c.add(11 * time.Minute)
	b.Decide(ctx, click("1"))
	if s.asked != 4 {
		t.Fatal("the memory outlived its time")
	}
	b.ForgetTab("1")
	b.Decide(ctx, click("1"))
	if s.asked != 5 {
		t.Fatal("ForgetTab kept the memory")
	}
	// Secrets and navigation are asked every time, whatever the answer was.
	secret := vocab.Request{Agent: vocab.Agent{Session: "s1"}, Act: vocab.Act{Kind: vocab.Type, Text: "pw", Secret: true}, Target: vocab.Target{Tab: "1"}}
	nav := vocab.Request{Agent: vocab.Agent{Session: "s1"}, Act: vocab.Act{Kind: vocab.Navigate, URL: "https://x.example"}, Target: vocab.Target{Tab: "1"}}
	for i := 0; i < 2; i++ {
		a, _ := b.Decide(ctx, secret)
		if a.How() != vocab.AllowOnce {
			t.Fatalf("a secret field got %v", a.How())
		}
		b.Decide(ctx, nav)
	}
	if s.asked != 9 {
		t.Fatalf("asked %d times, want 9", s.asked)
	}
}

func TestSentenceNeverShowsSecretText(t *testing.T) {
	s := vocab.Act{Kind: vocab.Type, Text: "hunter2", Secret: true}.Sentence("Password")
	if s != "Type 7 characters into “Password”" {
		t.Fatalf("got %q", s)
	}
	if got := (vocab.Act{Kind: vocab.Type, Text: "hi", Submit: true}).Sentence("Search"); got != "Type “hi” into “Search” and press Enter" {
		t.Fatalf("got %q", got)
	}
	if got := (vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"}).Label(); got != "claude (pid 4121) · “Claude Code”" {
		t.Fatalf("got %q", got)
	}
}

func TestAHeldRequestIsAlwaysAskedAndKnowsItsDeadline(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	var got []vocab.Request
	ans := answerFunc(func(_ context.Context, r vocab.Request) (vocab.Decision, error) {
		got = append(got, r)
		return vocab.AllowTab, nil
	})
	b := NewBroker(BrokerOptions{Answerer: ans, Now: c.now, Timeout: 45 * time.Second})
	ctx := context.Background()
	asked, err := b.Decide(ctx, click("1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Deadline.Equal(c.now().Add(45*time.Second)) {
		t.Fatalf("the person was shown %+v, want one request with its deadline 45 s from now", got)
	}
	if asked.Quiet() != AnsweredQuiet {
		t.Fatalf("an answered act wants the person quiet for %v, want %v", asked.Quiet(), AnsweredQuiet)
	}
	remembered, _ := b.Decide(ctx, click("1"))
	if len(got) != 1 || remembered.Quiet() != RememberedQuiet {
		t.Fatalf("a remembered allow: asked %d times, quiet for %v; want not asked, and quiet for %v", len(got), remembered.Quiet(), RememberedQuiet)
	}
	held := click("1")
	held.Busy = 1
	if b.Covered(held) {
		t.Fatal("a held act is covered by the remembered allow")
	}
	if _, err := b.Decide(ctx, held); err != nil || len(got) != 2 || got[1].Busy != 1 {
		t.Fatalf("a held act was not put to the person: %v, %+v", err, got)
	}
}

type answerFunc func(context.Context, vocab.Request) (vocab.Decision, error)

func (f answerFunc) Answer(ctx context.Context, r vocab.Request) (vocab.Decision, error) {
	return f(ctx, r)
}

// An "allow on this tab" given for typing never covers typing that presses
// Enter: a line break in the text sends or submits it as surely as a
// submit does, and the person allowed typing, not sending.
func TestAllowOnTabNeverCoversTypingThatPressesEnter(t *testing.T) {
	s := &scripted{answer: vocab.AllowTab}
	b := NewBroker(BrokerOptions{Answerer: s, Remember: 10 * time.Minute})
	ctx := context.Background()
	typing := func(text string, submit bool) vocab.Request {
		return vocab.Request{Agent: vocab.Agent{Session: "s1"}, Act: vocab.Act{Kind: vocab.Type, Text: text, Submit: submit},
			Target: vocab.Target{Tab: "1", Ref: "e3", Role: "textbox", Name: "Amount"}}
	}
	plainTyping := typing("12", false)
	if a, err := b.Decide(ctx, plainTyping); err != nil || a.How() != vocab.AllowTab {
		t.Fatalf("plain typing: %v, %v", a.How(), err)
	}
	for _, req := range []vocab.Request{typing("5000\n", false), typing("5000\r\n", false), typing("a\nb", false), typing("5000", true)} {
		if Rememberable(req.Act, req.Target) || b.Covered(req) {
			t.Errorf("%q (submit %v) may be covered by allow on this tab", req.Act.Text, req.Act.Submit)
		}
		asked := s.asked
		a, err := b.Decide(ctx, req)
		if err != nil || s.asked != asked+1 || a.How() != vocab.AllowOnce {
			t.Errorf("%q (submit %v): asked %d more times, answered %v (%v); want asked once, allowed once only", req.Act.Text, req.Act.Submit, s.asked-asked, a.How(), err)
		}
	}
	if !b.Covered(plainTyping) {
		t.Error("plain typing is no longer covered")
	}
}

// A plan covers typing that presses Enter only through a step that shows
// the same Enters: the text with its line breaks, and the submit.
func TestAPlanCoversAnEnterOnlyThroughAStepThatShowsIt(t *testing.T) {
	target := vocab.Target{Tab: "1", Origin: "https://bank.example", Ref: "e3", Role: "textbox", Name: "Amount"}
	step := func(text string, submit bool) vocab.PlanStep {
		return vocab.PlanStep{Act: vocab.Act{Kind: vocab.Type, Text: text, Submit: submit}, Target: target}
	}
	for _, c := range []struct {
		planned, asked vocab.PlanStep
		covered        bool
	}{
		{step("5000", false), step("5000\n", false), false},
		{step("5000", false), step("5000", true), false},
		{step("5000\n", false), step("5000\r\n", false), false},
		{step("5000\n", false), step("5000\n", false), true},
	} {
		p := &Planned{req: vocab.Request{Act: vocab.Act{Kind: vocab.Plan}, Plan: []vocab.PlanStep{c.planned}}, upTo: 1,
			until: time.Now().Add(time.Minute), now: time.Now}
		_, err := p.Step(0, vocab.Request{Act: c.asked.Act, Target: c.asked.Target})
		if (err == nil) != c.covered {
			t.Errorf("planned %q (%q), asked %q (%q): covered %v (%v), want %v",
				c.planned.Act.Text, c.planned.Sentence(), c.asked.Act.Text, c.asked.Sentence(), err == nil, err, c.covered)
		}
	}
	if got := step("5000\n", false).Sentence(); got != "Type “5000⏎” into “Amount” and press Enter once" {
		t.Errorf("the plan shows the step as %q", got)
	}
}
