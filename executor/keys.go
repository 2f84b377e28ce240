package executor

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/keychord"
)

// The executor's short names for keychord's modifiers and keys: chords are
// read there, and every backend maps these to an X keysym or a macOS key
// code in many places, which read better without the package's name.
type (
	mods  = keychord.Mods
	named = keychord.Key
)

const (
	modShift   = keychord.Shift
	modControl = keychord.Control
	modAlt     = keychord.Alt
	modMeta    = keychord.Meta
)

const (
	keyNone        = keychord.NoKey
	keyEnter       = keychord.Enter
	keyTab         = keychord.Tab
	keyEscape      = keychord.Escape
	keyBackspace   = keychord.Backspace
	keyDelete      = keychord.Delete
	keyInsert      = keychord.Insert
	keyHome        = keychord.Home
	keyEnd         = keychord.End
	keyPageUp      = keychord.PageUp
	keyPageDown    = keychord.PageDown
	keyArrowLeft   = keychord.ArrowLeft
	keyArrowUp     = keychord.ArrowUp
	keyArrowRight  = keychord.ArrowRight
	keyArrowDown   = keychord.ArrowDown
	keyCapsLock    = keychord.CapsLock
	keyContextMenu = keychord.ContextMenu
	keyShift       = keychord.ShiftKey
	keyControl     = keychord.ControlKey
	keyAlt         = keychord.AltKey
	keyMeta        = keychord.MetaKey
	keyF1          = keychord.F1
	keyF24         = keychord.F24
)

// modOrder is the order modifiers go down in (and come up in reverse).
var modOrder = []mods{modControl, modAlt, modMeta, modShift}

// chord is a key combination as the executor presses it: modifiers held
// while one key is pressed. Exactly one of name and char is set.
type chord struct {
	mods mods
	name named
	char rune // a printable character; letters are lower case
}

// parseChord reads a chord as [keychord.Parse] does.
func parseChord(s string) (chord, error) {
	c, err := keychord.Parse(s)
	if err != nil {
		return chord{}, err
	}
	return chord{mods: c.Mods, name: c.Key, char: c.Char}, nil
}

// CheckKeys returns an error wrapping ErrUnknownKey that says what is
// wrong when chord (such as "Control+Shift+K") names no key combination
// Fire can press, or nil; callers ask before anyone approves the act.
func CheckKeys(chord string) error {
	_, err := parseChord(chord)
	return err
}

// CheckText returns an error wrapping ErrHiddenKey when text holds a
// character that would press a key the person cannot see in it, or that
// no key types (a tab, a lone carriage return, a vertical tab, a form
// feed, U+0085, U+2028, U+2029, any other control or format character,
// bytes that are not UTF-8), or nil. Callers ask before anyone approves
// the act.
func CheckText(text string) error { return typeable(text) }

// typeable reports why text cannot be typed, or nil. Text is printable
// characters, spaces and line breaks ("\n", "\r\n"), each break typed as
// Enter and shown as one: everything else would press a key the person
// never sees (a tab moves the focus to the next field) or has no key.
func typeable(text string) error {
	for i, r := range text {
		switch {
		case r == '\n', r == ' ':
		case r == '\r' && strings.HasPrefix(text[i+1:], "\n"):
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(text[i:]); size == 1 {
				return fmt.Errorf("%w: the text is not valid UTF-8", ErrHiddenKey)
			}
		case unicode.IsPrint(r), unicode.Is(unicode.Zs, r):
		default:
			return &HiddenKeyError{Rune: r, At: utf8.RuneCountInString(text[:i])}
		}
	}
	return nil
}

// HiddenKeyError is text holding a character that is not typed as text:
// it would press a key the person reading the text cannot see, or no key
// types it.
type HiddenKeyError struct {
	Rune rune // the character
	At   int  // where, in characters from 0
}

func (e *HiddenKeyError) Error() string {
	what, instead := hiddenWords(e.Rune)
	return fmt.Sprintf("%s: the text holds %U (%s) at character %d; %s", ErrHiddenKey, e.Rune, what, e.At+1, instead)
}

func (e *HiddenKeyError) Unwrap() error { return ErrHiddenKey }

// hiddenWords names a character typed text may not hold, and says what to
// send instead.
func hiddenWords(r rune) (what, instead string) {
	const breakInstead = "a line break is typed only as \"\\n\" (or \"\\r\\n\"), and is shown to the person as Enter"
	switch r {
	case '\t':
		return "a tab, which would press Tab and move the focus to another field unseen", "type the text without it and press Tab as a key of its own"
	case '\r':
		return "a carriage return not followed by a line feed", breakInstead
	case '\v', '\f', 0x85, 0x2028, 0x2029:
		return "a line or page break other than \"\\n\"", breakInstead
	case 0x1b:
		return "an escape character", "press Escape as a key of its own"
	case 0x08, 0x7f:
		return "a delete character", "press Backspace or Delete as a key of its own"
	}
	if unicode.Is(unicode.Cf, r) {
		return "an invisible format character", "leave it out: no key types it and the person could not see it"
	}
	return "a control character", "leave it out, or press the key it stands for as a key of its own"
}

// textKeys splits text into what is typed: Enter for each line break
// ("\r\n" is one), else a character. text has passed typeable.
func textKeys(text string) []chord {
	var out []chord
	for i, r := range text {
		switch {
		case r == '\r' && strings.HasPrefix(text[i+1:], "\n"):
		case r == '\n':
			out = append(out, chord{name: keyEnter})
		default:
			out = append(out, chord{char: r})
		}
	}
	return out
}
