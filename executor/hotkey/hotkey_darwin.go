package hotkey

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ebitengine/purego"

	"github.com/reins-app/reins/internal/macos"
	"github.com/reins-app/reins/keychord"
)

// The pause chord on macOS is a Carbon hot key, which takes a chord for the
// whole desktop without asking the person for a permission, where an event
// tap needs Input Monitoring. The Carbon Event Manager is not thread safe
// and delivers hot keys through the main thread's event loop, so every
// Carbon call here runs on the main thread, queued on the main dispatch
// queue; in the Reins menu-bar app fyne's Cocoa run loop serves that queue.

// hotkeyStartTimeout bounds the wait for the main thread to take the chord.
// Only a process whose main thread runs no Cocoa event loop (`reins serve`)
// ever reaches it.
const hotkeyStartTimeout = 30 * time.Second

// carbonEventTypeSpec is EventTypeSpec {OSType eventClass; UInt32 eventKind}
// from HIToolbox/CarbonEventsCore.h.
type carbonEventTypeSpec struct {
	class uint32
	kind  uint32
}

// hotKeyPressedSpec is the one event kind our handlers ask for. A package
// variable, so the memory Carbon reads is never moved or freed.
var hotKeyPressedSpec = [1]carbonEventTypeSpec{{carbonClassKeyboard, carbonEventHotKeyPressed}}

// carbon holds the bound Carbon functions; set once by loadCarbon.
var carbon struct {
	once sync.Once
	err  error

	getApplicationEventTarget func() uintptr
	installEventHandler       func(target, handler uintptr, numTypes uint64, list *carbonEventTypeSpec, userData uintptr, outRef *uintptr) int32
	removeEventHandler        func(ref uintptr) int32
	registerEventHotKey       func(code, modifiers uint32, id uint64, target uintptr, options uint32, outRef *uintptr) int32
	unregisterEventHotKey     func(ref uintptr) int32
	getEventParameter         func(event uintptr, name, desiredType uint32, actualType *uint32, size uint64, actualSize *uint64, out *uint64) int32

	handler uintptr // the C entry of hotKeyHandler
}

func loadCarbon() error {
	carbon.once.Do(func() { carbon.err = bindCarbon() })
	return carbon.err
}

func bindCarbon() error {
	if err := macos.Load(); err != nil { // the main dispatch queue
		return err
	}
	var b macos.Binder
	hi := b.Open(macos.Carbon)
	b.Func(hi, "GetApplicationEventTarget", &carbon.getApplicationEventTarget)
	b.Func(hi, "InstallEventHandler", &carbon.installEventHandler)
	b.Func(hi, "RemoveEventHandler", &carbon.removeEventHandler)
	b.Func(hi, "RegisterEventHotKey", &carbon.registerEventHotKey)
	b.Func(hi, "UnregisterEventHotKey", &carbon.unregisterEventHotKey)
	b.Func(hi, "GetEventParameter", &carbon.getEventParameter)
	if err := b.Err(); err != nil {
		return err
	}
	// Callbacks are never freed, so the handler is made once for the process.
	carbon.handler = purego.NewCallback(hotKeyHandler)
	return nil
}

// hotKeys maps the id of each hot key Reins holds to the channel its
// presses go to. Guarded by mu.
var hotKeys struct {
	mu      sync.Mutex
	next    uint32
	presses map[uint32]chan struct{}
}

// hotKeyHandler is the EventHandlerProcPtr Carbon calls on the main thread
// for a hot key press; userData is the id its watch registered. Presses of
// other hot keys in this process are left to their own handlers.
func hotKeyHandler(callRef, event, userData uintptr) int32 {
	var raw uint64 // an EventHotKeyID, as carbonHotKeyID packs it
	if carbon.getEventParameter(event, carbonParamDirectObject, carbonTypeEventHotKeyID, nil, 8, nil, &raw) != carbonNoErr {
		return carbonEventNotHandledErr
	}
	if raw != carbonHotKeyID(carbonReinsSignature, uint32(userData)) {
		return carbonEventNotHandledErr
	}
	hotKeys.mu.Lock()
	presses := hotKeys.presses[uint32(userData)]
	hotKeys.mu.Unlock()
	if presses == nil {
		return carbonEventNotHandledErr
	}
	// Never hold up the main thread: a press while one is still waiting
	// for the watcher is the same request to pause.
	select {
	case presses <- struct{}{}:
	default:
	}
	return carbonNoErr
}

// carbonHotKeyRefs is one registration's Carbon objects; only the main
// thread touches it.
type carbonHotKeyRefs struct {
	handler uintptr // EventHandlerRef
	hotKey  uintptr // EventHotKeyRef
}

// register installs the press handler on the application target and takes
// the hot key, undoing the first when the second fails. It returns Carbon's
// OSStatus.
func (r *carbonHotKeyRefs) register(id, code, mods uint32) int32 {
	target := carbon.getApplicationEventTarget()
	if st := carbon.installEventHandler(target, carbon.handler, uint64(len(hotKeyPressedSpec)), &hotKeyPressedSpec[0], uintptr(id), &r.handler); st != carbonNoErr {
		r.handler = 0
		return st
	}
	if st := carbon.registerEventHotKey(code, mods, carbonHotKeyID(carbonReinsSignature, id), target, carbonHotKeyExclusive, &r.hotKey); st != carbonNoErr {
		r.hotKey = 0
		r.unregister()
		return st
	}
	return carbonNoErr
}

// unregister lets the hot key go and removes the handler.
func (r *carbonHotKeyRefs) unregister() {
	if r.hotKey != 0 {
		carbon.unregisterEventHotKey(r.hotKey)
		r.hotKey = 0
	}
	if r.handler != 0 {
		carbon.removeEventHandler(r.handler)
		r.handler = 0
	}
}

// watchHotkey takes the chord as a Carbon hot key, exclusively, and calls
// opts.Pressed on the watcher's goroutine for each press. Watch's
// caller is never the main thread, so registering and unregistering are
// queued there.
func watch(ctx context.Context, c keychord.Chord, opts Options) error {
	if opts.Pressed == nil {
		return errors.New("hotkey: Options.Pressed is required")
	}
	code, mods, err := carbonHotKey(c)
	if err != nil {
		return fmt.Errorf("cannot take %s for Reins: %w", opts.Chord, err)
	}
	if err := loadCarbon(); err != nil {
		return fmt.Errorf("cannot take %s for Reins: %w", opts.Chord, err)
	}

	presses := make(chan struct{}, 1)
	hotKeys.mu.Lock()
	if hotKeys.presses == nil {
		hotKeys.presses = map[uint32]chan struct{}{}
	}
	hotKeys.next++
	id := hotKeys.next
	hotKeys.presses[id] = presses
	hotKeys.mu.Unlock()

	refs := new(carbonHotKeyRefs)
	registered := make(chan int32, 1)
	macos.OnMainThread(func() { registered <- refs.register(id, code, mods) })
	release := func() {
		macos.OnMainThread(refs.unregister)
		hotKeys.mu.Lock()
		delete(hotKeys.presses, id)
		hotKeys.mu.Unlock()
	}

	timeout := time.NewTimer(hotkeyStartTimeout)
	defer timeout.Stop()
	select {
	case st := <-registered:
		if st != carbonNoErr {
			release()
			if st == carbonEventHotKeyExists {
				return fmt.Errorf("cannot take %s for Reins: another program holds it; free it there, or use Pause in the Reins menu", opts.Chord)
			}
			return fmt.Errorf("cannot take %s for Reins: Carbon refused it (OSStatus %d); use Pause in the Reins menu", opts.Chord, st)
		}
	case <-ctx.Done():
		release() // runs after the queued registration, if that ever runs
		return nil
	case <-timeout.C:
		release()
		return fmt.Errorf("cannot take %s for Reins: the main thread runs no Cocoa event loop to take it (the chord works in the Reins menu-bar app, not in `reins serve`)", opts.Chord)
	}
	if opts.Ready != nil {
		opts.Ready()
	}
	for {
		select {
		case <-ctx.Done():
			release()
			return nil
		case <-presses:
			opts.Pressed()
		}
	}
}
