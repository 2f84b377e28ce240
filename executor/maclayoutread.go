package executor

import (
	"fmt"
	"sync"
	"time"
)

// macLayoutReader reads the keyboard layout in use where macOS allows it,
// on the main thread, for callers on any goroutine: a reading is queued
// there and waited for, within a bound, and serves every caller for a
// moment. A caller whose wait runs out is refused, saying why; the reading
// stays queued, and the next caller waits for it again, within the bound,
// rather than being refused at once: a main thread busy for a moment (a
// window opening) costs the chords of that moment, not every chord after.
// The OS side is layout_darwin.go; the tests give fakes.
type macLayoutReader struct {
	// onMain reports whether the caller is on the main thread, where the
	// layout is read in place; the caller's goroutine is locked to its
	// thread meanwhile.
	onMain func() bool
	// queue runs f on the main thread, after what is queued there.
	queue func(f func())
	// served reports whether the main thread has run queued work since the
	// process began: it does in the menu-bar app, never in `reins serve`.
	served func() bool
	// read reads the layout; only the main thread may call it.
	read func() (*macLayout, error)
	// after is time.After; tests give timers they fire themselves.
	after func(time.Duration) <-chan time.Time
	now   func() time.Time

	wait         time.Duration // the bound while the main thread serves work
	waitUnserved time.Duration // the bound while it has served none yet
	fresh        time.Duration // how long a reading serves

	mu      sync.Mutex
	layout  *macLayout    // guarded by mu
	err     error         // guarded by mu
	at      time.Time     // guarded by mu: when layout and err were read; zero before
	pending chan struct{} // guarded by mu: closed when the queued reading is done; nil when none is queued
}

// current returns the layout in use, read afresh unless the last reading
// is under r.fresh old: the person may switch layouts at any time, and one
// act resolves all its keys within a moment.
func (r *macLayoutReader) current() (*macLayout, error) {
	r.mu.Lock()
	if !r.at.IsZero() && r.now().Sub(r.at) < r.fresh {
		defer r.mu.Unlock()
		return r.layout, r.err
	}
	if r.onMain() {
		// Work queued for the main thread would wait for this very call.
		l, err := r.read()
		r.layout, r.err, r.at = l, err, r.now()
		r.mu.Unlock()
		return l, err
	}
	if r.pending == nil {
		done := make(chan struct{})
		r.pending = done
		r.queue(func() {
			l, err := r.read()
			r.mu.Lock()
			r.layout, r.err, r.at = l, err, r.now()
			r.pending = nil
			r.mu.Unlock()
			close(done)
		})
	}
	done := r.pending
	served := r.served()
	wait := r.wait
	if !served {
		wait = r.waitUnserved
	}
	r.mu.Unlock()

	select {
	case <-done:
	case <-r.after(wait):
		if !served {
			return nil, fmt.Errorf("the main thread did not answer within %v; it runs no Cocoa event loop in `reins serve`, only in the Reins menu-bar app", wait)
		}
		return nil, fmt.Errorf("the main thread, busy with something else, did not answer within %v; nothing was pressed: try again in a moment", wait)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.layout, r.err
}
