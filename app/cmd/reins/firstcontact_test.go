package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// TestFirstContact runs the real binary as a person meets it first: on a
// server or in CI, with a C locale and no display.
func TestFirstContact(t *testing.T) {
	bin := reinsBinary(t)
	t.Run("commands without a window print nothing of fyne", func(t *testing.T) { quietCommands(t, bin) })
	t.Run("serve starts without a display", func(t *testing.T) { serveWithoutDisplay(t, bin) })
	t.Run("doctor says whether a tray host exists", func(t *testing.T) { doctorTrayHost(t, bin) })
	t.Run("extension installs the pairing helper into a profile of its own", func(t *testing.T) { extensionForProfile(t, bin) })
}

// bareEnv is a login without a desktop: no DISPLAY, no session bus, a home
// and data folder of the test's own, and the locale settings given.
func bareEnv(t *testing.T, locale ...string) []string {
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"REINS_DATA_DIR=" + filepath.Join(home, "data"),
	}
	return append(env, locale...)
}

// run runs bin with args under env and stdin, and returns its stdout and
// stderr once it exits (within 30 s).
func run(t *testing.T, bin string, env []string, stdin io.Reader, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Stdin = env, stdin
	testenv.OwnGroup(cmd)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		testenv.KillGroup(cmd, func() { <-done })
		t.Fatalf("reins %v did not end", args)
	}
	return o.Bytes(), e.Bytes(), err
}

func noFyneLine(t *testing.T, what string, out ...[]byte) {
	t.Helper()
	for _, o := range out {
		for _, line := range strings.Split(string(o), "\n") {
			if strings.Contains(line, "Fyne") {
				t.Errorf("%s printed: %s\nall of it:\n%s", what, line, o)
				break
			}
		}
	}
}

func nativeMessage(v any) []byte {
	b, _ := json.Marshal(v)
	var buf bytes.Buffer
	binary.Write(&buf, binary.NativeEndian, uint32(len(b)))
	buf.Write(b)
	return buf.Bytes()
}

func quietCommands(t *testing.T, bin string) {
	for _, locale := range [][]string{
		nil, {"LANG=C"}, {"LANG=C.UTF-8"}, {"LC_ALL=C.UTF-8"}, {"LANG=C.utf8"}, {"LANG=POSIX"}, {"LANG=de_DE.UTF-8"},
	} {
		name := strings.Join(locale, " ")
		if name == "" {
			name = "no locale set"
		}
		t.Run(name, func(t *testing.T) {
			env := bareEnv(t, locale...)

			out, errOut, err := run(t, bin, env, nil, "help")
			if err != nil || !strings.Contains(string(out), "Usage:") {
				t.Errorf("reins help: %v\n%s%s", err, out, errOut)
			}
			noFyneLine(t, "reins help", out, errOut)

			out, errOut, err = run(t, bin, env, nil, "audit")
			if err != nil {
				t.Errorf("reins audit on a fresh log: %v\n%s%s", err, out, errOut)
			}
			noFyneLine(t, "reins audit", out, errOut)

			out, errOut, err = run(t, bin, env, nil, "doctor")
			if err != nil || !strings.Contains(string(out), "data folder") {
				t.Errorf("reins doctor: %v\n%s%s", err, out, errOut)
			}
			noFyneLine(t, "reins doctor", out, errOut)

			out, errOut, err = run(t, bin, env, strings.NewReader(""), "mcp")
			if err == nil || !strings.Contains(string(errOut), "Reins is not running") || len(out) != 0 {
				t.Errorf("reins mcp with no Reins running: %v\nstdout: %s\nstderr: %s", err, out, errOut)
			}
			noFyneLine(t, "reins mcp", out, errOut)

			// Chrome starting the pairing helper, with no Reins running.
			out, errOut, err = run(t, bin, env, bytes.NewReader(nativeMessage(map[string]string{"type": "pair"})), extension.Origin)
			if err != nil || !bytes.Contains(out, []byte("Reins is not running")) {
				t.Errorf("the pairing helper: %v\nstdout: %q\nstderr: %s", err, out, errOut)
			}
			noFyneLine(t, "the pairing helper", out, errOut)
		})
	}
}

func serveWithoutDisplay(t *testing.T, bin string) {
	cmd := exec.Command(bin, "serve", "-mcp-port", "-1")
	cmd.Env = bareEnv(t, "LANG=C.UTF-8")
	testenv.OwnGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	var exitErr error
	waited := false
	wait := func() error {
		if !waited {
			exitErr, waited = <-exited, true
		}
		return exitErr
	}
	defer func() {
		if !waited {
			testenv.KillGroup(cmd, func() { wait() })
		}
	}()
	var out []string
	deadline := time.After(20 * time.Second)
	for running := false; !running; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("reins serve ended without a display: %v\nstdout: %s\nstderr: %s", wait(), strings.Join(out, "\n"), stderr.String())
			}
			out = append(out, l)
			running = strings.HasPrefix(l, "Reins is running")
		case <-deadline:
			t.Fatalf("reins serve did not start without a display\nstdout: %s\nstderr: %s", strings.Join(out, "\n"), stderr.String())
		}
	}
	io.WriteString(stdin, "quit\n")
	for l := range lines {
		out = append(out, l)
	}
	if err := wait(); err != nil {
		t.Errorf("reins serve without a display exited with %v\nstderr: %s", err, stderr.String())
	}
	why := "no X display (DISPLAY is not set): Reins can read and share tabs but cannot click or type; start it inside an X11 session to act"
	if !strings.Contains(stderr.String(), why) {
		t.Errorf("reins serve does not tell the person what works without a display:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "pause chord") {
		t.Errorf("reins serve without a display tried to take the pause chord:\n%s", stderr.String())
	}
	noFyneLine(t, "reins serve", []byte(strings.Join(out, "\n")), stderr.Bytes())
}

func doctorTrayHost(t *testing.T, bin string) {
	addr := testenv.SessionBus(t, nil)
	env := bareEnv(t, "LANG=C.UTF-8", "DBUS_SESSION_BUS_ADDRESS="+addr)
	trayLine := func() string {
		t.Helper()
		out, errOut, err := run(t, bin, env, nil, "doctor")
		if err != nil {
			t.Fatalf("reins doctor: %v\n%s%s", err, out, errOut)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "tray host") {
				return l
			}
		}
		t.Fatalf("reins doctor says nothing about a tray host:\n%s", out)
		return ""
	}
	if l := trayLine(); !strings.HasPrefix(l, "absent ") || !strings.Contains(l, "small window") {
		t.Errorf("with a session bus and no tray host, doctor says: %s", l)
	}

	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("taking the watcher's name: %v, %v", reply, err)
	}
	if l := trayLine(); !strings.HasPrefix(l, "ok ") {
		t.Errorf("with a StatusNotifierWatcher on the bus, doctor says: %s", l)
	}

	env = bareEnv(t, "LANG=C.UTF-8") // no session bus at all
	if l := trayLine(); !strings.HasPrefix(l, "absent ") || !strings.Contains(l, "no D-Bus session bus") {
		t.Errorf("without a session bus, doctor says: %s", l)
	}
}

// A Chromium started with --user-data-dir=PROFILE reads the pairing helper
// from PROFILE/NativeMessagingHosts only.
func extensionForProfile(t *testing.T, bin string) {
	env := bareEnv(t, "LANG=C.UTF-8")
	profile := filepath.Join(t.TempDir(), "profile")
	ext := filepath.Join(t.TempDir(), "ext")
	out, errOut, err := run(t, bin, env, nil, "extension", "--user-data-dir="+profile, ext)
	if err != nil {
		t.Fatalf("reins extension: %v\n%s%s", err, out, errOut)
	}
	manifest := filepath.Join(profile, "NativeMessagingHosts", extension.NativeHost+".json")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatalf("no pairing helper in the profile: %v\n%s", err, out)
	}
	var m struct {
		Path           string   `json:"path"`
		AllowedOrigins []string `json:"allowed_origins"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Path != bin || len(m.AllowedOrigins) != 1 || m.AllowedOrigins[0] != extension.Origin+"/" {
		t.Errorf("the profile's manifest: %s (%v)", b, err)
	}
	if !strings.Contains(string(out), manifest) {
		t.Errorf("reins extension does not say where it installed the helper:\n%s", out)
	}
	if !strings.Contains(string(out), "REINS_DATA_DIR") {
		t.Errorf("with REINS_DATA_DIR set, reins extension does not say it must reach Chrome and the agents:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ext, "manifest.json")); err != nil {
		t.Errorf("the extension was not written: %v", err)
	}
	noFyneLine(t, "reins extension", out, errOut)
}
