package autostart

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Paths with every character the two formats must escape.
var awkwardPaths = []string{
	"/usr/bin/reins",
	"/home/ada/My Apps/reins",
	`/home/ada/"quoted" dir/re$ins`,
	"/opt/100% sure/reins",
	`/opt/back\slash/reins`,
	"/opt/tick`s/reins",
	"/opt/semi;colon & <angle>/reins's",
	"/Applications/Ünïcode Äpps/Reins.app/Contents/MacOS/reins",
}

// readDesktopEntry parses an entry as the Desktop Entry Specification
// says readers do: the keys of [Desktop Entry], with the string escapes
// undone.
func readDesktopEntry(t *testing.T, entry []byte) map[string]string {
	t.Helper()
	keys := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(entry))
	first := true
	for sc.Scan() {
		l := sc.Text()
		if first {
			if l != "[Desktop Entry]" {
				t.Fatalf("the entry starts with %q", l)
			}
			first = false
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("not a key=value line: %q", l)
		}
		if _, dup := keys[k]; dup {
			t.Fatalf("key %s twice", k)
		}
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] != '\\' {
				b.WriteByte(v[i])
				continue
			}
			i++
			if i == len(v) {
				t.Fatalf("%s ends in a lone backslash", k)
			}
			b.WriteByte(map[byte]byte{'s': ' ', 'n': '\n', 't': '\t', 'r': '\r', '\\': '\\'}[v[i]])
		}
		keys[k] = b.String()
	}
	return keys
}

// execArgs splits an unescaped Exec value into arguments by the
// specification's quoting rules, with field codes %% undone.
func execArgs(t *testing.T, exec string) []string {
	t.Helper()
	var args []string
	var cur strings.Builder
	in, started := false, false
	for i := 0; i < len(exec); i++ {
		c := exec[i]
		switch {
		case in && c == '\\':
			i++
			if i == len(exec) || !strings.ContainsRune("\"`$\\", rune(exec[i])) {
				t.Fatalf("a backslash that escapes nothing in %q", exec)
			}
			cur.WriteByte(exec[i])
		case c == '"':
			in, started = !in, true
		case in && (c == '`' || c == '$'):
			t.Fatalf("%q unescaped inside quotes in %q", c, exec)
		case in:
			cur.WriteByte(c)
		case c == ' ':
			if started {
				args = append(args, cur.String())
				cur.Reset()
				started = false
			}
		case strings.ContainsRune("\t\n'\\><~|&;$*?#()`", rune(c)):
			t.Fatalf("reserved character %q outside quotes in %q", c, exec)
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if in {
		t.Fatalf("unterminated quote in %q", exec)
	}
	if started {
		args = append(args, cur.String())
	}
	for i, a := range args {
		if strings.Contains(strings.ReplaceAll(a, "%%", ""), "%") {
			t.Fatalf("a field code in argument %q", a)
		}
		args[i] = strings.ReplaceAll(a, "%%", "%")
	}
	return args
}

func TestDesktopEntryStartsTheProgramWhateverItsPath(t *testing.T) {
	for _, exe := range awkwardPaths {
		entry := DesktopEntry(exe)
		keys := readDesktopEntry(t, entry)
		if keys["Type"] != "Application" || keys["Name"] != "Reins" || keys["X-GNOME-Autostart-enabled"] != "true" || keys["Terminal"] != "false" {
			t.Errorf("%s: keys %v", exe, keys)
		}
		args := execArgs(t, keys["Exec"])
		if len(args) != 1 || args[0] != exe {
			t.Errorf("Exec %q runs %q, want [%q]", keys["Exec"], args, exe)
		}
		if !desktopEntryActive(entry) {
			t.Errorf("%s: the entry reads as switched off", exe)
		}
	}
	// A plain path stays plain, and a backslash in a quoted one is written
	// as four: one pair for the string escape, one for the quoting.
	if got := readRaw(DesktopEntry("/usr/bin/reins"), "Exec"); got != "/usr/bin/reins" {
		t.Errorf("Exec=%s", got)
	}
	if got := readRaw(DesktopEntry(`/opt/a\b/reins`), "Exec"); got != `"/opt/a\\\\b/reins"` {
		t.Errorf("Exec=%s", got)
	}
}

func readRaw(entry []byte, key string) string {
	for _, l := range strings.Split(string(entry), "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			return v
		}
	}
	return ""
}

func TestADesktopEntryTheDesktopWasToldToSkipIsOff(t *testing.T) {
	for entry, want := range map[string]bool{
		"[Desktop Entry]\nExec=reins\n":                                              true,
		"[Desktop Entry]\nExec=reins\nHidden=true\n":                                 false,
		"[Desktop Entry]\nExec=reins\nX-GNOME-Autostart-enabled=false\n":             false,
		"[Desktop Entry]\nExec=reins\nX-GNOME-Autostart-enabled = false\n":           false,
		"[Desktop Entry]\nExec=reins\n[Desktop Action x]\nHidden=true\n":             true,
		"# comment\n[Desktop Entry]\nHidden=false\nX-GNOME-Autostart-enabled=true\n": true,
	} {
		if got := desktopEntryActive([]byte(entry)); got != want {
			t.Errorf("%q: active %v, want %v", entry, got, want)
		}
	}
}

// readPlist decodes a property list's top dict with encoding/xml: each
// key's value as a string (booleans as "true"/"false"), arrays as
// "array:" and their strings joined by "\x00", so a lone string and an
// array of one string differ.
func readPlist(t *testing.T, data []byte) map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	out := map[string]string{}
	var key string
	var path []string
	var arr []string
	inArray := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			path = append(path, tok.Name.Local)
			switch tok.Name.Local {
			case "key":
				var s string
				if err := d.DecodeElement(&s, &tok); err != nil {
					t.Fatal(err)
				}
				key = s
				path = path[:len(path)-1]
			case "string":
				var s string
				if err := d.DecodeElement(&s, &tok); err != nil {
					t.Fatal(err)
				}
				path = path[:len(path)-1]
				if inArray {
					arr = append(arr, s)
				} else {
					out[key] = s
				}
			case "true", "false":
				out[key] = tok.Name.Local
			case "array":
				inArray, arr = true, nil
			}
		case xml.EndElement:
			path = path[:len(path)-1]
			if tok.Name.Local == "array" {
				out[key] = "array:" + strings.Join(arr, "\x00")
				inArray = false
			}
		}
	}
	if len(path) != 0 {
		t.Fatalf("unbalanced: %v", path)
	}
	return out
}

func TestLaunchAgentStartsTheProgramWhateverItsPath(t *testing.T) {
	for _, exe := range awkwardPaths {
		data := LaunchAgent(exe)
		if !bytes.HasPrefix(data, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) || !bytes.Contains(data, []byte(`<plist version="1.0">`)) {
			t.Fatalf("not a property list:\n%s", data)
		}
		got := readPlist(t, data)
		want := map[string]string{
			"Label": ID, "ProgramArguments": "array:" + exe, "RunAtLoad": "true",
			"ProcessType": "Interactive", "LimitLoadToSessionType": "Aqua",
		}
		if strings.HasSuffix(exe, "Reins.app/Contents/MacOS/reins") {
			want["AssociatedBundleIdentifiers"] = "array:" + ID
		}
		if len(got) != len(want) {
			t.Errorf("%s: keys %q, want %q", exe, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", exe, k, got[k], v)
			}
		}
	}
}

func TestInAppBundle(t *testing.T) {
	for exe, want := range map[string]bool{
		"/Applications/Reins.app/Contents/MacOS/reins":      true,
		"/Users/ada/Apps/My Reins.app/Contents/MacOS/reins": true,
		"/usr/local/bin/reins":                              false,
		"/Applications/Reins.app/Contents/Resources/reins":  false,
		"/opt/Contents/MacOS/reins":                         false,
	} {
		if got := inAppBundle(exe); got != want {
			t.Errorf("inAppBundle(%q) = %v", exe, got)
		}
	}
}

func TestPaths(t *testing.T) {
	if got := DesktopEntryPath("/home/ada/.config"); got != "/home/ada/.config/autostart/app.reins.Reins.desktop" {
		t.Errorf("DesktopEntryPath = %s", got)
	}
	if got := LaunchAgentPath("/Users/ada"); got != "/Users/ada/Library/LaunchAgents/app.reins.Reins.plist" {
		t.Errorf("LaunchAgentPath = %s", got)
	}
}

// home points this OS's entry into a fresh folder and returns where it goes.
func home(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return DesktopEntryPath(filepath.Join(dir, "config"))
	case "darwin":
		return LaunchAgentPath(dir)
	}
	t.Skipf("no login entry on %s", runtime.GOOS)
	return ""
}

func TestEnableWritesTheEntryAndDisableRemovesIt(t *testing.T) {
	want := home(t)
	if p, err := Path(); err != nil || p != want {
		t.Fatalf("Path = %s, %v; want %s", p, err, want)
	}
	if on, err := Enabled(); on || err != nil {
		t.Fatalf("before: Enabled = %v, %v", on, err)
	}
	if err := Disable(); err != nil {
		t.Fatalf("Disable with no entry: %v", err)
	}
	exe := "/opt/My Apps/reins"
	if err := Enable(exe); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(want)
	if !bytes.Equal(b, render(exe)) {
		t.Errorf("the file holds\n%s", b)
	}
	if on, err := Enabled(); !on || err != nil {
		t.Fatalf("after Enable: Enabled = %v, %v", on, err)
	}
	// Enabling again replaces the entry, leaving no temporary file behind.
	if err := Enable("/usr/bin/reins"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(want); !bytes.Equal(b, render("/usr/bin/reins")) {
		t.Errorf("the entry was not replaced:\n%s", b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(want)); len(ents) != 1 {
		t.Errorf("the folder holds %d files, want only the entry", len(ents))
	}
	if err := Disable(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the entry is still there: %v", err)
	}
	if on, err := Enabled(); on || err != nil {
		t.Fatalf("after Disable: Enabled = %v, %v", on, err)
	}
}

func TestEnableRefusesWhatAnEntryCannotCarry(t *testing.T) {
	want := home(t)
	for _, exe := range []string{"reins", "bin/reins", "/opt/new\nline/reins", ""} {
		if err := Enable(exe); err == nil {
			t.Errorf("Enable(%q) succeeded", exe)
		}
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused program left an entry: %v", err)
	}
}

func TestEnableSaysWhereItCouldNotWrite(t *testing.T) {
	want := home(t)
	// A file where the folder should be: no one, root included, can write there.
	blocker := filepath.Dir(filepath.Dir(want))
	if err := os.MkdirAll(filepath.Dir(blocker), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := Enable("/usr/bin/reins")
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error naming %s", err, want)
	}
}

func TestAProgramThatWillBeGoneByTheNextLoginIsTransient(t *testing.T) {
	temps := []string{"/var/folders/xy/abc/T/", "/tmp", "/"}
	for exe, says := range map[string]string{
		"/private/var/folders/xy/abc/d/AppTranslocation/5F1C/d/Reins.app/Contents/MacOS/reins": "App Translocation); move Reins to Applications first",
		"/Volumes/Reins 1.0/Reins.app/Contents/MacOS/reins":                                    "disk image or another volume, which may not be mounted at the next login; move Reins to Applications first",
		"/tmp/.mount_ReinsAbc123/usr/bin/reins":                                                "AppImage's mount",
		"/home/ada/.cache/tmp/.mount_Reins9/reins":                                             "AppImage's mount",
		"/tmp/go-build2719203/b001/exe/reins":                                                  "go run or go test; run the installed reins, not go run",
		"/home/ada/gotmp/go-build42/b001/core.test":                                            "go run or go test",
		"/var/folders/xy/abc/T/reins":                                                          "in the temporary folder /var/folders/xy/abc/T/, which may be emptied",
		"/tmp/reins-download/reins":                                                            "in the temporary folder /tmp, which may be emptied",
	} {
		if got := transient(exe, temps); !strings.Contains(got, says) {
			t.Errorf("transient(%q) = %q, want it to say %q", exe, got, says)
		}
	}
	for _, exe := range []string{
		"/Applications/Reins.app/Contents/MacOS/reins",
		"/Users/ada/Applications/Reins.app/Contents/MacOS/reins",
		"/usr/local/bin/reins",
		"/home/ada/.local/bin/reins",
		"/home/ada/go/bin/reins",
		"/opt/Volumes/reins",         // only the top-level /Volumes holds mounts
		"/var/folders/xy/abc/Treins", // beside the temporary folder, not in it
		"/tmpfiles/reins",
	} {
		if got := transient(exe, temps); got != "" {
			t.Errorf("transient(%q) = %q, want it lasting", exe, got)
		}
	}
}

func TestEnableRefusesAProgramThatWillBeGoneByTheNextLogin(t *testing.T) {
	want := home(t)
	for _, exe := range []string{
		filepath.Join(t.TempDir(), "reins"),
		filepath.Join(os.TempDir(), "go-build123", "b001", "exe", "reins"),
		"/Volumes/Reins/Reins.app/Contents/MacOS/reins",
	} {
		err := Enable(exe)
		if !errors.Is(err, ErrTransient) || !strings.Contains(err.Error(), exe) {
			t.Errorf("Enable(%q) = %v, want ErrTransient naming the program", exe, err)
		}
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a transient program left an entry: %v", err)
	}
}
