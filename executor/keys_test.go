package executor

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestParseChord(t *testing.T) {
	cmdOrCtrl := modControl
	if runtime.GOOS == "darwin" {
		cmdOrCtrl = modMeta
	}
	for _, tc := range []struct {
		in   string
		want chord
	}{
		{"Enter", chord{name: keyEnter}},
		{"enter", chord{name: keyEnter}},
		{"Return", chord{name: keyEnter}},
		{"Tab", chord{name: keyTab}},
		{"Escape", chord{name: keyEscape}},
		{"ArrowDown", chord{name: keyArrowDown}},
		{"Backspace", chord{name: keyBackspace}},
		{"F5", chord{name: keyF1 + 4}},
		{"F24", chord{name: keyF24}},
		{"Control+Shift+K", chord{mods: modControl | modShift, char: 'k'}},
		{"Control+k", chord{mods: modControl, char: 'k'}},
		{"ctrl+shift+k", chord{mods: modControl | modShift, char: 'k'}},
		{"Meta+A", chord{mods: modMeta, char: 'a'}},
		{"Alt+F4", chord{mods: modAlt, name: keyF1 + 3}},
		{"Control+=", chord{mods: modControl, char: '='}},
		{"Control+minus", chord{mods: modControl, char: '-'}},
		{"Control++", chord{mods: modControl, char: '+'}},
		{"+", chord{char: '+'}},
		{"Shift+Space", chord{mods: modShift, char: ' '}},
		{"KeyZ", chord{char: 'z'}},
		{"Digit7", chord{char: '7'}},
		{"ControlOrMeta+A", chord{mods: cmdOrCtrl, char: 'a'}},
		{"Shift", chord{name: keyShift}},
		{"Control+Shift", chord{mods: modControl, name: keyShift}},
		{"ü", chord{char: 'ü'}},
	} {
		got, err := parseChord(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseChord(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseChordRefusesUnknownKeys(t *testing.T) {
	for _, in := range []string{"", "Banana", "Control+Banana", "Hyper+K", "Control+", "++", "F0", "F25", "F05", "Control+\x07", "Key1", "Digitx"} {
		if c, err := parseChord(in); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("parseChord(%q) = %+v, %v; want ErrUnknownKey", in, c, err)
		}
	}
}

func TestTypeable(t *testing.T) {
	for _, ok := range []string{"", "Hello, World! 1+1=2 ü", "line\nline\r\n", "日本語 🙂", "no\u00a0break", "\n"} {
		if err := typeable(ok); err != nil {
			t.Errorf("typeable(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"bell\a", "nul\x00", "esc\x1b[1m", "\xff\xfe", "tab\there", "lone\rreturn", "v\vtab",
		"form\ffeed", "next\u0085line", "line\u2028sep", "para\u2029sep", "zero\u200bwidth", "rlo\u202e", "\r"} {
		if err := typeable(bad); !errors.Is(err, ErrHiddenKey) {
			t.Errorf("typeable(%q) = %v, want ErrHiddenKey", bad, err)
		}
	}
}

func TestAHiddenKeyIsNamedWithWhatToSendInstead(t *testing.T) {
	for _, c := range []struct{ in, says string }{
		{"alice\tS3cret!", "U+0009 (a tab, which would press Tab"},
		{"alice\tS3cret!", "at character 6"},
		{"alice\tS3cret!", "press Tab as a key of its own"},
		{"5000\r", "U+000D (a carriage return not followed by a line feed)"},
		{"a\u2028b", "U+2028"},
		{"a\u2028b", `typed only as "\n"`},
	} {
		err := typeable(c.in)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("typeable(%q) = %v, want it to say %q", c.in, err, c.says)
		}
	}
}

func TestTextKeys(t *testing.T) {
	got := textKeys("a\r\nb\nc d")
	want := []chord{
		{char: 'a'}, {name: keyEnter}, {char: 'b'}, {name: keyEnter}, {char: 'c'}, {char: ' '}, {char: 'd'},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("textKeys = %+v\nwant %+v", got, want)
	}
}

func TestMacKeyTablesCoverUSKeyboard(t *testing.T) {
	useMacLayout(t, macUSLayout, nil)
	for n := keyEnter; n < keyF1+20; n++ {
		if _, ok := macNamedCode(n); !ok {
			t.Errorf("named key %d has no macOS keycode", n)
		}
	}
	seen := map[uint16]rune{}
	for r := rune(0x20); r < 0x7f; r++ {
		code, shift, ok := macCharKey(r)
		if !ok {
			t.Errorf("%q has no macOS key", r)
			continue
		}
		if shift {
			continue
		}
		if prev, dup := seen[code]; dup {
			t.Errorf("%q and %q share keycode %#x", prev, r, code)
		}
		seen[code] = r
	}
	if code, shift, _ := macCharKey('A'); code != 0x00 || !shift {
		t.Errorf("'A' = %#x shift %v; want the A key (0x00) with Shift", code, shift)
	}
	if _, _, ok := macCharKey('ü'); ok {
		t.Error("'ü' has a US key")
	}
}

func TestCanonicalHotkey(t *testing.T) {
	for in, want := range map[string]string{
		"Control+Alt+Meta+P":       "Control+Alt+Meta+P",
		"ctrl+super+alt+p":         "Control+Alt+Meta+P",
		"Meta+Control+Shift+KeyK":  "Control+Shift+Meta+K",
		"Control+Alt+F12":          "Control+Alt+F12",
		"Control+Alt+Escape":       "Control+Alt+Escape",
		"Option+Command+space":     "Alt+Meta+Space",
		"Control+Alt+Meta+plus":    "Control+Alt+Meta+Plus",
		"Control+Alt+ArrowDown":    "Control+Alt+ArrowDown",
		"Control+Alt+Meta+digit1":  "Control+Alt+Meta+1",
		"Control+Alt+Meta+Shift+/": "Control+Alt+Shift+Meta+/",
	} {
		got, err := CanonicalHotkey(in)
		if err != nil || got != want {
			t.Errorf("CanonicalHotkey(%q) = %q, %v; want %q", in, got, err, want)
			continue
		}
		// The spelling reads back as the same chord.
		a, _ := parseChord(in)
		b, err := parseChord(got)
		if err != nil || a != b {
			t.Errorf("%q reads back as %+v, %v; want %+v", got, b, err, a)
		}
	}
	for _, s := range []string{"Alt+Shift+P", "Option+P", "Shift+Alt+F12"} {
		_, err := CanonicalHotkey(s)
		if !errors.Is(err, ErrUnknownKey) || err.Error() != errOptionShiftChord.Error() || !strings.Contains(err.Error(), "macOS 15") {
			t.Errorf("CanonicalHotkey(%q): %v; want the sentence that macOS 15 ignores it", s, err)
		}
	}
	for _, bad := range []string{"", "P", "Control+P", "Shift+Meta+P", "Control+Alt", "Control+Alt+Meta+CapsLock", "Control+Alt+Hyper+P", "Control+Alt+Meta+Shift"} {
		if got, err := CanonicalHotkey(bad); err == nil {
			t.Errorf("CanonicalHotkey(%q) = %q, want an error", bad, got)
		}
	}
}
