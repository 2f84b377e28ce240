package settings_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/keychord"
	"github.com/reins-app/reins/settings"
)

// A pause chord held with only Option and Shift is refused with the
// sentence that says why: macOS 15 and later never pass it on.
func TestPauseChordHeldWithOnlyOptionAndShiftIsRefused(t *testing.T) {
	s := settings.Defaults()
	for _, chord := range []string{"Alt+Shift+P", "Option+P"} {
		_, err := settings.PauseChord(chord)(&s)
		if !errors.Is(err, settings.ErrInvalid) || !strings.Contains(err.Error(), "macOS 15") || !strings.Contains(err.Error(), "Control or Command") {
			t.Errorf("PauseChord(%q): %v; want it refused, naming macOS 15 and what to choose", chord, err)
		}
	}
	if s.PauseChord != keychord.PauseChord {
		t.Errorf("the pause chord became %q", s.PauseChord)
	}

	path := filepath.Join(t.TempDir(), settings.FileName)
	if err := os.WriteFile(path, []byte(`{"pauseChord": "Alt+Shift+P"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, problems := settings.File{Path: path}.Load()
	// Load leaves what it cannot use unset, for the defaults to fill.
	if got.PauseChord != "" || len(problems) != 1 || !strings.Contains(problems[0], "macOS 15") {
		t.Errorf("loaded %q with problems %q; want it left unset and the reason", got.PauseChord, problems)
	}
}
