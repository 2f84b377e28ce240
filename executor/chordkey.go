package executor

import (
	"fmt"

	"github.com/reins-app/reins/keychord"
)

// MacChordKey is the virtual key code of the key chord c names on a Mac,
// for package hotkey, which takes the pause chord across the desktop. Hot
// keys match keys, not characters, so a character names the key that
// types it on the keyboard layout in use, and shift says the layout types
// it with Shift. A key no Mac has, or a modifier alone, is an error
// wrapping ErrUnknownKey.
func MacChordKey(c keychord.Chord) (code uint16, shift bool, err error) {
	switch c.Key {
	case keyNone:
		k, err := macChordKey(c.Char, c.Mods)
		if err != nil {
			return 0, false, err
		}
		return k.code, k.shift, nil
	case keyShift, keyControl, keyAlt, keyMeta:
		return 0, false, fmt.Errorf("%w: a modifier alone cannot be a global chord; add a key such as P", ErrUnknownKey)
	}
	k, ok := macNamedCode(c.Key)
	if !ok {
		return 0, false, fmt.Errorf("%w: a Mac keyboard has no such key", ErrUnknownKey)
	}
	return k, false, nil
}
