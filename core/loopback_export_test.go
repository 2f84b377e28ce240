package core

import "github.com/reins-app/reins/internal/peercred"

// SetTestOnlyPrograms makes the engine ask f, not the OS, which programs
// listen where a loopback tab is served. Call it before any share.
func (e *Engine) SetTestOnlyPrograms(f func(host string, port int) ([]peercred.Program, error)) {
	e.programs = f
}
