package core

// TestOnlyListOwn has the engine list every Reins' processes with scan, as
// a Runtime on a desktop does with peercred.ReinsProcesses.
func (e *Engine) TestOnlyListOwn(scan func() ([]int, error)) { e.own.scan = scan }
