package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// An agent may have agentdoor.MaxOpenedTabs tabs it opened open at once,
// over all its sessions: a new connection does not start the count again,
// and a tab it opened that closes makes room.
func TestOpenTabsPerAgent(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	ctx := context.Background()
	f.SetShare(f.tab, vocab.Control)
	defer f.AnswerAll(vocab.AllowOnce)()
	for i := 0; i < agentdoor.MaxOpenedTabs; i++ {
		res, err := f.agent.OpenTab(ctx, f.tab, fmt.Sprintf("https://shop.example.com/item/%d", i))
		if err != nil || res.Tab == "" {
			t.Fatalf("tab %d: %+v, %v", i+1, res, err)
		}
	}
	again := f.Connect(vocab.Agent{Name: "Test agent", PID: 4122, Exe: "/usr/bin/claude"})
	for _, s := range []interface {
		OpenTab(context.Context, string, string) (*agentdoor.OpenTabResult, error)
	}{f.agent, again} {
		if _, err := s.OpenTab(ctx, f.tab, "https://shop.example.com/one-more"); codeOf(err) != vocab.CodeBadRequest {
			t.Fatalf("an eleventh open tab: %v, want %s", err, vocab.CodeBadRequest)
		}
	}
	// The person closes the first of them (Chrome's tab 8, beside the
	// shop's 7); once Reins has heard, the agent may open another.
	f.Browser.Close(8)
	testenv.WaitWithin(t, 10*time.Second, "a tab to open after one closed", func() bool {
		_, err := again.OpenTab(ctx, f.tab, "https://shop.example.com/one-more")
		return err == nil
	})
}

// Two sessions of one agent asking at once for its last free tab get one
// between them: the second is refused before the person is asked.
func TestTheLastOpenTabGoesToOneOfTwoSessions(t *testing.T) {
	f := newFixture(t, 5*time.Second)
	ctx := context.Background()
	f.SetShare(f.tab, vocab.Control)
	stop := f.AnswerAll(vocab.AllowOnce)
	for i := 0; i < agentdoor.MaxOpenedTabs-1; i++ {
		if _, err := f.agent.OpenTab(ctx, f.tab, fmt.Sprintf("https://shop.example.com/item/%d", i)); err != nil {
			t.Fatalf("tab %d: %v", i+1, err)
		}
	}
	stop()
	events, unsubscribe := f.Subscribe(16)
	defer unsubscribe()
	again := f.Connect(vocab.Agent{Name: "Test agent", PID: 4122, Exe: "/usr/bin/claude"})
	errs := make(chan error, 2)
	for i, s := range []*core.Session{f.agent, again} {
		go func() {
			_, err := s.OpenTab(ctx, f.tab, fmt.Sprintf("https://shop.example.com/last/%d", i))
			errs <- err
		}()
	}
	// One is refused without asking; the other is asked, and allowed.
	if err := <-errs; codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("the first of two sessions to finish: %v, want %s before any answer", err, vocab.CodeBadRequest)
	}
	for ev := range events {
		if ev.Kind == persondoor.EventApproval {
			f.Engine.Answer(ev.Request.ID, vocab.AllowOnce)
			break
		}
	}
	if err := <-errs; err != nil {
		t.Fatalf("the session asked for the last tab, allowed: %v", err)
	}
	if _, err := again.OpenTab(ctx, f.tab, "https://shop.example.com/one-more"); codeOf(err) != vocab.CodeBadRequest {
		t.Fatalf("one more after the last: %v, want %s", err, vocab.CodeBadRequest)
	}
}
