package core_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// An agent the person turned away as it arrived, before its first call, is
// not asked about again on that call: the "no" holds for the session.
func TestANoGivenBeforeTheFirstCallHolds(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	var asked atomic.Int32
	events, stop := e.Subscribe(64)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval && ev.Request.Act.Kind == vocab.Connect {
				asked.Add(1)
				e.Answer(ev.Request.ID, vocab.Deny)
			}
		}
	}()
	s := e.AgentDoor().Admit(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	defer s.Close()
	testenv.WaitFor(t, "the person's no to be written", func() bool {
		rows, _ := e.AuditRows(context.Background(), persondoor.AuditFilter{Act: string(vocab.Connect), Outcome: vocab.OutcomeDenied})
		return len(rows) == 1
	})
	if _, err := s.ListTabs(context.Background()); codeOf(err) != vocab.CodeAgentNotAllowed {
		t.Fatalf("the first call after a no: %v, want %s", err, vocab.CodeAgentNotAllowed)
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the person was asked %d times, want once", n)
	}
}
