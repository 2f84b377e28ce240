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
// when the caller is the main thread (maclayoutread.go). A process whose
// main thread serves no dispatch queue (`reins serve`) never reads it, and
// chords then refuse characters rather than press US positions.

const (
	ucKeyActionDown = 0 // kUCKeyActionDown, CarbonCore/UnicodeUtilities.h
	// UCKeyTranslate takes the high byte of EventRecord modifiers
	// (modifierKeyState = (modifiers >> 8) & 0xFF, Apple's UCKeyTranslate
	// documentation); shiftKey is 1 << 9, HIToolbox/Events.h.
	ucShiftState        = (1 << 9 >> 8) & 0xFF
	ucCommandState      = (1 << 8 >> 8) & 0xFF // cmdKey is 1 << 8
	ucCommandShiftState = ucCommandState | ucShiftState
	// ucMaxChars is more UTF-16 units than one key types.
	ucMaxChars = 8
	// macLayoutKeys is the count of virtual key codes (0 to 127).
	macLayoutKeys = 128
	// macLayoutWait bounds a wait for the main thread to read the layout.
	macLayoutWait = 2 * time.Second
	// macLayoutWaitUnserved bounds it while the main thread has run no
	// queued work yet, as in `reins serve`, where it never will.
	macLayoutWaitUnserved = 250 * time.Millisecond
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

// layoutReader reads the layout in use on the main thread, for callers on
// any goroutine: see macLayoutReader.
var layoutReader = &macLayoutReader{
	onMain: macos.IsMainThread,
	queue:  macos.OnMainThread,
	served: macos.MainThreadServed,
	read:   readMacLayout,
	after:  time.After,
	now:    time.Now,

	wait:         macLayoutWait,
	waitUnserved: macLayoutWaitUnserved,
	fresh:        macLayoutFresh,
}

// currentMacLayout returns the layout in use (see macLayoutReader).
func currentMacLayout() (*macLayout, error) {
	if err := loadTIS(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return layoutReader.current()
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
