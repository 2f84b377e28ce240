package hotkey

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/reins-app/reins/keychord"
)

func TestCarbonHotKey(t *testing.T) {
	for _, tc := range []struct {
		chord      string
		code, mods uint32
	}{
		// ⌃⌥⌘P: kVK_ANSI_P is 0x23; controlKey|optionKey|cmdKey is
		// 1<<12 | 1<<11 | 1<<8 in HIToolbox/Events.h.
		{keychord.PauseChord, 0x23, 0x1900},
		{"Control+Shift+F5", 0x60, carbonControlKey | carbonShiftKey},                  // kVK_F5
		{"Command+Escape", 0x35, carbonCmdKey},                                         // kVK_Escape
		{"Control+plus", 0x18, carbonControlKey | carbonShiftKey},                      // "+" is Shift with kVK_ANSI_Equal
		{"Command+Alt+Shift+k", 0x28, carbonCmdKey | carbonOptionKey | carbonShiftKey}, // kVK_ANSI_K
	} {
		c, err := keychord.Parse(tc.chord)
		if err != nil {
			t.Fatalf("keychord.Parse(%q): %v", tc.chord, err)
		}
		code, mods, err := carbonHotKey(c)
		if err != nil {
			t.Errorf("carbonHotKey(%q): %v", tc.chord, err)
			continue
		}
		if code != tc.code || mods != tc.mods {
			t.Errorf("carbonHotKey(%q) = %#x, %#x; want %#x, %#x", tc.chord, code, mods, tc.code, tc.mods)
		}
	}
}

func TestCarbonHotKeyRefusesWhatNoMacKeyTypes(t *testing.T) {
	for _, s := range []string{"Control+é", "Meta+F21", "Control+Shift"} {
		c, err := keychord.Parse(s)
		if err != nil {
			t.Fatalf("keychord.Parse(%q): %v", s, err)
		}
		if _, _, err := carbonHotKey(c); !errors.Is(err, keychord.ErrUnknownKey) {
			t.Errorf("carbonHotKey(%q) = %v; want ErrUnknownKey", s, err)
		}
	}
}

// TestCarbonHotKeyRefusesOptionShiftOnlyChords: macOS 15 and later accept
// such a registration and never deliver its presses.
func TestCarbonHotKeyRefusesOptionShiftOnlyChords(t *testing.T) {
	for _, s := range []string{"Alt+P", "Alt+Shift+P", "Shift+F5", "Option+Shift+k"} {
		c, err := keychord.Parse(s)
		if err != nil {
			t.Fatalf("keychord.Parse(%q): %v", s, err)
		}
		if _, _, err := carbonHotKey(c); !errors.Is(err, keychord.ErrOptionShiftOnly) || !errors.Is(err, keychord.ErrUnknownKey) {
			t.Errorf("carbonHotKey(%q) = %v; want the Option and Shift refusal", s, err)
		}
	}
}

func TestCarbonFourCharCodes(t *testing.T) {
	for code, want := range map[string]uint32{
		"keyb": carbonClassKeyboard,
		"----": carbonParamDirectObject,
		"hkid": carbonTypeEventHotKeyID,
		"Rein": carbonReinsSignature,
	} {
		if got := binary.BigEndian.Uint32([]byte(code)); got != want {
			t.Errorf("'%s' = %#x; the constant says %#x", code, got, want)
		}
	}
}

func TestCarbonHotKeyIDIsTheStructInOneRegister(t *testing.T) {
	// The register holds the 8 bytes of {signature, id} as little-endian
	// memory would.
	var mem [8]byte
	binary.LittleEndian.PutUint32(mem[0:], carbonReinsSignature)
	binary.LittleEndian.PutUint32(mem[4:], 7)
	if got, want := carbonHotKeyID(carbonReinsSignature, 7), binary.LittleEndian.Uint64(mem[:]); got != want {
		t.Errorf("carbonHotKeyID = %#x; want %#x", got, want)
	}
}
