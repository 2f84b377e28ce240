package core

import (
	"context"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// The engine is reached through two doors, each a value that holds the
// engine unexported and forwards only its own calls: a front end given one
// cannot reach the other's calls, by assertion or otherwise.

var (
	_ agentdoor.Session      = (*Session)(nil)
	_ persondoor.Door        = (*Engine)(nil)
	_ persondoor.Verifier    = runtimePerson{}
	_ persondoor.ChordHolder = runtimePerson{}
	_ persondoor.Hand        = runtimePerson{}
)

// AgentDoor is the engine's agents' door: admitting a connection, and the
// session's reads and acts.
func (e *Engine) AgentDoor() agentdoor.Door { return agents{e} }

type agents struct{ e *Engine }

func (d agents) Admit(a vocab.Agent) agentdoor.Session      { return d.e.Admit(a) }
func (d agents) RefuseConnection(a vocab.Agent, why string) { d.e.RefuseConnection(a, why) }

// PersonDoor is the engine's person's door: answers, shares, pause,
// agents, settings and events.
func (e *Engine) PersonDoor() persondoor.Door { return person{e} }

// PersonDoor is the runtime's person's door, which can also verify the
// audit log (persondoor.Verifier) and tell whether the pause chord is held
// (persondoor.ChordHolder), and tells the person's own clicks on Reins'
// controls from a program's (persondoor.Hand).
func (r *Runtime) PersonDoor() persondoor.Door { return runtimePerson{person{r.Engine}, r} }

type runtimePerson struct {
	person
	r *Runtime
}

func (d runtimePerson) VerifyAudit(ctx context.Context) (int, error) { return d.r.VerifyAudit(ctx) }
func (d runtimePerson) PauseChordTaken() bool                        { return d.r.PauseChordTaken() }
func (d runtimePerson) WatchPresses(o persondoor.PressOptions) (persondoor.PressWatch, error) {
	if d.r.windowsHand != nil {
		return d.r.windowsHand.WatchPresses(o)
	}
	return d.r.hand.WatchPresses(o)
}

type person struct{ e *Engine }

func (d person) Subscribe(buf int) (<-chan persondoor.Event, func()) { return d.e.Subscribe(buf) }
func (d person) Tabs() []vocab.TabInfo                               { return d.e.Tabs() }
func (d person) SetShare(tab string, l vocab.Level) error            { return d.e.SetShare(tab, l) }
func (d person) Share(tab string) vocab.Level                        { return d.e.Share(tab) }
func (d person) Pending() []vocab.Request                            { return d.e.Pending() }
func (d person) Answer(id string, dec vocab.Decision) error          { return d.e.Answer(id, dec) }
func (d person) AnswerPlan(id string, upTo int) error                { return d.e.AnswerPlan(id, upTo) }
func (d person) Pause(on bool)                                       { d.e.Pause(on) }
func (d person) Paused() bool                                        { return d.e.Paused() }
func (d person) Connected() bool                                     { return d.e.Connected() }
func (d person) Agents() []persondoor.AgentInfo                      { return d.e.Agents() }
func (d person) AllowAgent(key string) error                         { return d.e.AllowAgent(key) }
func (d person) ForgetAgent(key string) error                        { return d.e.ForgetAgent(key) }
func (d person) ShareWith(tab string, l vocab.Level, agent string) error {
	return d.e.ShareWith(tab, l, agent)
}
func (d person) AuditRows(ctx context.Context, f persondoor.AuditFilter) ([]persondoor.AuditRow, error) {
	return d.e.AuditRows(ctx, f)
}
func (d person) Settings() settings.Settings                    { return d.e.Settings() }
func (d person) SetApprovalTimeout(t time.Duration) error       { return d.e.SetApprovalTimeout(t) }
func (d person) SetRememberFor(t time.Duration) error           { return d.e.SetRememberFor(t) }
func (d person) SetBridgePort(port int) error                   { return d.e.SetBridgePort(port) }
func (d person) SetStartAtLogin(on bool) error                  { return d.e.SetStartAtLogin(on) }
func (d person) SetPauseChord(chord string) error               { return d.e.SetPauseChord(chord) }
func (d person) AddDenied(name string) error                    { return d.e.AddDenied(name) }
func (d person) RemoveDenied(name string) error                 { return d.e.RemoveDenied(name) }
func (d person) OpenApps(ctx context.Context) ([]string, error) { return d.e.OpenApps(ctx) }
func (d person) Handoffs() []persondoor.Handoff                 { return d.e.Handoffs() }
func (d person) FinishHandoff(id string, done bool, confirm string) error {
	return d.e.FinishHandoff(id, done, confirm)
}
