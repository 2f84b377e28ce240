package keychord

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
)

func TestParseChord(t *testing.T) {
	cmdOrCtrl := Control
	if runtime.GOOS == "darwin" {
		cmdOrCtrl = Meta
	}
	for _, tc := range []struct {
		in   string
		want Chord
	}{
		{"Enter", Chord{Key: Enter}},
		{"enter", Chord{Key: Enter}},
		{"Return", Chord{Key: Enter}},
		{"Tab", Chord{Key: Tab}},
		{"Escape", Chord{Key: Escape}},
		{"ArrowDown", Chord{Key: ArrowDown}},
		{"Backspace", Chord{Key: Backspace}},
		{"F5", Chord{Key: F1 + 4}},
		{"F24", Chord{Key: F24}},
		{"Control+Shift+K", Chord{Mods: Control | Shift, Char: 'k'}},
		{"Control+k", Chord{Mods: Control, Char: 'k'}},
		{"ctrl+shift+k", Chord{Mods: Control | Shift, Char: 'k'}},
		{"Meta+A", Chord{Mods: Meta, Char: 'a'}},
		{"Alt+F4", Chord{Mods: Alt, Key: F1 + 3}},
		{"Control+=", Chord{Mods: Control, Char: '='}},
		{"Control+minus", Chord{Mods: Control, Char: '-'}},
		{"Control++", Chord{Mods: Control, Char: '+'}},
		{"+", Chord{Char: '+'}},
		{"Shift+Space", Chord{Mods: Shift, Char: ' '}},
		{"KeyZ", Chord{Char: 'z'}},
		{"Digit7", Chord{Char: '7'}},
		{"ControlOrMeta+A", Chord{Mods: cmdOrCtrl, Char: 'a'}},
		{"Shift", Chord{Key: ShiftKey}},
		{"Control+Shift", Chord{Mods: Control, Key: ShiftKey}},
		{"ü", Chord{Char: 'ü'}},
	} {
		got, err := Parse(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseChordRefusesUnknownKeys(t *testing.T) {
	for _, in := range []string{"", "Banana", "Control+Banana", "Hyper+K", "Control+", "++", "F0", "F25", "F05", "Control+\x07", "Key1", "Digitx"} {
		if c, err := Parse(in); !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrUnknownKey", in, c, err)
		}
	}
}
