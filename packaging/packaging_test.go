package packaging

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/autostart"
)

const tmpl = "../Info.plist.tmpl"

// readPlist decodes an XML property list as macOS does: dict, array,
// string, integer, true and false, into map[string]any, []any, string,
// string and bool. Anything else fails the test.
func readPlist(t *testing.T, data []byte) map[string]any {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var root any
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, data)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "plist" {
			root = plistValue(t, d, nextStart(t, d))
			break
		}
	}
	m, ok := root.(map[string]any)
	if !ok {
		t.Fatalf("the plist's top is not a dict:\n%s", data)
	}
	return m
}

// nextStart skips to the next element.
func nextStart(t *testing.T, d *xml.Decoder) xml.StartElement {
	t.Helper()
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("reading the plist: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			return tok
		case xml.EndElement:
			return xml.StartElement{Name: xml.Name{Local: "/" + tok.Name.Local}}
		}
	}
}

func plistValue(t *testing.T, d *xml.Decoder, se xml.StartElement) any {
	t.Helper()
	switch se.Name.Local {
	case "string", "integer":
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			t.Fatal(err)
		}
		return s
	case "true", "false":
		d.Skip()
		return se.Name.Local == "true"
	case "array":
		arr := []any{}
		for {
			next := nextStart(t, d)
			if next.Name.Local == "/array" {
				return arr
			}
			arr = append(arr, plistValue(t, d, next))
		}
	case "dict":
		m := map[string]any{}
		for {
			k := nextStart(t, d)
			if k.Name.Local == "/dict" {
				return m
			}
			if k.Name.Local != "key" {
				t.Fatalf("a dict holds <%s> where a key belongs", k.Name.Local)
			}
			var key string
			if err := d.DecodeElement(&key, &k); err != nil {
				t.Fatal(err)
			}
			if _, dup := m[key]; dup {
				t.Fatalf("key %s twice", key)
			}
			m[key] = plistValue(t, d, nextStart(t, d))
		}
	}
	t.Fatalf("unexpected plist element <%s>", se.Name.Local)
	return nil
}

// standIn writes a file that stands in for the built program.
func standIn(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBundleHoldsEveryFile(t *testing.T) {
	for _, withIcon := range []bool{false, true} {
		t.Run(fmt.Sprintf("icon=%v", withIcon), func(t *testing.T) {
			o := BundleOptions{
				OutDir: t.TempDir(), Binary: standIn(t, "reins", "#!/bin/sh\necho stand-in\n"),
				Template: tmpl, Version: "0.0.42", Build: "42",
			}
			if withIcon {
				o.Icon = standIn(t, "Reins.icns", "icns stand-in")
			}
			app, err := Bundle(o)
			if err != nil {
				t.Fatal(err)
			}
			if app != filepath.Join(o.OutDir, "Reins.app") {
				t.Errorf("bundle at %s", app)
			}
			want := map[string]bool{
				"Contents/Info.plist":           true,
				"Contents/PkgInfo":              true,
				"Contents/MacOS/reins":          true,
				"Contents/Resources/Reins.icns": true,
			}
			fs.WalkDir(extension.Files(), ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					want["Contents/Resources/extension/"+p] = true
				}
				return err
			})
			got := map[string]bool{}
			filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(app, p)
					got[filepath.ToSlash(rel)] = true
				}
				return err
			})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("files:\n got %v\nwant %v", keys(got), keys(want))
			}
			st, err := os.Stat(filepath.Join(app, "Contents", "MacOS", "reins"))
			if err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("the program: %v, %v; want mode 0755", st.Mode(), err)
			}
			if b, _ := os.ReadFile(filepath.Join(app, "Contents", "MacOS", "reins")); string(b) != "#!/bin/sh\necho stand-in\n" {
				t.Errorf("the program is not the binary given: %q", b)
			}
			man, err := os.ReadFile(filepath.Join(app, "Contents", "Resources", "extension", "manifest.json"))
			var m struct {
				Name        string   `json:"name"`
				Key         string   `json:"key"`
				Permissions []string `json:"permissions"`
			}
			if err != nil || json.Unmarshal(man, &m) != nil || m.Name != "Reins" || m.Key == "" {
				t.Errorf("the extension's manifest.json: %v\n%s", err, man)
			}

			plist, err := os.ReadFile(filepath.Join(app, "Contents", "Info.plist"))
			if err != nil {
				t.Fatal(err)
			}
			info := readPlist(t, plist)
			if icon := info["CFBundleIconFile"]; icon != "Reins" {
				t.Errorf("CFBundleIconFile = %v, want Reins (Resources/Reins.icns)", icon)
			}
			icns, _ := os.ReadFile(filepath.Join(app, "Contents", "Resources", "Reins.icns"))
			if withIcon && string(icns) != "icns stand-in" {
				t.Errorf("the icon is not the one given: %q", icns)
			}
			if !withIcon && !bytes.HasPrefix(icns, []byte("icns")) {
				t.Errorf("the drawn icon is no .icns: %q…", icns[:min(len(icns), 16)])
			}
			if info["CFBundleExecutable"] != "reins" {
				t.Errorf("CFBundleExecutable = %v, not the program in Contents/MacOS", info["CFBundleExecutable"])
			}
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestPlistSaysWhatMacOSNeeds(t *testing.T) {
	b, err := Render(tmpl, PlistFields{Version: "0.0.7", Build: "7"})
	if err != nil {
		t.Fatal(err)
	}
	info := readPlist(t, b)
	want := map[string]any{
		"CFBundleIdentifier":         autostart.ID,
		"CFBundleExecutable":         "reins",
		"CFBundlePackageType":        "APPL",
		"CFBundleShortVersionString": "0.0.7",
		"CFBundleVersion":            "7",
		"LSMinimumSystemVersion":     "12.0",
		"LSUIElement":                true,
	}
	for k, v := range want {
		if info[k] != v {
			t.Errorf("%s = %#v, want %#v", k, info[k], v)
		}
	}
	if s, _ := info["NSAccessibilityUsageDescription"].(string); s == "" {
		t.Error("no NSAccessibilityUsageDescription: macOS would show no reason for the Accessibility request")
	}
	if v, _ := info["CFBundleShortVersionString"].(string); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("CFBundleShortVersionString %q is not dotted integers", v)
	}
}

func TestBundleRefusesVersionsMacOSCannotRead(t *testing.T) {
	bin := standIn(t, "reins", "x")
	for _, v := range []string{"0.0.0-abc1234", "v1.2.3", "1.2.3.4", "1..2", "", "01.2", "1.2<"} {
		_, err := Bundle(BundleOptions{OutDir: t.TempDir(), Binary: bin, Template: tmpl, Version: v, Build: "1"})
		if err == nil || !strings.Contains(err.Error(), "integers") {
			t.Errorf("version %q: %v", v, err)
		}
	}
	for _, v := range []string{"0", "0.0.42", "12.0", "1.20.300"} {
		if _, err := Bundle(BundleOptions{OutDir: t.TempDir(), Binary: bin, Template: tmpl, Version: v, Build: v}); err != nil {
			t.Errorf("version %q: %v", v, err)
		}
	}
}

func TestBundleReplacesAnEarlierBundle(t *testing.T) {
	out := t.TempDir()
	stale := filepath.Join(out, "Reins.app", "Contents", "Resources", "stale")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, nil, 0o644)
	if _, err := Bundle(BundleOptions{OutDir: out, Binary: standIn(t, "reins", "x"), Template: tmpl, Version: "1.0", Build: "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a file from the earlier bundle is still there, and would be signed and shipped")
	}
}

func TestCaskInstallsTheReleasedDiskImage(t *testing.T) {
	b, err := os.ReadFile("reins.rb")
	if err != nil {
		t.Fatal(err)
	}
	cask := string(b)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^cask "reins" do$`),
		regexp.MustCompile(`(?m)^  version "[^"]+"$`),
		regexp.MustCompile(`(?m)^  sha256 "[^"]+"$`),
		regexp.MustCompile(`(?m)^  url "[^"]*#\{version\}[^"]*\.dmg"$`),
		regexp.MustCompile(`(?m)^  app "Reins\.app"$`),
		regexp.MustCompile(`(?m)^  depends_on macos: ">= :monterey"$`),
	} {
		if !want.MatchString(cask) {
			t.Errorf("reins.rb has no line matching %s", want)
		}
	}
}
