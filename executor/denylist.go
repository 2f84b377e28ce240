package executor

import (
	"sync"

	"github.com/reins-app/reins/denylist"
)

// denyHolder is an executor's deny list, which the person may change while
// Reins runs. Its zero value holds the default list.
type denyHolder struct {
	mu   sync.Mutex
	list denylist.List // guarded by mu; nil means the default
}

func (h *denyHolder) get() denylist.List {
	h.mu.Lock()
	defer h.mu.Unlock()
	return orDefault(h.list)
}

func (h *denyHolder) set(d denylist.List) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.list = append(denylist.List(nil), d...)
}
