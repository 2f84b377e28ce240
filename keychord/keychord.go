// Package keychord reads key chords as people and agents write them
// ("Control+Shift+K", "Meta+A", "F5", "Control+minus") and holds the rules
// of the pause chord, the one global chord that pauses every agent.
//
// It is a leaf, apart from the executor that presses the keys, so that the
// settings and the person's windows can check a chord the person picks
// without linking the code that sends input.
package keychord

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrUnknownKey is wrapped by every error that says a chord names no key
// combination.
var ErrUnknownKey = errors.New("no such key")

// Mods is a set of modifier keys held during a chord.
type Mods uint8

const (
	Shift Mods = 1 << iota
	Control
	Alt
	Meta // the Windows/Super key on Linux, Command on macOS
)

// Key is a key that types no character.
type Key uint8

const (
	NoKey Key = iota
	Enter
	Tab
	Escape
	Backspace
	Delete
	Insert
	Home
	End
	PageUp
	PageDown
	ArrowLeft
	ArrowUp
	ArrowRight
	ArrowDown
	CapsLock
	ContextMenu
	ShiftKey
	ControlKey
	AltKey
	MetaKey
	F1 // F1 … F24 follow in order
)

// F24 is the last function key.
const F24 = F1 + 23

// Chord is a key combination: modifiers held while one key is pressed.
// Exactly one of Key and Char is set.
type Chord struct {
	Mods Mods
	Key  Key
	Char rune // a printable character; letters are lower case
}

// Key names an agent may use, after Playwright's keyboard.press, plus the
// X keysym spellings people also write. Matched case-insensitively.
var namedKeys = map[string]Key{
	"enter":       Enter,
	"return":      Enter,
	"tab":         Tab,
	"escape":      Escape,
	"esc":         Escape,
	"backspace":   Backspace,
	"delete":      Delete,
	"del":         Delete,
	"insert":      Insert,
	"home":        Home,
	"end":         End,
	"pageup":      PageUp,
	"prior":       PageUp,
	"pagedown":    PageDown,
	"next":        PageDown,
	"arrowleft":   ArrowLeft,
	"left":        ArrowLeft,
	"arrowup":     ArrowUp,
	"up":          ArrowUp,
	"arrowright":  ArrowRight,
	"right":       ArrowRight,
	"arrowdown":   ArrowDown,
	"down":        ArrowDown,
	"capslock":    CapsLock,
	"contextmenu": ContextMenu,
	"menu":        ContextMenu,
}

// Names of keys that type a character, for characters that are awkward to
// write in a chord ("Control+minus" rather than "Control+-").
var charKeys = map[string]rune{
	"space": ' ', "minus": '-', "equal": '=', "plus": '+',
	"backquote": '`', "backslash": '\\', "bracketleft": '[', "bracketright": ']',
	"semicolon": ';', "quote": '\'', "comma": ',', "period": '.', "slash": '/',
}

var modNames = map[string]Mods{
	"shift":   Shift,
	"control": Control,
	"ctrl":    Control,
	"alt":     Alt,
	"option":  Alt,
	"meta":    Meta,
	"command": Meta,
	"cmd":     Meta,
	"super":   Meta,
}

// modKeys maps a modifier to the key that holds it.
var modKeys = map[Mods]Key{Shift: ShiftKey, Control: ControlKey, Alt: AltKey, Meta: MetaKey}

// modSpelling is the modifiers in the order a chord is written, with their
// names.
var modSpelling = []struct {
	m    Mods
	name string
}{{Control, "Control"}, {Alt, "Alt"}, {Shift, "Shift"}, {Meta, "Meta"}}

// Parse reads a chord such as "Control+Shift+K", "Meta+A", "Enter",
// "Control+=", "Control+minus" or "F5". Modifier and key names are
// case-insensitive; "ControlOrMeta" is Command on macOS and Control
// elsewhere. A letter names its key, so "Control+K" and "Control+k" are the
// same chord and Shift is held only when the chord says so. An error wraps
// ErrUnknownKey and says what is wrong.
func Parse(s string) (Chord, error) {
	var parts []string
	switch {
	case s == "":
		return Chord{}, fmt.Errorf("%w: the key chord is empty; name a key such as \"Enter\" or \"Control+A\"", ErrUnknownKey)
	case s == "+":
		parts = []string{"+"}
	case s == "++":
		return Chord{}, fmt.Errorf("%w: %q has a modifier missing before the last +", ErrUnknownKey, s)
	case strings.HasSuffix(s, "++"):
		parts = append(strings.Split(s[:len(s)-2], "+"), "+")
	default:
		parts = strings.Split(s, "+")
	}
	var c Chord
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifier(p)
		if !ok {
			return Chord{}, fmt.Errorf("%w: %q in %q is not a modifier (use Shift, Control, Alt, Meta or ControlOrMeta)", ErrUnknownKey, p, s)
		}
		c.Mods |= m
	}
	last := parts[len(parts)-1]
	if err := c.setKey(last); err != nil {
		return Chord{}, fmt.Errorf("%w: %q in %q %v", ErrUnknownKey, last, s, err)
	}
	return c, nil
}

// ControlOrMeta is the modifier of the shortcuts that differ between the
// systems, such as select-all: Command on macOS, Control elsewhere.
func ControlOrMeta() Mods {
	m, _ := modifier("ControlOrMeta")
	return m
}

func modifier(name string) (Mods, bool) {
	n := strings.ToLower(name)
	if n == "controlormeta" {
		if runtime.GOOS == "darwin" {
			return Meta, true
		}
		return Control, true
	}
	m, ok := modNames[n]
	return m, ok
}

func (c *Chord) setKey(k string) error {
	if r, size := utf8.DecodeRuneInString(k); size == len(k) && r != utf8.RuneError {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("is not a printable character")
		}
		c.Char = unicode.ToLower(r)
		return nil
	}
	low := strings.ToLower(k)
	if n, ok := namedKeys[low]; ok {
		c.Key = n
		return nil
	}
	if r, ok := charKeys[low]; ok {
		c.Char = r
		return nil
	}
	if m, ok := modifier(k); ok {
		c.Key = modKeys[m]
		return nil
	}
	if rest, ok := strings.CutPrefix(low, "key"); ok && len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z' {
		c.Char = rune(rest[0])
		return nil
	}
	if rest, ok := strings.CutPrefix(low, "digit"); ok && len(rest) == 1 && rest[0] >= '0' && rest[0] <= '9' {
		c.Char = rune(rest[0])
		return nil
	}
	if rest, ok := strings.CutPrefix(low, "f"); ok {
		var n int
		if _, err := fmt.Sscanf(rest, "%d", &n); err == nil && fmt.Sprint(n) == rest && n >= 1 && n <= 24 {
			c.Key = F1 + Key(n-1)
			return nil
		}
	}
	return fmt.Errorf("is not a key name (try Enter, Tab, Escape, Backspace, ArrowDown, F5, a single character, or minus/plus/space)")
}

// Key is the key that holds the single modifier m, NoKey for a set of
// none or several.
func (m Mods) Key() Key { return modKeys[m] }

// String names the modifiers in m in the order a chord is written
// (Control, Alt, Shift, Meta), joined by "+": "Shift" for Shift alone.
func (m Mods) String() string {
	var parts []string
	for _, s := range modSpelling {
		if m&s.m != 0 {
			parts = append(parts, s.name)
		}
	}
	return strings.Join(parts, "+")
}

// String is the chord in one spelling, which Parse reads back as the same
// chord: modifiers in the order Control, Alt, Shift, Meta, then the key,
// with letters upper case.
func (c Chord) String() string {
	if m := c.Mods.String(); m != "" {
		return m + "+" + c.keyName()
	}
	return c.keyName()
}

// keyName is the chord's key as Parse reads it back.
func (c Chord) keyName() string {
	if c.Char != 0 {
		for name, r := range charKeys {
			if r == c.Char && (r == ' ' || r == '+') {
				return strings.ToUpper(name[:1]) + name[1:]
			}
		}
		return strings.ToUpper(string(c.Char))
	}
	if c.Key >= F1 && c.Key <= F24 {
		return fmt.Sprintf("F%d", c.Key-F1+1)
	}
	for _, k := range []struct {
		k    Key
		name string
	}{
		{Enter, "Enter"}, {Tab, "Tab"}, {Escape, "Escape"}, {Backspace, "Backspace"},
		{Delete, "Delete"}, {Insert, "Insert"}, {Home, "Home"}, {End, "End"},
		{PageUp, "PageUp"}, {PageDown, "PageDown"}, {ArrowLeft, "ArrowLeft"},
		{ArrowUp, "ArrowUp"}, {ArrowRight, "ArrowRight"}, {ArrowDown, "ArrowDown"},
		{CapsLock, "CapsLock"}, {ContextMenu, "ContextMenu"}, {ShiftKey, "Shift"},
		{ControlKey, "Control"}, {AltKey, "Alt"}, {MetaKey, "Meta"},
	} {
		if k.k == c.Key {
			return k.name
		}
	}
	return "?"
}
