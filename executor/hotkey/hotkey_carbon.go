package hotkey

import (
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/keychord"
)

// The pure half of the macOS pause chord: what Carbon's RegisterEventHotKey
// is given for a chord. It lives in a file every platform compiles so that
// its tests run anywhere; hotkey_darwin.go makes the calls.

// Carbon modifier bits, from HIToolbox/Events.h (EventModifiers: cmdKey is
// 1 << cmdKeyBit, and so on).
const (
	carbonCmdKey     = 1 << 8  // cmdKey
	carbonShiftKey   = 1 << 9  // shiftKey
	carbonOptionKey  = 1 << 11 // optionKey
	carbonControlKey = 1 << 12 // controlKey
)

// The event, parameter and type the hot key handler deals in. Carbon's
// four-character codes are written as the big-endian numbers C's
// multi-character literals are.
const (
	carbonClassKeyboard      = 0x6B657962 // kEventClassKeyboard = 'keyb', HIToolbox/CarbonEvents.h
	carbonEventHotKeyPressed = 5          // kEventHotKeyPressed, HIToolbox/CarbonEvents.h
	carbonParamDirectObject  = 0x2D2D2D2D // kEventParamDirectObject = '----', HIToolbox/CarbonEventsCore.h
	carbonTypeEventHotKeyID  = 0x686B6964 // typeEventHotKeyID = 'hkid', HIToolbox/CarbonEvents.h
	carbonReinsSignature     = 0x5265696E // 'Rein': the signature of every hot key Reins registers
)

// Carbon results and options.
const (
	carbonNoErr              = 0     // noErr, MacTypes.h
	carbonEventNotHandledErr = -9874 // eventNotHandledErr, HIToolbox/CarbonEventsCore.h
	carbonEventHotKeyExists  = -9878 // eventHotKeyExistsErr, HIToolbox/CarbonEventsCore.h

	// kEventHotKeyExclusive, HIToolbox/CarbonEvents.h: registering fails
	// with eventHotKeyExistsErr when another program already holds the
	// chord, instead of sharing its presses with that program.
	carbonHotKeyExclusive = 1 << 0
)

// carbonHotKey returns the virtual key code and the Carbon modifier mask
// that RegisterEventHotKey takes for c. Hot keys match keys, not
// characters, so a character names the key that types it on the US
// layout, as the executor names it everywhere else on macOS; a character typed
// with Shift there ("+") adds Shift to the chord. A chord held with only
// Option and Shift is refused: macOS 15 and later never deliver it.
func carbonHotKey(c keychord.Chord) (code, mods uint32, err error) {
	if c.Mods.OptionShiftOnly() {
		// Registered, it would take nothing and say nothing.
		return 0, 0, keychord.ErrOptionShiftOnly
	}
	if c.Mods&keychord.Shift != 0 {
		mods |= carbonShiftKey
	}
	if c.Mods&keychord.Control != 0 {
		mods |= carbonControlKey
	}
	if c.Mods&keychord.Alt != 0 {
		mods |= carbonOptionKey
	}
	if c.Mods&keychord.Meta != 0 {
		mods |= carbonCmdKey
	}
	k, shift, err := executor.MacChordKey(c)
	if err != nil {
		return 0, 0, err
	}
	if shift {
		mods |= carbonShiftKey
	}
	return uint32(k), mods, nil
}

// carbonHotKeyID is an EventHotKeyID {OSType signature; UInt32 id} as the
// one register it travels in when passed by value: an 8-byte struct of
// integers goes in a single general register on both arm64 (AAPCS64) and
// amd64 (System V), laid out as in memory, so the signature is the low
// half on these little-endian machines.
func carbonHotKeyID(signature, id uint32) uint64 {
	return uint64(signature) | uint64(id)<<32
}
