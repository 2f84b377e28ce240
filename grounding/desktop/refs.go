package desktop

import (
	"strconv"
	"sync"
)

// Refs hands out desktop refs "d1", "d2", …: one per element, the same ref
// for the same element in every snapshot, never reused for another element
// for the life of the Refs (a Reins run). An element is its (pid, ID) and
// its shown role: an application may hand a dead element's object path to
// a new one, and a ref that named a button must not come to name a text
// field. Safe for concurrent use.
type Refs struct {
	mu   sync.Mutex
	refs map[refKey]string // guarded by mu
	next int               // guarded by mu; the number of the last ref handed out
}

type refKey struct {
	pid  int
	id   string
	role string // as shown
}

// NewRefs makes the refs of one Reins run.
func NewRefs() *Refs {
	return &Refs{refs: map[refKey]string{}}
}

func (r *Refs) ref(pid int, id, role string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := refKey{pid, id, role}
	if s, ok := r.refs[k]; ok {
		return s
	}
	r.next++
	s := "d" + strconv.Itoa(r.next)
	r.refs[k] = s
	return s
}
