package executor

import (
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/keychord"
)

// X11ChordKey is the key code that presses chord's key on the keyboard of
// conn's X server, for package hotkey, which takes the pause chord across
// the desktop, and the chord's modifiers. A key this keyboard lacks is an
// error wrapping ErrUnknownKey.
func X11ChordKey(conn *xgb.Conn, chord string) (xproto.Keycode, keychord.Mods, error) {
	c, err := parseChord(chord)
	if err != nil {
		return 0, 0, err
	}
	setup := xproto.Setup(conn)
	km, err := readKeymap(conn, setup.MinKeycode, setup.MaxKeycode)
	if err != nil {
		return 0, 0, err
	}
	ks, ok := chordKeysym(c)
	if !ok {
		return 0, 0, fmt.Errorf("%w: the chord %q has no X key", ErrUnknownKey, chord)
	}
	code, _, ok := km.find(ks)
	if !ok {
		return 0, 0, fmt.Errorf("%w: no key on this keyboard types %q", ErrUnknownKey, chord)
	}
	return code, c.mods, nil
}

// chordKeysym is the keysym of a chord's key, lower case for letters.
func chordKeysym(c chord) (xproto.Keysym, bool) {
	if c.name != keyNone {
		return x11NamedSym(c.name)
	}
	if c.char == 0 {
		return 0, false
	}
	return runeKeysym(c.char), true
}
