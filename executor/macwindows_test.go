package executor

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reins-app/reins/denylist"
)

// readGolden decodes testdata/macwindows/name into v. The files hold
// CGWindowListCopyWindowInfo's and CGSessionCopyCurrentDictionary's
// dictionaries as JSON, keyed by the CFString keys' own names.
func readGolden(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "macwindows", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// deniedByDefault is the darwin code's test of a window, with the owner's
// name standing in for the App NSRunningApplication gives.
func deniedByDefault(w macWindowInfo) bool {
	_, ok := denylist.DefaultFor("darwin").Match(App{Name: w.OwnerName, PID: w.OwnerPID})
	return ok
}

func TestMacWindowAt(t *testing.T) {
	for _, tc := range []struct {
		file  string
		x, y  float64
		owner string // "" for the desktop
	}{
		// An alpha-0 window is click-through; a faint overlay above the
		// normal layer is skipped; the browser below takes the click.
		{"browser-under-invisible-overlay.json", 50, 50, "Google Chrome"},
		{"browser-under-invisible-overlay.json", 200, 200, "Google Chrome"},
		// Above the menu bar's strip nothing but the overlays: the desktop.
		{"browser-under-invisible-overlay.json", 50, 10, ""},
		// The banner is system UI above the normal layer and takes the click.
		{"notification-banner.json", 1200, 60, "UserNotificationCenter"},
		{"notification-banner.json", 1000, 60, "Google Chrome"},
		{"security-agent.json", 700, 400, "SecurityAgent"},
		{"security-agent.json", 100, 400, "Google Chrome"},
		// The menu bar and the Dock are skipped: the menus are the front
		// application's, which is checked apart; a deny-listed app's status
		// item is not.
		{"menubar-and-dock.json", 300, 10, ""},
		{"menubar-and-dock.json", 1210, 10, "1Password"},
		{"menubar-and-dock.json", 700, 860, "Google Chrome"},
		{"menubar-and-dock.json", 700, 400, "Google Chrome"},
		{"menubar-and-dock.json", 2000, 400, ""},
	} {
		var ws []macWindowInfo
		readGolden(t, tc.file, &ws)
		w, ok := macWindowAt(ws, tc.x, tc.y, deniedByDefault)
		if ok != (tc.owner != "") || w.OwnerName != tc.owner {
			t.Errorf("%s at (%g, %g): %q, %v; want %q", tc.file, tc.x, tc.y, w.OwnerName, ok, tc.owner)
		}
	}
}

func TestMacSystemUIAtThePointIsDenyListed(t *testing.T) {
	for _, tc := range []struct {
		file string
		x, y float64
	}{
		{"notification-banner.json", 1200, 60},
		{"security-agent.json", 700, 400},
	} {
		var ws []macWindowInfo
		readGolden(t, tc.file, &ws)
		// Even a deny test that refuses nothing by itself.
		w, ok := macWindowAt(ws, tc.x, tc.y, func(macWindowInfo) bool { return false })
		if !ok {
			t.Fatalf("%s: no window at (%g, %g)", tc.file, tc.x, tc.y)
		}
		if !deniedByDefault(w) {
			t.Errorf("%s: the default deny list lets %s through", tc.file, w.OwnerName)
		}
	}
}

func TestMacFrontWindow(t *testing.T) {
	for file, want := range map[string]string{
		"browser-under-invisible-overlay.json": "Google Chrome",
		"notification-banner.json":             "Google Chrome",
		"menubar-and-dock.json":                "Google Chrome",
	} {
		var ws []macWindowInfo
		readGolden(t, file, &ws)
		if w, ok := macFrontWindow(ws); !ok || w.OwnerName != want {
			t.Errorf("%s: front window %q, %v; want %q", file, w.OwnerName, ok, want)
		}
	}
	if _, ok := macFrontWindow(nil); ok {
		t.Error("a front window among none")
	}
}

func TestMacSessionRefusal(t *testing.T) {
	for _, tc := range []struct {
		file string
		want error
	}{
		{"session-unlocked.json", nil},
		{"session-locked.json", ErrDenyListed},
		{"session-switched-out.json", ErrDenyListed},
		{"session-none.json", ErrNoDisplay},
	} {
		var s *macSession
		readGolden(t, tc.file, &s)
		err := macSessionRefusal(s)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v; want %v", tc.file, err, tc.want)
		}
	}
}

func TestOutsideAppBundle(t *testing.T) {
	for exe, bare := range map[string]bool{
		"/Applications/Reins.app/Contents/MacOS/reins":               false,
		"/Users/me/Applications/Reins Beta.APP/Contents/MacOS/reins": false,
		"/Users/me/go/bin/reins":                                     true,
		"/opt/homebrew/bin/reins":                                    true,
		"/tmp/Contents/MacOS/reins":                                  true,
		"/Applications/Reins.app/Contents/Resources/reins":           true,
		"reins": true,
	} {
		if got := outsideAppBundle(exe); got != bare {
			t.Errorf("outsideAppBundle(%q) = %v; want %v", exe, got, bare)
		}
	}
}
