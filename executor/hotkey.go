package executor

import (
	"context"
	"fmt"
	"strings"
)

// PauseChord is the global chord that pauses every agent: ⌃⌥⌘P on macOS,
// Control+Alt+Super+P elsewhere.
const PauseChord = "Control+Alt+Meta+P"

// HotkeyOptions configures [WatchHotkey].
type HotkeyOptions struct {
	Chord   string // required: e.g. PauseChord
	Display string // optional, X11: default $DISPLAY
	// Pressed is called, on the watcher's goroutine, each time the person
	// presses the chord. Required.
	Pressed func()
	// Ready, if set, is called once the chord is taken.
	Ready func()
}

// WatchHotkey takes the chord for Reins across the whole desktop and calls
// opts.Pressed whenever the person presses it, until ctx ends. It returns an
// error at once when the chord cannot be taken (another program holds it,
// no display), and nil when ctx ends.
func WatchHotkey(ctx context.Context, opts HotkeyOptions) error {
	c, err := parseChord(opts.Chord)
	if err != nil {
		return err
	}
	return watchHotkey(ctx, c, opts)
}

// CanonicalHotkey checks that s can be the global pause chord and returns it
// in one spelling ("Control+Alt+Meta+P"), so that two spellings of the same
// chord compare equal. A global chord takes its keys from every other
// program, so it must hold at least two of Control, Alt and Meta, and end on
// a key that is not itself a modifier; one held with only Option and Shift
// is refused with its own sentence, as macOS 15 and later ignore it.
func CanonicalHotkey(s string) (string, error) {
	c, err := parseChord(s)
	if err != nil {
		return "", err
	}
	if c.name == keyCapsLock || (c.name >= keyShift && c.name <= keyMeta) {
		return "", fmt.Errorf("%w: %q ends on a modifier; a pause chord ends on a key such as P or F12", ErrUnknownKey, s)
	}
	if optionShiftOnly(c.mods) {
		return "", errOptionShiftChord
	}
	n := 0
	for _, m := range []mods{modControl, modAlt, modMeta} {
		if c.mods&m != 0 {
			n++
		}
	}
	if n < 2 {
		return "", fmt.Errorf("%w: %q would take keys other programs use; a pause chord holds at least two of Control, Alt and Meta", ErrUnknownKey, s)
	}
	return c.String(), nil
}

// optionShiftOnly reports whether a chord holding held has modifiers, all
// of them Option (Alt) or Shift: one macOS 15 and later never deliver as a
// global hot key. Apple's frameworks engineer on the developer forums
// (thread 763878): "macOS Sequoia now requires that a hotkey registration
// use at least one modifier that is not shift or option", against key
// loggers, since Shift and Option type characters, a password's among them.
// RegisterEventHotKey still succeeds; the presses simply never come.
func optionShiftOnly(held mods) bool {
	return held != 0 && held&^(modAlt|modShift) == 0
}

// errOptionShiftChord is the refusal of such a chord, in a sentence for
// the person.
var errOptionShiftChord error = hotkeyRefusal("on macOS 15 and later a chord held with only Option and Shift never arrives, as those keys type characters, a password's among them; it would pause nothing: choose one with Control or Command")

// hotkeyRefusal is a chord refused for a reason the person reads whole; it
// is an ErrUnknownKey to errors.Is.
type hotkeyRefusal string

func (r hotkeyRefusal) Error() string { return string(r) }
func (hotkeyRefusal) Unwrap() error   { return ErrUnknownKey }

// String is the chord in one spelling: modifiers in the order Control,
// Alt, Shift, Meta, then the key, with letters upper case.
func (c chord) String() string {
	var parts []string
	for _, m := range []struct {
		m    mods
		name string
	}{{modControl, "Control"}, {modAlt, "Alt"}, {modShift, "Shift"}, {modMeta, "Meta"}} {
		if c.mods&m.m != 0 {
			parts = append(parts, m.name)
		}
	}
	return strings.Join(append(parts, c.keyName()), "+")
}

// keyName is the chord's key as parseChord reads it back.
func (c chord) keyName() string {
	if c.char != 0 {
		for name, r := range charKeys {
			if r == c.char && (r == ' ' || r == '+') {
				return strings.ToUpper(name[:1]) + name[1:]
			}
		}
		return strings.ToUpper(string(c.char))
	}
	if c.name >= keyF1 && c.name <= keyF24 {
		return fmt.Sprintf("F%d", c.name-keyF1+1)
	}
	for _, k := range []struct {
		n    named
		name string
	}{
		{keyEnter, "Enter"}, {keyTab, "Tab"}, {keyEscape, "Escape"}, {keyBackspace, "Backspace"},
		{keyDelete, "Delete"}, {keyInsert, "Insert"}, {keyHome, "Home"}, {keyEnd, "End"},
		{keyPageUp, "PageUp"}, {keyPageDown, "PageDown"}, {keyArrowLeft, "ArrowLeft"},
		{keyArrowUp, "ArrowUp"}, {keyArrowRight, "ArrowRight"}, {keyArrowDown, "ArrowDown"},
		{keyCapsLock, "CapsLock"}, {keyContextMenu, "ContextMenu"}, {keyShift, "Shift"},
		{keyControl, "Control"}, {keyAlt, "Alt"}, {keyMeta, "Meta"},
	} {
		if k.n == c.name {
			return k.name
		}
	}
	return "?"
}
