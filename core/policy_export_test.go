package core

import "github.com/reins-app/reins/policy"

// SetIdentify makes the engine find agents' programs with f, for tests
// of agents whose process is not a real one.
func (e *Engine) SetIdentify(f func(pid int) policy.Program) { e.pol.identify = f }

// RecordPolicy writes the row saying which policy is in force, as the
// heartbeat does.
func (e *Engine) RecordPolicy(why string) { e.recordPolicy(why) }
