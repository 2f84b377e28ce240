package core

// The shares' check: what the person shared, under the organisation's
// policy, for one agent, and still the program it was pinned to.

import (
	"context"
	"fmt"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// checkShare is the shares' check for a read or act on tab, and for a tab
// pinned to a program, the check that the same program listens there still.
// When another does, the share ends here and then, the person is told, and
// the read or act is refused with program_changed. Nothing listening is no
// change: no other program can answer the tab. agent is the key of the agent
// asking: a tab shared with another agent alone is not shared to it.
func (e *Engine) checkShare(agent, tab, origin string, need vocab.Level) error {
	// The organisation's policy first, so that its refusal is named.
	if err := e.sitePolicy(origin, need); err != nil {
		return err
	}
	if err := e.shares.CheckFor(tab, agent, origin, need); err != nil {
		return err
	}
	g := e.shares.Get(tab)
	if g.Program == "" {
		return nil
	}
	host, port, ok := approvals.Loopback(g.Origin)
	if !ok {
		return nil
	}
	where := hostPort(host, port)
	ps, err := e.programs(host, port)
	if err != nil {
		return &vocab.Error{Code: vocab.CodeProgramUnknown, Message: fmt.Sprintf("Reins could not tell which program listens on %s (%v), so nothing was read or done; try again", where, err), Err: err}
	}
	if len(ps) == 0 {
		return nil
	}
	now := pinOf(ps)
	ended, was := e.shares.ObserveProgram(tab, now)
	if !ended {
		// The same program; or another check ended the share meanwhile,
		// which the shares now say.
		if err := e.shares.CheckFor(tab, agent, origin, need); err != nil {
			return err
		}
		if e.shares.Get(tab).Program != now {
			return &vocab.Error{Code: vocab.CodeProgramChanged, Message: "another program now listens on " + where + ", so the share was withdrawn; ask the person to share the tab again", Err: approvals.ErrProgramChanged}
		}
		return nil
	}
	words := fmt.Sprintf("another program now listens on %s (was %s; now %s)", where, describePin(was), describe(ps))
	e.broker.ForgetTab(tab)
	// The row sits with the person's share changes: Reins ended the share
	// for them, and the detail says so.
	e.record(context.Background(), audit.Entry{
		Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
		Target:  vocab.Target{Tab: tab, Origin: g.Origin},
		Outcome: vocab.OutcomeDone, Code: vocab.CodeProgramChanged, Detail: "Reins ended the share: " + words,
	})
	e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: tab, Level: vocab.None, Detail: words})
	return &vocab.Error{Code: vocab.CodeProgramChanged, Message: words + ", so the share was withdrawn; nothing was read or done; ask the person to share the tab again", Err: approvals.ErrProgramChanged}
}
