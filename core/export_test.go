package core

import "github.com/reins-app/reins/vocab"

// Connect opens a session that the person need not allow first, for the
// tests of what comes after that gate. Reins itself has no such session:
// every agent arrives through Admit.
func (e *Engine) Connect(a vocab.Agent) *Session { return e.session(a) }
