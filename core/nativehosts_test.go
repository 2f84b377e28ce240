package core

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reins-app/reins/extension"
)

// The folders each browser reads, as a person would find them.
var wantNativeHostDirs = map[string][]string{
	"darwin": {
		"/Users/ada/Library/Application Support/Google/Chrome/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Google/Chrome Beta/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Google/Chrome Dev/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Google/Chrome Canary/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Chromium/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Microsoft Edge/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Vivaldi/NativeMessagingHosts",
		"/Users/ada/Library/Application Support/Arc/User Data/NativeMessagingHosts",
	},
	"linux": {
		"/home/ada/.config/google-chrome/NativeMessagingHosts",
		"/home/ada/.config/google-chrome-beta/NativeMessagingHosts",
		"/home/ada/.config/google-chrome-unstable/NativeMessagingHosts",
		"/home/ada/.config/google-chrome-canary/NativeMessagingHosts",
		"/home/ada/.config/chromium/NativeMessagingHosts",
		"/home/ada/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
		"/home/ada/.config/microsoft-edge/NativeMessagingHosts",
		"/home/ada/.config/vivaldi/NativeMessagingHosts",
	},
}

func TestNativeHostDirsNameEveryBrowsersFolder(t *testing.T) {
	homes := map[string]string{"darwin": "/Users/ada", "linux": "/home/ada"}
	for goos, want := range wantNativeHostDirs {
		got := nativeHostDirs(goos, homes[goos], "")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", goos, got, want)
		}
	}
}

func TestNativeHostDirsFollowXDGConfigHomeOnLinuxOnly(t *testing.T) {
	got := nativeHostDirs("linux", "/home/ada", "/home/ada/cfg")
	if got[0] != "/home/ada/cfg/google-chrome/NativeMessagingHosts" {
		t.Errorf("with XDG_CONFIG_HOME: %s", got[0])
	}
	// The base directory specification says a relative value is ignored.
	if got := nativeHostDirs("linux", "/home/ada", "cfg"); got[0] != "/home/ada/.config/google-chrome/NativeMessagingHosts" {
		t.Errorf("with a relative XDG_CONFIG_HOME: %s", got[0])
	}
	if got := nativeHostDirs("darwin", "/Users/ada", "/Users/ada/cfg"); !strings.HasPrefix(got[0], "/Users/ada/Library/") {
		t.Errorf("macOS Chrome does not read XDG_CONFIG_HOME: %s", got[0])
	}
}

// extensionID is the id Chrome gives the extension: the first 128 bits of
// the SHA-256 of its public key, each hex digit written as 'a'…'p'.
func extensionID(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "extension", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Key string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	der, err := base64.StdEncoding.DecodeString(m.Key)
	if err != nil {
		t.Fatalf("manifest.json key: %v", err)
	}
	sum := sha256.Sum256(der)
	var id strings.Builder
	for _, c := range hex.EncodeToString(sum[:16]) {
		d := strings.IndexRune("0123456789abcdef", c)
		id.WriteByte(byte('a' + d))
	}
	return id.String()
}

func TestNativeHostManifestInEveryBrowserNamesOurOriginAndProgram(t *testing.T) {
	origin := "chrome-extension://" + extensionID(t) + "/"
	exes := map[string]string{
		"darwin": "/Applications/Reins.app/Contents/MacOS/reins",
		"linux":  "/home/ada/.local/bin/reins",
	}
	for goos, exe := range exes {
		home := t.TempDir()
		dirs := nativeHostDirs(goos, home, "")
		if len(dirs) != len(wantNativeHostDirs[goos]) {
			t.Fatalf("%s: %d folders", goos, len(dirs))
		}
		for _, dir := range dirs {
			p, err := InstallNativeHost(dir, exe)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			if p != filepath.Join(dir, "app.reins.bridge.json") {
				t.Errorf("manifest at %s", p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Name           string   `json:"name"`
				Path           string   `json:"path"`
				Type           string   `json:"type"`
				AllowedOrigins []string `json:"allowed_origins"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if m.Name != extension.NativeHost || m.Path != exe || m.Type != "stdio" ||
				len(m.AllowedOrigins) != 1 || m.AllowedOrigins[0] != origin {
				t.Errorf("%s (%s):\n%s\nwant name %s, path %s, type stdio, allowed_origins [%s]", goos, p, b, extension.NativeHost, exe, origin)
			}
		}
	}
}

func TestNativeHostRefusesAProgramThatWillBeGone(t *testing.T) {
	for _, exe := range []string{
		"/Volumes/Reins/Reins.app/Contents/MacOS/reins",
		"/private/var/folders/x/T/AppTranslocation/1234/d/Reins.app/Contents/MacOS/reins",
	} {
		dir := t.TempDir()
		_, err := InstallNativeHost(dir, exe)
		if err == nil || !strings.Contains(err.Error(), "Applications") {
			t.Errorf("%s: %v; want a refusal that says to move Reins to Applications", exe, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: a manifest was written anyway", exe)
		}
	}
}

// At start Reins installs its pairing helper for the browsers this user
// has, where none works yet: a manifest naming a program that is gone is
// replaced, one naming a program that is there is left alone, and no
// folder is made for a browser that is not installed.
func TestInstallNativeHostsWhereABrowserIsAndNoHelperWorks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the folders are Linux's; the other system's are checked by TestNativeHostDirsNameEveryBrowsersFolder")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	conf := filepath.Join(home, ".config")
	exe := filepath.Join(home, "bin", "reins")
	other := filepath.Join(home, "other", "reins")
	for _, p := range []string{exe, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(browser string) string {
		return filepath.Join(conf, browser, "NativeMessagingHosts", extension.NativeHost+".json")
	}
	os.MkdirAll(filepath.Join(conf, "chromium"), 0o755)
	if _, err := InstallNativeHost(filepath.Dir(manifest("google-chrome")), filepath.Join(home, "gone", "reins")); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallNativeHost(filepath.Dir(manifest("BraveSoftware/Brave-Browser")), other); err != nil {
		t.Fatal(err)
	}
	wrote, err := InstallNativeHosts(exe)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrote) != 2 {
		t.Errorf("wrote %v, want Chromium's and Chrome's", wrote)
	}
	for browser, want := range map[string]string{"chromium": exe, "google-chrome": exe, "BraveSoftware/Brave-Browser": other} {
		var m struct{ Path string }
		b, err := os.ReadFile(manifest(browser))
		if err != nil || json.Unmarshal(b, &m) != nil || m.Path != want {
			t.Errorf("%s's manifest names %q (%v), want %q", browser, m.Path, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(conf, "vivaldi")); !os.IsNotExist(err) {
		t.Errorf("a folder was made for Vivaldi, which is not installed: %v", err)
	}
}
