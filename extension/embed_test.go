package extension

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type manifest struct {
	ManifestVersion int      `json:"manifest_version"`
	Key             string   `json:"key"`
	Permissions     []string `json:"permissions"`
	HostPermissions []string `json:"host_permissions"`
	Background      struct {
		ServiceWorker string `json:"service_worker"`
		Type          string `json:"type"`
	} `json:"background"`
	Action *struct {
		DefaultTitle string `json:"default_title"`
		DefaultPopup string `json:"default_popup"`
	} `json:"action"`
	SidePanel *struct {
		DefaultPath string `json:"default_path"`
	} `json:"side_panel"`
	ContentScripts []struct {
		Matches         []string `json:"matches"`
		JS              []string `json:"js"`
		AllFrames       bool     `json:"all_frames"`
		MatchAboutBlank bool     `json:"match_about_blank"`
		World           string   `json:"world"`
	} `json:"content_scripts"`
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	b, err := fs.ReadFile(Files(), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The id Chrome gives an unpacked extension is derived from its key; the
// bridge pins it, so the two must agree.
func TestKeyPinsTheID(t *testing.T) {
	der, err := base64.StdEncoding.DecodeString(readManifest(t).Key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	var id strings.Builder
	for _, c := range hex.EncodeToString(sum[:16]) {
		id.WriteByte(byte('a' + strings.IndexRune("0123456789abcdef", c)))
	}
	if id.String() != ID {
		t.Fatalf("the manifest's key gives id %s, the code pins %s", id.String(), ID)
	}
}

func TestContentScriptsOnlyLook(t *testing.T) {
	m := readManifest(t)
	if m.ManifestVersion != 3 {
		t.Fatal("not Manifest V3")
	}
	if len(m.ContentScripts) == 0 {
		t.Fatal("no content scripts")
	}
	for _, cs := range m.ContentScripts {
		if !cs.AllFrames || !cs.MatchAboutBlank {
			t.Error("content scripts must run in every frame, about:blank ones included")
		}
		if cs.World != "" && cs.World != "ISOLATED" {
			t.Errorf("a content script runs in the %s world; only the isolated world is allowed", cs.World)
		}
	}
	allowed := map[string]bool{"tabs": true, "nativeMessaging": true, "alarms": true, "storage": true, "webNavigation": true, "scripting": true, "sidePanel": true}
	for _, p := range m.Permissions {
		if !allowed[p] {
			t.Errorf("permission %q is more than the extension needs", p)
		}
	}
	// Nothing in the shipped code acts on a page or talks to it.
	// Window messaging is what a page could forge; a runtime Port's
	// postMessage is the extension's own channel and stays allowed.
	forbidden := regexp.MustCompile(`\bdispatchEvent\s*\(|\.click\s*\(\s*\)|(?:window|self|parent|top|opener|contentWindow|\])\.postMessage\s*\(|(?:^|[^.\w])postMessage\s*\(|addEventListener\(\s*["']message["']|\beval\s*\(|new\s+Function\s*\(|\.innerHTML\s*=|document\.write\s*\(|\bexecCommand\s*\(|world:\s*["']MAIN|fetch\s*\(|XMLHttpRequest`)
	for text, bad := range map[string]bool{
		"window.postMessage(x, '*')": true, "parent.postMessage(x)": true, "frames[0].postMessage(x)": true,
		"postMessage(x)": true, "addEventListener('message', f)": true, "el.dispatchEvent(e)": true,
		"port.postMessage(x)": false, "entry.port.postMessage({})": false, "sock.send(x)": false,
	} {
		if forbidden.MatchString(text) != bad {
			t.Errorf("the rule judges %q wrongly", text)
		}
	}
	err := fs.WalkDir(Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		b, err := fs.ReadFile(Files(), p)
		if err != nil {
			return err
		}
		for _, loc := range forbidden.FindAllIndex(b, -1) {
			t.Errorf("%s: %q: the extension must only look", p, b[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteToMatchesTheEmbeddedFiles(t *testing.T) {
	dir, err := WriteTo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fs.WalkDir(Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if d.IsDir() {
			return nil
		}
		want, _ := fs.ReadFile(Files(), p)
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s was not written as embedded", p)
		}
		return nil
	})
}
