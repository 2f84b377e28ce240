package audit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// destination is one place outside the database that takes rows: a
// syslog receiver or an OpenTelemetry collector.
type destination interface {
	// key names it in audit_delivery and to the person.
	key() string
	// whole reports whether it gets whole rows, not only seq and hash.
	whole() bool
	// acknowledged reports whether a nil error from deliver means the
	// receiver answered for the rows; otherwise they were only handed to
	// the network.
	acknowledged() bool
	// open connects, or checks that the receiver answers; an error says
	// why not in the person's words.
	open(ctx context.Context) error
	// deliver hands rows over, oldest first, all or none; after an error
	// the destination is closed and must be opened again.
	deliver(ctx context.Context, rows []record) error
	// broken returns, without blocking, why a connection opened earlier
	// is gone (the receiver closed it), or nil.
	broken() error
	close() error
}

// Backoff between attempts to reach a destination that does not answer.
const (
	firstBackoff = time.Second
	maxBackoff   = time.Minute
)

// batchRows bounds the rows read and handed over at once.
const batchRows = 256

// forwarder copies committed rows to one destination in seq order,
// reading them from the database, so that nothing waits in memory and a
// row reaches the destination however long it was away: the database is
// the queue, and the destination's mark in it says how far it got.
type forwarder struct {
	log      *Log
	d        destination
	required bool
	window   int64 // rows sent again at each connection, when deliver is not acknowledged
	logf     func(string, ...any)
	changed  func() // the destination started or stopped taking rows

	// sending is held by whoever opens the destination or delivers to it:
	// the run loop, an act asking ready, close. Never by an append.
	sending sync.Mutex
	cursor  int64 // guarded by sending: the newest row sent on this connection

	mu      sync.Mutex
	open    bool          // guarded by mu: the destination takes rows now
	err     error         // guarded by mu: why it does not, as ErrAnchorUnreachable
	why     string        // guarded by mu: the same, in the receiver's own words
	nextTry time.Time     // guarded by mu: when the run loop tries again
	lastTry time.Time     // guarded by mu
	backoff time.Duration // guarded by mu

	kick chan struct{}
	quit chan struct{}
	done chan struct{}
}

func newForwarder(l *Log, d destination, required bool, window int, logf func(string, ...any), changed func()) *forwarder {
	f := &forwarder{log: l, d: d, required: required, window: int64(window), logf: logf, changed: changed,
		kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if d.acknowledged() {
		f.window = 0
	}
	go f.run()
	f.kickNow()
	return f
}

func (f *forwarder) kickNow() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// run delivers whenever a row is appended, and tries again after a
// failure once its backoff has passed.
func (f *forwarder) run() {
	defer close(f.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-f.quit:
			return
		case <-f.kick:
		case <-tick.C:
			if err := f.d.broken(); err != nil {
				f.sending.Lock()
				f.lost(err)
				f.sending.Unlock()
			}
		}
		f.pump(context.Background(), false)
	}
}

// pump opens the destination if need be and delivers every row past the
// cursor. now tries at once, backoff or not (an act while it is required;
// close), but not twice within a second.
func (f *forwarder) pump(ctx context.Context, now bool) error {
	f.sending.Lock()
	defer f.sending.Unlock()
	if err := f.connect(ctx, now); err != nil {
		return err
	}
	for {
		rows, err := f.log.rowsAfter(ctx, f.cursor, batchRows)
		if err != nil {
			// The database itself; the destination is fine. Try later.
			f.logf("audit forwarding to %s: %v", f.d.key(), err)
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if err := f.d.deliver(ctx, rows); err != nil {
			f.lost(err)
			return f.status().Err
		}
		last := rows[len(rows)-1].seq
		f.cursor = last
		if err := f.log.marks.set(f.d.key(), last, f.d.acknowledged()); err != nil {
			f.logf("audit forwarding to %s: the delivery mark could not be saved (%v); rows will be sent again", f.d.key(), err)
		}
	}
}

// connect opens the destination unless it is open, with sending held.
func (f *forwarder) connect(ctx context.Context, now bool) error {
	f.mu.Lock()
	open, err, next, last := f.open, f.err, f.nextTry, f.lastTry
	f.mu.Unlock()
	if open {
		return nil
	}
	switch {
	case err != nil && !now && time.Now().Before(next):
		return err
	case err != nil && now && time.Since(last) < time.Second:
		return err // an act a moment after a failed try learns the same
	}
	derr := f.d.open(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastTry = time.Now()
	if derr != nil {
		f.backoff = min(max(2*f.backoff, firstBackoff), maxBackoff)
		// Jitter, so that many computers do not call a restarted
		// receiver in the same second.
		f.nextTry = f.lastTry.Add(f.backoff + rand.N(f.backoff/10+1))
		if f.err == nil {
			f.logf("audit forwarding: %s does not take rows (%v); %d rows wait for it in the audit log, and Reins tries again", f.d.key(), derr, f.waitingLocked())
			go f.changed()
		}
		f.err = fmt.Errorf("%w (%s: %v)", ErrAnchorUnreachable, f.d.key(), derr)
		f.why = derr.Error()
		return f.err
	}
	if f.err != nil {
		f.logf("audit forwarding: %s takes rows again; sending the %d that waited", f.d.key(), f.waitingLocked())
	}
	f.open, f.err, f.why, f.backoff = true, nil, "", 0
	go f.changed()
	// What the receiver had not yet written when the last connection
	// ended is not known: send the newest rows again.
	f.cursor = max(f.log.marks.get(f.d.key()).Seq-f.window, 0)
	return nil
}

// lost closes the destination after err, with sending held.
func (f *forwarder) lost(err error) {
	f.d.close()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open {
		return
	}
	f.open = false
	f.err = fmt.Errorf("%w (%s: %v)", ErrAnchorUnreachable, f.d.key(), err)
	f.why = err.Error()
	f.lastTry = time.Now()
	f.backoff = firstBackoff
	f.nextTry = f.lastTry.Add(f.backoff)
	f.logf("audit forwarding: lost %s (%v); rows wait for it in the audit log", f.d.key(), err)
	go f.changed()
}

// waitingLocked is how many rows the destination has not taken.
func (f *forwarder) waitingLocked() int64 {
	return max(f.log.headSeq()-f.log.marks.get(f.d.key()).Seq, 0)
}

// ready returns nil when the destination takes rows, trying it at once
// when it does not.
func (f *forwarder) ready() error {
	if err := f.d.broken(); err != nil {
		f.sending.Lock()
		f.lost(err)
		f.sending.Unlock()
	}
	f.mu.Lock()
	open := f.open
	f.mu.Unlock()
	if open {
		return nil
	}
	// Connect only: the rows that waited go from the run loop, so that an
	// act does not wait for a backlog to be sent.
	f.sending.Lock()
	err := f.connect(context.Background(), true)
	f.sending.Unlock()
	f.kickNow()
	return err
}

// CopyState is how one copy of the log outside the database is doing.
type CopyState struct {
	Where    string // "system log", "syslog+tls://host:port", the collector's URL
	Whole    bool   // it gets whole rows; otherwise seq and hash only
	Required bool   // acts are refused while it does not take rows
	Err      error  // why it does not take rows now; nil when it does
	Why      string // Err's own cause, in a sentence for the person
	Delivery        // how far it got
	Behind   int64  // rows written that it has not taken
}

func (f *forwarder) status() CopyState {
	f.mu.Lock()
	err, why := f.err, f.why
	f.mu.Unlock()
	if gone := f.d.broken(); err == nil && gone != nil {
		// Lost a moment ago; the run loop closes it within a second.
		err, why = fmt.Errorf("%w (%s: %v)", ErrAnchorUnreachable, f.d.key(), gone), gone.Error()
	}
	d := f.log.marks.get(f.d.key())
	d.Destination = f.d.key()
	d.Acknowledged = f.d.acknowledged()
	return CopyState{Where: f.d.key(), Whole: f.d.whole(), Required: f.required, Err: err, Why: why, Delivery: d, Behind: max(f.log.headSeq()-d.Seq, 0)}
}

// close delivers what waits, within dialWait, and lets go.
func (f *forwarder) close() error {
	close(f.quit)
	<-f.done
	ctx, cancel := context.WithTimeout(context.Background(), dialWait)
	defer cancel()
	err := f.pump(ctx, true)
	f.sending.Lock()
	f.d.close()
	f.sending.Unlock()
	if behind := f.status().Behind; behind > 0 {
		if err == nil {
			err = errors.New("no time was left")
		}
		return fmt.Errorf("audit forwarding: %d rows were not sent to %s before Reins stopped (%v); they are sent at the next start", behind, f.d.key(), err)
	}
	return nil
}
