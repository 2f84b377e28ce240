package executor

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

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
