package executor

import (
	"fmt"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mods is a set of modifier keys held during a chord.
type mods uint8

const (
	modShift mods = 1 << iota
	modControl
	modAlt
	modMeta // the Windows/Super key on Linux, Command on macOS
)

// modOrder is the order modifiers go down in (and come up in reverse).
var modOrder = []mods{modControl, modAlt, modMeta, modShift}

// named is a key that types no character.
type named uint8

const (
	keyNone named = iota
	keyEnter
	keyTab
	keyEscape
	keyBackspace
	keyDelete
	keyInsert
	keyHome
	keyEnd
	keyPageUp
	keyPageDown
	keyArrowLeft
	keyArrowUp
	keyArrowRight
	keyArrowDown
	keyCapsLock
	keyContextMenu
	keyShift
	keyControl
	keyAlt
	keyMeta
	keyF1 // F1 … F24 follow in order
)

const keyF24 = keyF1 + 23

// chord is a parsed key combination: modifiers held while one key is pressed.
// Exactly one of name and char is set.
type chord struct {
	mods mods
	name named
	char rune // a printable character; letters are lower case
}

// Key names an agent may use, after Playwright's keyboard.press, plus the
// X keysym spellings people also write. Matched case-insensitively.
var namedKeys = map[string]named{
	"enter":       keyEnter,
	"return":      keyEnter,
	"tab":         keyTab,
	"escape":      keyEscape,
	"esc":         keyEscape,
	"backspace":   keyBackspace,
	"delete":      keyDelete,
	"del":         keyDelete,
	"insert":      keyInsert,
	"home":        keyHome,
	"end":         keyEnd,
	"pageup":      keyPageUp,
	"prior":       keyPageUp,
	"pagedown":    keyPageDown,
	"next":        keyPageDown,
	"arrowleft":   keyArrowLeft,
	"left":        keyArrowLeft,
	"arrowup":     keyArrowUp,
	"up":          keyArrowUp,
	"arrowright":  keyArrowRight,
	"right":       keyArrowRight,
	"arrowdown":   keyArrowDown,
	"down":        keyArrowDown,
	"capslock":    keyCapsLock,
	"contextmenu": keyContextMenu,
	"menu":        keyContextMenu,
}

// Names of keys that type a character, for characters that are awkward to
// write in a chord ("Control+minus" rather than "Control+-").
var charKeys = map[string]rune{
	"space": ' ', "minus": '-', "equal": '=', "plus": '+',
	"backquote": '`', "backslash": '\\', "bracketleft": '[', "bracketright": ']',
	"semicolon": ';', "quote": '\'', "comma": ',', "period": '.', "slash": '/',
}

var modNames = map[string]mods{
	"shift":   modShift,
	"control": modControl,
	"ctrl":    modControl,
	"alt":     modAlt,
	"option":  modAlt,
	"meta":    modMeta,
	"command": modMeta,
	"cmd":     modMeta,
	"super":   modMeta,
}

// modLabels are the modifiers' names in errors.
var modLabels = map[mods]string{modShift: "Shift", modControl: "Control", modAlt: "Alt", modMeta: "Meta"}

// modKeys maps a modifier to the key that holds it.
var modKeys = map[mods]named{modShift: keyShift, modControl: keyControl, modAlt: keyAlt, modMeta: keyMeta}

// parseChord reads a chord such as "Control+Shift+K", "Meta+A", "Enter",
// "Control+=", "Control+minus" or "F5". Modifier and key names are
// case-insensitive; "ControlOrMeta" is Command on macOS and Control
// elsewhere. A letter names its key, so "Control+K" and "Control+k" are the
// same chord and Shift is held only when the chord says so.
func parseChord(s string) (chord, error) {
	var parts []string
	switch {
	case s == "":
		return chord{}, fmt.Errorf("%w: the key chord is empty; name a key such as \"Enter\" or \"Control+A\"", ErrUnknownKey)
	case s == "+":
		parts = []string{"+"}
	case s == "++":
		return chord{}, fmt.Errorf("%w: %q has a modifier missing before the last +", ErrUnknownKey, s)
	case strings.HasSuffix(s, "++"):
		parts = append(strings.Split(s[:len(s)-2], "+"), "+")
	default:
		parts = strings.Split(s, "+")
	}
	var c chord
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifier(p)
		if !ok {
			return chord{}, fmt.Errorf("%w: %q in %q is not a modifier (use Shift, Control, Alt, Meta or ControlOrMeta)", ErrUnknownKey, p, s)
		}
		c.mods |= m
	}
	last := parts[len(parts)-1]
	if err := c.setKey(last); err != nil {
		return chord{}, fmt.Errorf("%w: %q in %q %v", ErrUnknownKey, last, s, err)
	}
	return c, nil
}

func modifier(name string) (mods, bool) {
	n := strings.ToLower(name)
	if n == "controlormeta" {
		if runtime.GOOS == "darwin" {
			return modMeta, true
		}
		return modControl, true
	}
	m, ok := modNames[n]
	return m, ok
}

func (c *chord) setKey(k string) error {
	if r, size := utf8.DecodeRuneInString(k); size == len(k) && r != utf8.RuneError {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("is not a printable character")
		}
		c.char = unicode.ToLower(r)
		return nil
	}
	low := strings.ToLower(k)
	if n, ok := namedKeys[low]; ok {
		c.name = n
		return nil
	}
	if r, ok := charKeys[low]; ok {
		c.char = r
		return nil
	}
	if m, ok := modifier(k); ok {
		c.name = modKeys[m]
		return nil
	}
	if rest, ok := strings.CutPrefix(low, "key"); ok && len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z' {
		c.char = rune(rest[0])
		return nil
	}
	if rest, ok := strings.CutPrefix(low, "digit"); ok && len(rest) == 1 && rest[0] >= '0' && rest[0] <= '9' {
		c.char = rune(rest[0])
		return nil
	}
	if rest, ok := strings.CutPrefix(low, "f"); ok {
		var n int
		if _, err := fmt.Sscanf(rest, "%d", &n); err == nil && fmt.Sprint(n) == rest && n >= 1 && n <= 24 {
			c.name = keyF1 + named(n-1)
			return nil
		}
	}
	return fmt.Errorf("is not a key name (try Enter, Tab, Escape, Backspace, ArrowDown, F5, a single character, or minus/plus/space)")
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
