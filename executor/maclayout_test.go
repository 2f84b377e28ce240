package executor

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reins-app/reins/keychord"
)

// loadMacLayout reads a table under testdata/maclayout: key codes as
// "0x0C" → what UCKeyTranslate types there.
func loadMacLayout(t *testing.T, file string) *macLayout {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "maclayout", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Layout string                  `json:"layout"`
		Keys   map[string]macKeyOutput `json:"keys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	table := macLayoutTable{}
	for k, out := range doc.Keys {
		code, err := strconv.ParseUint(k, 0, 7)
		if err != nil {
			t.Fatalf("%s: key code %q: %v", file, k, err)
		}
		table[uint16(code)] = out
	}
	return newMacLayout(doc.Layout, table)
}

// Tests press US keys unless they pick a layout: on a Mac the layout in
// use is the machine's, and `go test` runs no main-thread loop to read it.
func init() { testOnlyMacLayout = func() (*macLayout, error) { return macUSLayout, nil } }

// useMacLayout makes l the layout in use until the test ends.
func useMacLayout(t *testing.T, l *macLayout, err error) {
	t.Helper()
	prev := testOnlyMacLayout
	testOnlyMacLayout = func() (*macLayout, error) { return l, err }
	t.Cleanup(func() { testOnlyMacLayout = prev })
}

// chordKeyOf resolves the character of a chord as written.
func chordKeyOf(t *testing.T, s string) (macKey, error) {
	t.Helper()
	c, err := parseChord(s)
	if err != nil {
		t.Fatalf("parseChord(%q): %v", s, err)
	}
	return macChordKey(c.char, c.mods)
}

func TestMacLayoutUSTableIsTheUSMap(t *testing.T) {
	us := loadMacLayout(t, "us.json")
	if !reflect.DeepEqual(us.keys, macUSLayout.keys) {
		t.Errorf("us.json reads as %v\nwant the US map %v", us.keys, macUSLayout.keys)
	}
	for r := rune(0x20); r < 0x7f; r++ {
		code, shift, ok := macUSKey(r)
		if k, found := us.key(r); !ok || !found || k != (macKey{code, shift}) {
			t.Errorf("%q: us.json %+v %v, US map %#x shift %v %v", r, k, found, code, shift, ok)
		}
	}
}

func TestMacLayoutAZERTYSelectAllPressesTheKeyLabelledA(t *testing.T) {
	useMacLayout(t, loadMacLayout(t, "french.json"), nil)
	for chord, want := range map[string]macKey{
		"ControlOrMeta+A": {0x0C, false}, // Clear's select-all; 0x00 is Q here, and ⌘Q quits
		"Meta+a":          {0x0C, false},
		"Meta+q":          {0x00, false},
		"Meta+z":          {0x0D, false},
		"Meta+w":          {0x06, false},
		"Meta+m":          {0x29, false},
		"Meta+c":          {0x08, false},
		"Meta+1":          {0x12, true}, // the main key, shifted, not keypad 1
	} {
		k, err := chordKeyOf(t, chord)
		if err != nil || k != want {
			t.Errorf("%s on AZERTY = %+v, %v; want %+v", chord, k, err, want)
		}
	}
	code, shift, ok := macCharKey('a')
	if !ok || code != 0x0C || shift {
		t.Errorf("macCharKey('a') on AZERTY = %#x, %v, %v; want 0x0C", code, shift, ok)
	}
	c, _ := keychord.Parse("Control+Alt+Meta+A")
	if hk, _, err := MacChordKey(c); err != nil || hk != 0x0C {
		t.Errorf("hot key ⌃⌥⌘A on AZERTY = %#x, %v; want 0x0C", hk, err)
	}
}

func TestMacLayoutQWERTZControlZ(t *testing.T) {
	useMacLayout(t, loadMacLayout(t, "german.json"), nil)
	for chord, want := range map[string]macKey{
		"Control+Z": {0x10, false},
		"Control+Y": {0x06, false},
		"Meta+a":    {0x00, false},
		"Control+ß": {0x1B, false},
		"Control+#": {0x2A, false},
	} {
		k, err := chordKeyOf(t, chord)
		if err != nil || k != want {
			t.Errorf("%s on QWERTZ = %+v, %v; want %+v", chord, k, err, want)
		}
	}
}

func TestMacLayoutRefusesCharactersItLacks(t *testing.T) {
	for _, tc := range []struct {
		file string
		r    rune
	}{
		{"german.json", '@'}, // Option+L
		{"german.json", '['}, // Option+5
		{"german.json", '´'}, // a dead key
		{"french.json", '^'}, // a dead key
		{"us.json", 'ß'},     // Option+S
		{"us.json", 'é'},
	} {
		l := loadMacLayout(t, tc.file)
		useMacLayout(t, l, nil)
		_, err := macChordKey(tc.r, modControl)
		if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), l.name) || !strings.Contains(err.Error(), strconv.QuoteRune(tc.r)) {
			t.Errorf("%s %q: %v; want ErrUnknownKey naming the layout and the character", tc.file, tc.r, err)
		}
		if _, _, ok := macCharKey(tc.r); ok {
			t.Errorf("%s: macCharKey(%q) ok", tc.file, tc.r)
		}
		if _, _, ok := macTextKey(tc.r); ok {
			t.Errorf("%s: macTextKey(%q) ok", tc.file, tc.r)
		}
	}
}

func TestMacChordsRefuseWhenTheLayoutIsUnknown(t *testing.T) {
	useMacLayout(t, nil, errors.New("the main thread did not answer"))
	k, err := chordKeyOf(t, "ControlOrMeta+A")
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "the main thread did not answer") {
		t.Errorf("⌘A with no layout = %+v, %v; want ErrUnknownKey with the reason", k, err)
	}
	if _, _, ok := macCharKey('a'); ok {
		t.Error("macCharKey('a') with no layout is ok; a chord must not guess the US key")
	}
	c, _ := keychord.Parse("Control+Alt+Meta+P")
	if _, _, err := MacChordKey(c); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("hot key with no layout: %v; want ErrUnknownKey", err)
	}
	// Text carries its characters, so typing still names the US key.
	if code, shift, ok := macTextKey('A'); !ok || code != 0x00 || !shift {
		t.Errorf("macTextKey('A') with no layout = %#x, %v, %v; want the US A key with Shift", code, shift, ok)
	}
}

func TestMacTextKeyFollowsTheLayout(t *testing.T) {
	useMacLayout(t, loadMacLayout(t, "french.json"), nil)
	for r, want := range map[rune]macKey{'a': {0x0C, false}, 'A': {0x0C, true}, 'é': {0x13, false}, '1': {0x12, true}, '@': {0x0A, false}} {
		code, shift, ok := macTextKey(r)
		if !ok || (macKey{code, shift}) != want {
			t.Errorf("macTextKey(%q) on AZERTY = %#x, %v, %v; want %+v", r, code, shift, ok, want)
		}
	}
}

func TestNewMacLayoutPicksKeys(t *testing.T) {
	l := newMacLayout("test", macLayoutTable{
		0x01: {None: "x", Shift: "y"},
		0x02: {None: "y", Shift: "Y"}, // unshifted wins over 0x01's Shift
		0x03: {None: "x", Shift: "X"}, // same rank: the lower code, 0x01, wins
		0x04: {None: "", Shift: "~", Dead: []string{macStateNone}},
		0x05: {None: "~", Shift: "", Dead: []string{macStateNone}}, // dead: the shifted 0x04 wins
		0x06: {None: "ab", Shift: "\r"},                            // more than one rune; a control character
		0x07: {None: "\uf700", Shift: ""},                          // private use, as function keys type
		0x53: {None: "1", Shift: "1"},                              // keypad 1
		0x12: {None: "&", Shift: "1"},                              // a main key wins, even shifted
	})
	want := map[rune]macKey{
		'x': {0x01, false}, 'y': {0x02, false}, 'Y': {0x02, true}, 'X': {0x03, true},
		'~': {0x04, true}, '&': {0x12, false}, '1': {0x12, true},
	}
	if !reflect.DeepEqual(l.keys, want) {
		t.Errorf("keys = %v\nwant %v", l.keys, want)
	}
}

func TestMacLayoutTablesTypeEveryLetter(t *testing.T) {
	for _, file := range []string{"us.json", "french.json", "german.json"} {
		l := loadMacLayout(t, file)
		for r := 'a'; r <= 'z'; r++ {
			if k, ok := l.key(r); !ok || k.shift {
				t.Errorf("%s: %q = %+v, %v; want an unshifted key", file, r, k, ok)
			}
		}
	}
}

func TestMacChordsWithCommandUseTheCommandKeys(t *testing.T) {
	// As Dvorak - QWERTY ⌘ records them: Dvorak alone, QWERTY with Command.
	dvorak := newMacLayout("Dvorak - QWERTY ⌘", macLayoutTable{
		0x08: {None: "j", Shift: "J", Command: "c", CommandShift: "C"},
		0x22: {None: "c", Shift: "C", Command: "i", CommandShift: "I"},
	})
	useMacLayout(t, dvorak, nil)
	if k, err := chordKeyOf(t, "Meta+c"); err != nil || k != (macKey{0x08, false}) {
		t.Errorf("⌘C = %+v, %v; want 0x08, the key Command makes C", k, err)
	}
	if k, err := chordKeyOf(t, "Control+c"); err != nil || k != (macKey{0x22, false}) {
		t.Errorf("⌃C = %+v, %v; want 0x22, the key that types C", k, err)
	}
	if _, _, ok := macCharKey('c'); ok {
		t.Error("macCharKey('c') is ok where Command moves C to another key")
	}
	if code, _, ok := macTextKey('c'); !ok || code != 0x22 {
		t.Errorf("macTextKey('c') = %#x, %v; want 0x22", code, ok)
	}

	// As a Cyrillic layout records them: Latin only with Command.
	russian := newMacLayout("Russian", macLayoutTable{
		0x00: {None: "ф", Shift: "Ф", Command: "a", CommandShift: "A"},
	})
	useMacLayout(t, russian, nil)
	if k, err := chordKeyOf(t, "Meta+a"); err != nil || k != (macKey{0x00, false}) {
		t.Errorf("⌘A on Russian = %+v, %v; want 0x00", k, err)
	}
	if _, err := chordKeyOf(t, "Control+a"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("⌃A on Russian: %v; want ErrUnknownKey", err)
	}
}

// TestMacTextKeyNamesNoKeyForWhatTheLayoutLacks: a character no key of the
// layout types (without Option or an accent key) is posted with a key code
// that no Mac key has and the layout types nothing with, never with 0, the
// A key's; one the layout has keeps the layout's key.
func TestMacTextKeyNamesNoKeyForWhatTheLayoutLacks(t *testing.T) {
	named := map[uint16]bool{}
	for _, c := range macNamedCodes {
		named[c] = true
	}
	for _, c := range macFKeys {
		named[c] = true
	}
	for _, tc := range []struct {
		name   string
		layout *macLayout
		err    error
		lacks  []rune
		has    map[rune]uint16
	}{
		{"US", loadMacLayout(t, "us.json"), nil, []rune{'é', '€', 'ß', '你', '😀'}, map[rune]uint16{'a': 0x00, 'q': 0x0C}},
		{"French", loadMacLayout(t, "french.json"), nil, []rune{'ß', '€', '你'}, map[rune]uint16{'a': 0x0C, 'é': 0x13}},
		{"German", loadMacLayout(t, "german.json"), nil, []rune{'é', '你'}, map[rune]uint16{'ß': 0x1B}},
		{"unreadable, so US", nil, errors.New("the main thread did not answer"), []rune{'é', '€'}, map[rune]uint16{'a': 0x00}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			useMacLayout(t, tc.layout, tc.err)
			l := tc.layout
			if l == nil {
				l = macUSLayout
			}
			for _, r := range tc.lacks {
				code, shift, ok := macTextKey(r)
				if ok || shift {
					t.Errorf("macTextKey(%q) = %#x, %v, %v; the layout has no key for it", r, code, shift, ok)
				}
				if code == 0 || named[code] || macKeypad(code) || !slices.Contains(macKeylessCodes, code) {
					t.Errorf("macTextKey(%q) posts key code %#x, which means a key", r, code)
				}
				for other, k := range l.keys {
					if k.code == code {
						t.Errorf("macTextKey(%q) posts key code %#x, which types %q on this layout", r, code, other)
					}
				}
			}
			for r, want := range tc.has {
				if code, _, ok := macTextKey(r); !ok || code != want {
					t.Errorf("macTextKey(%q) = %#x, %v; want the layout's %#x", r, code, ok, want)
				}
			}
		})
	}
}

func TestMacKeylessSkipsACodeTheLayoutTypesWith(t *testing.T) {
	l := newMacLayout("odd", macLayoutTable{
		macKeylessCodes[0]: {None: "x"},
		macKeylessCodes[1]: {Dead: []string{macStateShift}},
		0x00:               {None: "a", Shift: "A"},
	})
	if l.keyless != macKeylessCodes[2] {
		t.Errorf("keyless = %#x; want %#x, the first code that types nothing", l.keyless, macKeylessCodes[2])
	}
}
