package core

import (
	"slices"
	"sync"
)

// ownWindows are the processes whose windows are a Reins': this Reins' own
// (Options.OwnProcesses) and, where the engine runs on a desktop, every
// other Reins and the terminals they descend from, listed afresh for each
// act: before the person is asked about a desktop act, and right before
// any input fires. No agent may click or type into any Reins' popup or
// serve terminal, this one's or another's.
type ownWindows struct {
	// scan lists them from the OS (peercred.ReinsProcesses); nil: only
	// Options.OwnProcesses, as in tests of a fake desktop. Set before the
	// engine runs.
	scan func() ([]int, error)

	mu   sync.Mutex
	pids []int // guarded by mu: the last scan's, nil before the first
}

// ownProcesses are the processes whose windows are a Reins', as last
// listed.
func (e *Engine) ownProcesses() []int {
	e.own.mu.Lock()
	defer e.own.mu.Unlock()
	if e.own.pids == nil {
		return e.opts.OwnProcesses
	}
	return e.own.pids
}

// refreshOwn lists every Reins' processes afresh and hands the executor
// the deny list with them. A listing that fails keeps the last one.
func (e *Engine) refreshOwn() {
	if e.own.scan == nil {
		return
	}
	pids, err := e.own.scan()
	if err != nil {
		e.opts.Logf("listing the processes of other Reins on this desktop: %v", err)
		return
	}
	all := slices.Clone(e.opts.OwnProcesses)
	for _, p := range pids {
		if !slices.Contains(all, p) {
			all = append(all, p)
		}
	}
	e.own.mu.Lock()
	same := slices.Equal(all, e.own.pids)
	e.own.pids = all
	e.own.mu.Unlock()
	if !same {
		e.opts.Executor.SetDenyList(e.denyList(e.Settings().DenyAdded))
	}
}
