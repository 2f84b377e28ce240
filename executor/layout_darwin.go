//go:build darwin

package executor

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/reins-app/reins/internal/macos"
)

// The keyboard layout in use, read with Text Input Sources (HIToolbox) and
// UCKeyTranslate (CarbonCore). TIS asserts that it runs on the main
// dispatch queue, and recent macOS stops a process that calls it from
// another thread with SIGTRAP (dispatch_assert_queue_fail: deskflow/deskflow
// #9924, XQuartz/XQuartz#205). So the layout is read on the main thread,
// queued there with macos.OnMainThread like the pause chord, or read in place
// when the caller is the main thread. A process whose main thread serves no
// dispatch queue (`reins serve`) never reads it, and chords then refuse
// characters rather than press US positions.

const (
	ucKeyActionDown = 0 // kUCKeyActionDown, CarbonCore/UnicodeUtilities.h
	// UCKeyTranslate takes the high byte of EventRecord modifiers
	// (modifierKeyState = (modifiers >> 8) & 0xFF, Apple's UCKeyTranslate
	// documentation); shiftKey is 1 << 9, HIToolbox/Events.h.
	ucShiftState        = (carbonShiftKey >> 8) & 0xFF
	ucCommandState      = (carbonCmdKey >> 8) & 0xFF // cmdKey is 1 << 8
	ucCommandShiftState = ucCommandState | ucShiftState
	// ucMaxChars is more UTF-16 units than one key types.
	ucMaxChars = 8
	// macLayoutKeys is the count of virtual key codes (0 to 127).
	macLayoutKeys = 128
	// macLayoutWait bounds a wait for the main thread to read the layout.
	macLayoutWait = 2 * time.Second
	// macLayoutFresh is how long a reading serves before the next.
	macLayoutFresh = time.Second
)

// tis holds the bound functions; set once by loadTIS.
var tis struct {
	once sync.Once
	err  error

	// TISInputSourceRef TISCopyCurrentKeyboardLayoutInputSource(void): +1.
	copyCurrentKeyboardLayoutInputSource func() uintptr
	// void *TISGetInputSourceProperty(TISInputSourceRef, CFStringRef): borrowed.
	getInputSourceProperty func(source, key uintptr) uintptr
	// UInt8 LMGetKbdType(void).
	lmGetKbdType func() uint8
	// OSStatus UCKeyTranslate(const UCKeyboardLayout *, UInt16 virtualKeyCode,
	// UInt16 keyAction, UInt32 modifierKeyState, UInt32 keyboardType,
	// OptionBits keyTranslateOptions, UInt32 *deadKeyState,
	// UniCharCount maxStringLength, UniCharCount *actualStringLength,
	// UniChar unicodeString[]); UniCharCount is unsigned long. The last
	// two arguments go on the stack on arm64; both are pointers, so Apple's
	// packing of smaller stack arguments does not come into it.
	ucKeyTranslate func(layout uintptr, code, action uint16, mods, kbdType, options uint32, dead *uint32, max uint64, actual *uint64, chars *uint16) int32

	// CFStringRef globals of HIToolbox/TextInputSources.h.
	propUnicodeKeyLayoutData uintptr // kTISPropertyUnicodeKeyLayoutData: CFDataRef of 'uchr'
	propLocalizedName        uintptr // kTISPropertyLocalizedName: CFStringRef
}

func loadTIS() error {
	tis.once.Do(func() { tis.err = bindTIS() })
	return tis.err
}

func bindTIS() error {
	if err := macos.Load(); err != nil {
		return err
	}
	var b macos.Binder
	hi, cs := b.Open(macos.Carbon), b.Open(macos.CoreServices)
	b.Func(hi, "TISCopyCurrentKeyboardLayoutInputSource", &tis.copyCurrentKeyboardLayoutInputSource)
	b.Func(hi, "TISGetInputSourceProperty", &tis.getInputSourceProperty)
	b.Func(hi, "LMGetKbdType", &tis.lmGetKbdType)
	b.Func(cs, "UCKeyTranslate", &tis.ucKeyTranslate)
	b.Global(hi, "kTISPropertyUnicodeKeyLayoutData", &tis.propUnicodeKeyLayoutData)
	b.Global(hi, "kTISPropertyLocalizedName", &tis.propLocalizedName)
	return b.Err()
}

// layoutRead is the latest reading of the layout in use. Guarded by mu.
var layoutRead struct {
	mu         sync.Mutex
	layout     *macLayout
	err        error
	at         time.Time     // when layout and err were read; zero before the first reading
	pending    chan struct{} // closed when the reading queued on the main thread is done; nil when none is
	unanswered bool          // a wait for the main thread ran out, and no reading has come since
}

// currentMacLayout returns the layout in use, read afresh unless the last
// reading is under macLayoutFresh old: the person may switch layouts at any
// time, and one act resolves all its keys within a moment. It waits at most
// macLayoutWait for the main thread, and not at all once a wait ran out
// with no reading since, as in `reins serve`.
func currentMacLayout() (*macLayout, error) {
	if err := loadTIS(); err != nil {
		return nil, err
	}
	if err := loadCarbon(); err != nil {
		return nil, err
	}
	r := &layoutRead
	r.mu.Lock()
	if !r.at.IsZero() && time.Since(r.at) < macLayoutFresh {
		defer r.mu.Unlock()
		return r.layout, r.err
	}
	runtime.LockOSThread()
	if macos.IsMainThread() {
		// Work queued for the main thread would wait for this very call.
		r.layout, r.err = readMacLayout()
		r.at, r.unanswered = time.Now(), false
		runtime.UnlockOSThread()
		defer r.mu.Unlock()
		return r.layout, r.err
	}
	runtime.UnlockOSThread()
	if r.pending == nil {
		done := make(chan struct{})
		r.pending = done
		macos.OnMainThread(func() {
			l, err := readMacLayout()
			r.mu.Lock()
			r.layout, r.err, r.at, r.unanswered = l, err, time.Now(), false
			r.pending = nil
			r.mu.Unlock()
			close(done)
		})
	}
	done, wait := r.pending, macLayoutWait
	if r.unanswered {
		wait = 0
	}
	r.mu.Unlock()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		r.mu.Lock()
		r.unanswered = true
		r.mu.Unlock()
		return nil, errors.New("the main thread did not answer; it runs no Cocoa event loop in `reins serve`, only in the Reins menu-bar app")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.layout, r.err
}

// readMacLayout records what each key types and reads the table. Only the
// main thread may call it.
func readMacLayout() (*macLayout, error) {
	src := tis.copyCurrentKeyboardLayoutInputSource()
	if src == 0 {
		return nil, errors.New("macOS reports no keyboard layout")
	}
	defer macos.CFRelease(src)
	name := macos.GoString(tis.getInputSourceProperty(src, tis.propLocalizedName))
	if name == "" {
		name = "current"
	}
	data := tis.getInputSourceProperty(src, tis.propUnicodeKeyLayoutData)
	if data == 0 {
		return nil, fmt.Errorf("the %s keyboard layout has no Unicode key layout data", name)
	}
	layout := macos.CFDataGetBytePtr(data)
	if layout == 0 {
		return nil, fmt.Errorf("the %s keyboard layout has empty Unicode key layout data", name)
	}
	kbd := uint32(tis.lmGetKbdType())
	t := macLayoutTable{}
	for code := uint16(0); code < macLayoutKeys; code++ {
		var out macKeyOutput
		for _, s := range []struct {
			name  string
			state uint32
			text  *string
		}{
			{macStateNone, 0, &out.None},
			{macStateShift, ucShiftState, &out.Shift},
			{macStateCommand, ucCommandState, &out.Command},
			{macStateCommandShift, ucCommandShiftState, &out.CommandShift},
		} {
			var dead bool
			if *s.text, dead = ucTranslate(layout, code, s.state, kbd); dead {
				out.Dead = append(out.Dead, s.name)
			}
		}
		t[code] = out
	}
	return newMacLayout(name, t), nil
}

// ucTranslate returns what a key types from a cleared dead-key state, and
// whether it is a dead key there. Dead keys are allowed (no
// kUCKeyTranslateNoDeadKeysMask): that is how one shows, typing nothing and
// leaving a dead-key state; with the mask it would type its accent and
// pass for a plain key.
func ucTranslate(layout uintptr, code uint16, mods, kbd uint32) (string, bool) {
	var deadState uint32
	var n uint64
	var buf [ucMaxChars]uint16
	if tis.ucKeyTranslate(layout, code, ucKeyActionDown, mods, kbd, 0, &deadState, ucMaxChars, &n, &buf[0]) != 0 {
		return "", false
	}
	if n == 0 {
		return "", deadState != 0
	}
	return string(utf16.Decode(buf[:min(n, ucMaxChars)])), false
}
