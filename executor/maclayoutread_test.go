package executor

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeMainThread stands in for the main thread and its clocks: queued work
// runs only when the test says, and each wait's timer fires only when the
// test says.
type fakeMainThread struct {
	work   chan func()
	timers chan chan time.Time
	served atomic.Bool
	reads  atomic.Int32
	now    time.Time
}

func newFakeMainThread() *fakeMainThread {
	return &fakeMainThread{work: make(chan func(), 8), timers: make(chan chan time.Time, 8), now: time.Unix(1000, 0)}
}

func (f *fakeMainThread) reader() *macLayoutReader {
	return &macLayoutReader{
		onMain: func() bool { return false },
		queue:  func(fn func()) { f.work <- fn },
		served: f.served.Load,
		read: func() (*macLayout, error) {
			f.reads.Add(1)
			return macUSLayout, nil
		},
		after: func(time.Duration) <-chan time.Time {
			c := make(chan time.Time, 1)
			f.timers <- c
			return c
		},
		now:          func() time.Time { return f.now },
		wait:         2 * time.Second,
		waitUnserved: 250 * time.Millisecond,
		fresh:        time.Second,
	}
}

// runMain runs the next piece of queued work, as the main thread would.
func (f *fakeMainThread) runMain(t *testing.T) {
	t.Helper()
	select {
	case fn := <-f.work:
		f.served.Store(true)
		fn()
	default:
		t.Fatal("nothing was queued for the main thread")
	}
}

// TestMacLayoutReadRetriesAfterAWaitRanOut: a caller whose wait for a busy
// main thread ran out is refused, saying why; the next caller waits again
// for the same reading, rather than being refused at once, and has the
// layout once the main thread gets to it.
func TestMacLayoutReadRetriesAfterAWaitRanOut(t *testing.T) {
	f := newFakeMainThread()
	f.served.Store(true) // the menu-bar app: its main thread has served work
	r := f.reader()

	first := make(chan error, 1)
	go func() { _, err := r.current(); first <- err }()
	(<-f.timers) <- f.now // the main thread stays busy past the bound
	err := <-first
	if err == nil || !strings.Contains(err.Error(), "busy") || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("the first caller: %v; want a refusal that says the main thread was busy", err)
	}

	second := make(chan error, 1)
	go func() {
		l, err := r.current()
		if err == nil && l != macUSLayout {
			t.Error("the second caller got another layout")
		}
		second <- err
	}()
	timer := <-f.timers // the second caller is waiting, within its bound
	f.runMain(t)        // the main thread gets to the reading queued for the first
	if err := <-second; err != nil {
		t.Fatalf("the second caller: %v; want the layout", err)
	}
	timer <- f.now // too late to matter
	if n := len(f.work); n != 0 {
		t.Errorf("%d more readings queued; the first one serves every caller", n)
	}

	// Fresh for a moment: no wait, no reading.
	if _, err := r.current(); err != nil || f.reads.Load() != 1 {
		t.Errorf("a fresh reading: %v after %d reads", err, f.reads.Load())
	}
	f.now = f.now.Add(2 * time.Second)
	third := make(chan error, 1)
	go func() { _, err := r.current(); third <- err }()
	<-f.timers
	f.runMain(t)
	if err := <-third; err != nil || f.reads.Load() != 2 {
		t.Errorf("a stale reading was not read again: %v after %d reads", err, f.reads.Load())
	}
}

// TestMacLayoutReadSaysWhenNoMainLoopRuns: in a process whose main thread
// has served nothing (`reins serve`) the wait is short, and the refusal
// says that no Cocoa event loop runs.
func TestMacLayoutReadSaysWhenNoMainLoopRuns(t *testing.T) {
	f := newFakeMainThread()
	r := f.reader()
	for range 2 {
		done := make(chan error, 1)
		go func() { _, err := r.current(); done <- err }()
		(<-f.timers) <- f.now
		err := <-done
		if err == nil || !strings.Contains(err.Error(), "reins serve") || !strings.Contains(err.Error(), "250ms") {
			t.Fatalf("%v; want a refusal that names the short wait and `reins serve`", err)
		}
	}
	if n := len(f.work); n != 1 {
		t.Errorf("%d readings queued; want the one", n)
	}
}

// TestMacLayoutReadInPlaceOnTheMainThread: the main thread reads at once.
func TestMacLayoutReadInPlaceOnTheMainThread(t *testing.T) {
	f := newFakeMainThread()
	r := f.reader()
	r.onMain = func() bool { return true }
	if l, err := r.current(); err != nil || l != macUSLayout || len(f.work) != 0 || len(f.timers) != 0 {
		t.Errorf("on the main thread: %v, %v, %d queued, %d waits", l, err, len(f.work), len(f.timers))
	}
}
