package macos

import (
	"sync"
	"sync/atomic"
)

// The main dispatch queue, through libdispatch: how work reaches the main
// thread, which alone may call Carbon's event manager and Text Input
// Sources, from a goroutine.
var dispatch struct {
	// void dispatch_async_f(dispatch_queue_t, void *context, dispatch_function_t)
	asyncF func(queue, context, work uintptr)
	// int pthread_main_np(void): nonzero on the main thread.
	pthreadMainNP func() int32

	mainQueue uintptr // &_dispatch_main_q, which dispatch_get_main_queue() returns
	work      uintptr // the C entry of runMainWork
}

// mainWork holds the functions queued for the main thread, by the key
// passed to dispatch_async_f as its context. Guarded by mu.
var mainWork struct {
	mu   sync.Mutex
	next uintptr
	fns  map[uintptr]func()
}

// OnMainThread runs f on the main thread, after everything queued before
// it: the main dispatch queue is serial, so work queued after other work
// always runs after it. In the Reins menu-bar app the Cocoa run loop
// serves the queue; in a process whose main thread serves none (`reins
// serve`) f never runs.
func OnMainThread(f func()) {
	mainWork.mu.Lock()
	if mainWork.fns == nil {
		mainWork.fns = map[uintptr]func(){}
	}
	mainWork.next++
	key := mainWork.next
	mainWork.fns[key] = f
	mainWork.mu.Unlock()
	dispatch.asyncF(dispatch.mainQueue, key, dispatch.work)
}

// mainServed is set once the main thread has run queued work.
var mainServed atomic.Bool

// MainThreadServed reports whether the main thread has run work queued
// with OnMainThread since the process began: the menu-bar app's does, as
// its Cocoa run loop turns; `reins serve`'s never does.
func MainThreadServed() bool { return mainServed.Load() }

// runMainWork is the dispatch_function_t that dispatch_async_f calls on the
// main thread.
func runMainWork(key uintptr) {
	mainServed.Store(true)
	mainWork.mu.Lock()
	f := mainWork.fns[key]
	delete(mainWork.fns, key)
	mainWork.mu.Unlock()
	if f != nil {
		f()
	}
}

// IsMainThread reports whether the calling OS thread is the main thread;
// the caller locks its goroutine to the thread for as long as the answer
// matters.
func IsMainThread() bool { return dispatch.pthreadMainNP() != 0 }
