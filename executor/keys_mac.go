package executor

import "fmt"

// macOS virtual keycodes (the kVK_ constants of HIToolbox/Events.h) and the
// keys chords and typed text press. They live in a file every platform
// compiles so that their tests run anywhere.

// macNamedCodes are the keys that type no character.
var macNamedCodes = map[named]uint16{
	keyEnter:       0x24, // Return
	keyTab:         0x30,
	keyEscape:      0x35,
	keyBackspace:   0x33, // Delete
	keyDelete:      0x75, // ForwardDelete
	keyInsert:      0x72, // Help, where PC keyboards have Insert
	keyHome:        0x73,
	keyEnd:         0x77,
	keyPageUp:      0x74,
	keyPageDown:    0x79,
	keyArrowLeft:   0x7B,
	keyArrowRight:  0x7C,
	keyArrowDown:   0x7D,
	keyArrowUp:     0x7E,
	keyCapsLock:    0x39,
	keyContextMenu: 0x6E,
	keyShift:       0x38,
	keyControl:     0x3B,
	keyAlt:         0x3A, // Option
	keyMeta:        0x37, // Command
}

// macFKeys are F1 … F20; Mac keyboards have no F21 and beyond.
var macFKeys = []uint16{
	0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D,
	0x67, 0x6F, 0x69, 0x6B, 0x71, 0x6A, 0x40, 0x4F, 0x50, 0x5A,
}

func macNamedCode(n named) (uint16, bool) {
	if n >= keyF1 && n <= keyF24 {
		i := int(n - keyF1)
		if i < len(macFKeys) {
			return macFKeys[i], true
		}
		return 0, false
	}
	c, ok := macNamedCodes[n]
	return c, ok
}

// macCharCodes are the keys of the printable ASCII characters typed without
// Shift on the US layout; macShifted maps the others onto them.
var macCharCodes = map[rune]uint16{
	'a': 0x00, 's': 0x01, 'd': 0x02, 'f': 0x03, 'h': 0x04, 'g': 0x05, 'z': 0x06, 'x': 0x07,
	'c': 0x08, 'v': 0x09, 'b': 0x0B, 'q': 0x0C, 'w': 0x0D, 'e': 0x0E, 'r': 0x0F, 'y': 0x10,
	't': 0x11, 'o': 0x1F, 'u': 0x20, 'i': 0x22, 'p': 0x23, 'l': 0x25, 'j': 0x26, 'k': 0x28,
	'n': 0x2D, 'm': 0x2E,
	'1': 0x12, '2': 0x13, '3': 0x14, '4': 0x15, '5': 0x17, '6': 0x16, '7': 0x1A, '8': 0x1C,
	'9': 0x19, '0': 0x1D,
	'-': 0x1B, '=': 0x18, '[': 0x21, ']': 0x1E, '\\': 0x2A, ';': 0x29, '\'': 0x27,
	',': 0x2B, '.': 0x2F, '/': 0x2C, '`': 0x32, ' ': 0x31,
}

var macShifted = map[rune]rune{
	'!': '1', '@': '2', '#': '3', '$': '4', '%': '5', '^': '6', '&': '7', '*': '8', '(': '9', ')': '0',
	'_': '-', '+': '=', '{': '[', '}': ']', '|': '\\', ':': ';', '"': '\'', '<': ',', '>': '.',
	'?': '/', '~': '`',
}

// macUSKey returns the key that types r on the US layout, and whether
// Shift is needed.
func macUSKey(r rune) (code uint16, shift bool, ok bool) {
	if r >= 'A' && r <= 'Z' {
		r, shift = r-'A'+'a', true
	} else if base, found := macShifted[r]; found {
		r, shift = base, true
	}
	code, ok = macCharCodes[r]
	return code, shift, ok
}

// macUSLayout is the US layout as UCKeyTranslate would record it.
var macUSLayout = newMacLayout("U.S.", macUSTable())

func macUSTable() macLayoutTable {
	t := macLayoutTable{}
	for r, code := range macCharCodes {
		out := t[code]
		out.None = string(r)
		if r >= 'a' && r <= 'z' {
			out.Shift = string(r - 'a' + 'A')
		}
		t[code] = out
	}
	for s, base := range macShifted {
		code := macCharCodes[base]
		out := t[code]
		out.Shift = string(s)
		t[code] = out
	}
	space := t[macCharCodes[' ']]
	space.Shift = " "
	t[macCharCodes[' ']] = space
	return t
}

// testOnlyMacLayout, when set, stands in for the keyboard layout in use.
var testOnlyMacLayout func() (*macLayout, error)

// macLayoutInUse returns the keyboard layout in use, or why it could not be
// read.
func macLayoutInUse() (*macLayout, error) {
	if f := testOnlyMacLayout; f != nil {
		return f()
	}
	return currentMacLayout()
}

// macCharKey returns the key a chord presses for r on the keyboard layout
// in use, with or without Command, and whether Shift is needed. ok is
// false when that layout types r only with Option or not at all, when it
// presses different keys for r with and without Command, or when the
// layout could not be read: a US position would be a guess, and on AZERTY
// the US "A" key is Q. [macChordKey] says why, given the chord's modifiers.
func macCharKey(r rune) (code uint16, shift bool, ok bool) {
	k, err := macChordKey(r, 0)
	if err != nil {
		return 0, false, false
	}
	if c, err := macChordKey(r, modMeta); err != nil || c != k {
		return 0, false, false
	}
	return k.code, k.shift, true
}

// macChordKey returns the key a chord holding held presses for r on the
// keyboard layout in use, or an error wrapping [ErrUnknownKey] that says
// why there is none.
func macChordKey(r rune, held mods) (macKey, error) {
	l, err := macLayoutInUse()
	if err != nil {
		return macKey{}, fmt.Errorf("%w: Reins could not read the keyboard layout in use (%v), and the key that types %q on a US keyboard may type something else on this one; nothing was pressed", ErrUnknownKey, err, r)
	}
	return l.chordKey(r, held)
}

// macTextKey returns the key that typed text names for r, and whether
// Shift is needed: the layout's key, or the US key when the layout could
// not be read. Typed text carries its characters, which is what apps read,
// so the key is only for apps that also look at which key it was. ok is
// false when there is none to name; code is then a key code no Mac key
// has (the layout's keyless one), never one that means another key: 0 is
// the A key's.
func macTextKey(r rune) (code uint16, shift bool, ok bool) {
	l, err := macLayoutInUse()
	if err != nil || l == nil {
		l = macUSLayout
	}
	k, ok := l.key(r)
	if !ok {
		return l.keyless, false, false
	}
	return k.code, k.shift, true
}
