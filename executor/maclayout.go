package executor

import (
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"
)

// The pure half of the Mac keyboard layout: from what UCKeyTranslate types
// for each virtual key, which key types each character. A chord presses a
// key, not a character, and the key at the US "A" position types Q on
// AZERTY, so ⌘A pressed there quits the front app. layout_darwin.go records
// the table from the layout in use; the tests use tables recorded under
// testdata/maclayout. It lives in a file every platform compiles so that
// those tests run anywhere.

// Names of the modifier states in a recorded table.
const (
	macStateNone         = "none"
	macStateShift        = "shift"
	macStateCommand      = "command"
	macStateCommandShift = "commandShift"
)

// macKeyOutput is what UCKeyTranslate typed for one key from a cleared
// dead-key state: with no modifier, with Shift, and with Command and
// Command-Shift, which some layouts map to other keys (Dvorak - QWERTY ⌘
// types QWERTY with Command; Cyrillic layouts type Latin). Dead lists the
// states in which the key is a dead key: it typed nothing and began a
// dead-key state.
type macKeyOutput struct {
	None         string   `json:"none"`
	Shift        string   `json:"shift"`
	Command      string   `json:"command,omitempty"`
	CommandShift string   `json:"commandShift,omitempty"`
	Dead         []string `json:"dead,omitempty"`
}

// macLayoutTable is one keyboard layout as recorded, by virtual key code.
type macLayoutTable map[uint16]macKeyOutput

// macKey is a virtual key code and whether Shift is held with it.
type macKey struct {
	code  uint16
	shift bool
}

// macLayout tells which key types each character on one keyboard layout,
// without Option: keys on its own, command with Command held. command is
// empty when the table recorded no Command states; keys then serves.
type macLayout struct {
	name    string
	keys    map[rune]macKey
	command map[rune]macKey
	// keyless is a key code no Mac key has and this layout types nothing
	// with: what a character the layout lacks is posted with, so that an
	// app reading the key rather than the text sees no key it knows.
	keyless uint16
}

// newMacLayout reads a recorded table. A character goes to the key that
// types it alone, without a dead-key state: a main key before a keypad
// key, unshifted before shifted, then the lowest code. Characters typed
// only with Option are left out, so a chord never needs a modifier it did
// not ask for; so are control characters, which are named keys' work.
func newMacLayout(name string, t macLayoutTable) *macLayout {
	l := &macLayout{name: name, keys: map[rune]macKey{}, command: map[rune]macKey{}, keyless: macKeyless(t)}
	for code, out := range t {
		for _, s := range []struct {
			state string
			text  string
			shift bool
			into  map[rune]macKey
		}{
			{macStateNone, out.None, false, l.keys},
			{macStateShift, out.Shift, true, l.keys},
			{macStateCommand, out.Command, false, l.command},
			{macStateCommandShift, out.CommandShift, true, l.command},
		} {
			if slices.Contains(out.Dead, s.state) {
				continue
			}
			r, size := utf8.DecodeRuneInString(s.text)
			if size == 0 || size != len(s.text) || r == utf8.RuneError || !unicode.IsPrint(r) {
				continue
			}
			k := macKey{code: code, shift: s.shift}
			if prev, seen := s.into[r]; !seen || macKeyBefore(k, prev) {
				s.into[r] = k
			}
		}
	}
	return l
}

// macKeylessCodes are virtual key codes that HIToolbox/Events.h names no
// key for and Chromium's table of Mac key codes (dom_code_data.inc) maps
// to no key: a key event with one of them means no key to an app. 0x34
// and 0x7F are left out: old PowerBooks' Enter and ADB keyboards' Power
// keys sent them, and layouts still type Enter's character at 0x34.
var macKeylessCodes = []uint16{0x6C, 0x70, 0x46, 0x42, 0x44, 0x4D}

// macKeyless picks, from macKeylessCodes, the first code the table types
// nothing with, in any state; the first of them when the table types
// something with every one, which no layout Reins knows does.
func macKeyless(t macLayoutTable) uint16 {
	for _, code := range macKeylessCodes {
		out := t[code]
		if out.None == "" && out.Shift == "" && out.Command == "" && out.CommandShift == "" && len(out.Dead) == 0 {
			return code
		}
	}
	return macKeylessCodes[0]
}

// macKeyBefore reports whether a is a better key than b for the same
// character.
func macKeyBefore(a, b macKey) bool {
	if ak, bk := macKeypad(a.code), macKeypad(b.code); ak != bk {
		return bk
	}
	if a.shift != b.shift {
		return b.shift
	}
	return a.code < b.code
}

// macKeypad reports whether code is a key of the numeric keypad
// (kVK_ANSI_Keypad*, HIToolbox/Events.h).
func macKeypad(code uint16) bool {
	switch code {
	case 0x41, 0x43, 0x45, 0x47, 0x4B, 0x4C, 0x4E, 0x51, 0x5B, 0x5C:
		return true
	}
	return code >= 0x52 && code <= 0x59
}

// key returns the key that types r on this layout.
func (l *macLayout) key(r rune) (macKey, bool) {
	k, ok := l.keys[r]
	return k, ok
}

// chordKey returns the key a chord holding held presses for r, or an error
// wrapping [ErrUnknownKey] when this layout types r only with Option, as a
// dead key, or not at all.
func (l *macLayout) chordKey(r rune, held mods) (macKey, error) {
	keys, with := l.keys, ""
	if held&modMeta != 0 && len(l.command) > 0 {
		keys, with = l.command, " with Command"
	}
	if k, ok := keys[r]; ok {
		return k, nil
	}
	return macKey{}, fmt.Errorf("%w: the %s keyboard layout has no key that types %q%s (without Option or an accent key), so the chord would press some other key; use a chord whose character the layout has, or ask the person to switch the keyboard layout", ErrUnknownKey, l.name, r, with)
}
