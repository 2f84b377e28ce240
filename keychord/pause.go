package keychord

import "fmt"

// PauseChord is the global chord that pauses every agent until the person
// chooses another: ⌃⌥⌘P on macOS, Control+Alt+Super+P elsewhere.
const PauseChord = "Control+Alt+Meta+P"

// CanonicalHotkey checks that s can be the global pause chord and returns it
// in one spelling ("Control+Alt+Meta+P"), so that two spellings of the same
// chord compare equal. A global chord takes its keys from every other
// program, so it must hold at least two of Control, Alt and Meta, and end on
// a key that is not itself a modifier; one held with only Option and Shift
// is refused with its own sentence, as macOS 15 and later ignore it.
func CanonicalHotkey(s string) (string, error) {
	c, err := Parse(s)
	if err != nil {
		return "", err
	}
	if c.Key == CapsLock || (c.Key >= ShiftKey && c.Key <= MetaKey) {
		return "", fmt.Errorf("%w: %q ends on a modifier; a pause chord ends on a key such as P or F12", ErrUnknownKey, s)
	}
	if c.Mods.OptionShiftOnly() {
		return "", ErrOptionShiftOnly
	}
	n := 0
	for _, m := range []Mods{Control, Alt, Meta} {
		if c.Mods&m != 0 {
			n++
		}
	}
	if n < 2 {
		return "", fmt.Errorf("%w: %q would take keys other programs use; a pause chord holds at least two of Control, Alt and Meta", ErrUnknownKey, s)
	}
	return c.String(), nil
}

// OptionShiftOnly reports whether m has modifiers, all of them Option
// (Alt) or Shift: a chord macOS 15 and later never deliver as a global hot
// key. Apple's frameworks engineer on the developer forums (thread
// 763878): "macOS Sequoia now requires that a hotkey registration use at
// least one modifier that is not shift or option", against key loggers,
// since Shift and Option type characters, a password's among them.
// RegisterEventHotKey still succeeds; the presses simply never come.
func (m Mods) OptionShiftOnly() bool {
	return m != 0 && m&^(Alt|Shift) == 0
}

// ErrOptionShiftOnly is the refusal of a global chord held with only Option
// and Shift, in a sentence for the person; it is an ErrUnknownKey to
// errors.Is.
var ErrOptionShiftOnly error = hotkeyRefusal("on macOS 15 and later a chord held with only Option and Shift never arrives, as those keys type characters, a password's among them; it would pause nothing: choose one with Control or Command")

// hotkeyRefusal is a chord refused for a reason the person reads whole.
type hotkeyRefusal string

func (r hotkeyRefusal) Error() string { return string(r) }
func (hotkeyRefusal) Unwrap() error   { return ErrUnknownKey }
