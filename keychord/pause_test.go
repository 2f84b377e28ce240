package keychord

import (
	"errors"
	"strings"
	"testing"
)

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
		a, _ := Parse(in)
		b, err := Parse(got)
		if err != nil || a != b {
			t.Errorf("%q reads back as %+v, %v; want %+v", got, b, err, a)
		}
	}
	for _, s := range []string{"Alt+Shift+P", "Option+P", "Shift+Alt+F12"} {
		_, err := CanonicalHotkey(s)
		if !errors.Is(err, ErrUnknownKey) || err.Error() != ErrOptionShiftOnly.Error() || !strings.Contains(err.Error(), "macOS 15") {
			t.Errorf("CanonicalHotkey(%q): %v; want the sentence that macOS 15 ignores it", s, err)
		}
	}
	for _, bad := range []string{"", "P", "Control+P", "Shift+Meta+P", "Control+Alt", "Control+Alt+Meta+CapsLock", "Control+Alt+Hyper+P", "Control+Alt+Meta+Shift"} {
		if got, err := CanonicalHotkey(bad); err == nil {
			t.Errorf("CanonicalHotkey(%q) = %q, want an error", bad, got)
		}
	}
}
