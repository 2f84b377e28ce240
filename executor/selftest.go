package executor

// ReplaceGuard makes g the release guard of ex in place of the one it has,
// until restore is called, which puts the old one back and leaves g to the
// caller. The self-test uses it to show, with a real act, that a guard
// whose parent dies lets go of what the act holds: its guard's parent is a
// helper it kills. Call it only while no act fires; it reports false for an
// executor that sends no input of its own.
func ReplaceGuard(ex Executor, g *Guard) (restore func(), ok bool) {
	e, ok := ex.(interface{ guarded() *sequence })
	if !ok {
		return func() {}, false
	}
	s := e.guarded()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.guard
	s.guard = g
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.guard = old
	}, true
}
