package core

import "github.com/reins-app/reins/vocab"

// Connect opens a session that the person need not allow first, for the
// tests of what comes after that gate. Reins itself has no such session:
// every agent arrives through Admit.
func (e *Engine) Connect(a vocab.Agent) *Session { return e.session(a) }

// TabStates counts the tabs the engine keeps state for, closed ones
// included if it kept any.
func (e *Engine) TabStates() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.tabs)
}
