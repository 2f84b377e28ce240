package macos

// CFRunLoop and CFMachPort, as CFRunLoop.h and CFMachPort.h declare them:
// how a thread of Reins' own serves an event tap's port.
var runLoop struct {
	// CFRunLoopRef CFRunLoopGetCurrent(void): borrowed.
	getCurrent func() uintptr
	// void CFRunLoopAddSource(CFRunLoopRef, CFRunLoopSourceRef, CFRunLoopMode)
	addSource func(rl, source, mode uintptr)
	// CFRunLoopRunResult CFRunLoopRunInMode(CFRunLoopMode, CFTimeInterval,
	// Boolean returnAfterSourceHandled); the result is an SInt32.
	runInMode func(mode uintptr, seconds float64, returnAfterSource bool) int32
	// void CFRunLoopStop(CFRunLoopRef)
	stop func(rl uintptr)
	// CFRunLoopSourceRef CFMachPortCreateRunLoopSource(CFAllocatorRef,
	// CFMachPortRef, CFIndex order): +1.
	machPortSource func(alloc, port uintptr, order int) uintptr
	// void CFMachPortInvalidate(CFMachPortRef)
	machPortInvalidate func(port uintptr)
	// CFHashCode CFHash(CFTypeRef): a CFHashCode is an unsigned long.
	hash func(ref uintptr) uint

	defaultMode uintptr // kCFRunLoopDefaultMode
}

// CFRunLoopRunResult values.
const (
	RunLoopFinished = 1 // kCFRunLoopRunFinished: the mode has no sources left
	RunLoopStopped  = 2 // kCFRunLoopRunStopped: CFRunLoopStop was called
	RunLoopTimedOut = 3 // kCFRunLoopRunTimedOut
)

func bindRunLoop(b *Binder, lib uintptr) {
	b.Func(lib, "CFRunLoopGetCurrent", &runLoop.getCurrent)
	b.Func(lib, "CFRunLoopAddSource", &runLoop.addSource)
	b.Func(lib, "CFRunLoopRunInMode", &runLoop.runInMode)
	b.Func(lib, "CFRunLoopStop", &runLoop.stop)
	b.Func(lib, "CFMachPortCreateRunLoopSource", &runLoop.machPortSource)
	b.Func(lib, "CFMachPortInvalidate", &runLoop.machPortInvalidate)
	b.Func(lib, "CFHash", &runLoop.hash)
	b.Global(lib, "kCFRunLoopDefaultMode", &runLoop.defaultMode)
}

// CurrentRunLoop is the calling thread's run loop, borrowed; the caller
// locks its goroutine to the thread.
func CurrentRunLoop() uintptr { return runLoop.getCurrent() }

// AddMachPort makes a run loop source (+1) of port and adds it to rl in
// the default mode; 0 when none could be made.
func AddMachPort(rl, port uintptr) uintptr {
	src := runLoop.machPortSource(0, port, 0)
	if src != 0 {
		runLoop.addSource(rl, src, runLoop.defaultMode)
	}
	return src
}

// RunLoopFor runs the calling thread's run loop in the default mode for at
// most seconds, or until it is stopped or has no source left, and says
// which (RunLoopFinished…).
func RunLoopFor(seconds float64) int32 { return runLoop.runInMode(runLoop.defaultMode, seconds, false) }

// StopRunLoop makes rl's current run return; any thread may call it.
func StopRunLoop(rl uintptr) { runLoop.stop(rl) }

// InvalidateMachPort stops port from delivering anything more.
func InvalidateMachPort(port uintptr) { runLoop.machPortInvalidate(port) }

// CFHash is ref's hash: equal objects (CFEqual) have equal hashes.
func CFHash(ref uintptr) uint { return runLoop.hash(ref) }
