// Package a11ytest starts, for tests, a desktop whose accessibility bus is
// real: a private X display, a session bus, the AT-SPI bus launcher and a
// GTK 3 window written with python3-gi (fixture.py) on them. The window has
// a button "Press me", a text field "Name", a password field holding a
// secret and a check box "Remember"; it says on stdout when it is mapped,
// and every click, toggle and change it receives. Without the tools a test
// is skipped, or fails when CI is set.
package a11ytest

import (
	"bufio"
	_ "embed"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
)

//go:embed fixture.py
var fixture []byte

// Secret is what the fixture's password field holds: no answer, row or
// file may carry it.
const Secret = "Rx7-hunter2-secret"

// Options configures [Start].
type Options struct {
	Screen  string   // the Xvfb screen, e.g. "1280x800x24"; default xvfb's
	Buttons int      // extra buttons "Item 1".."Item N" in a grid
	Env     []string // more of the fixture's environment, e.g. a WM_CLASS to claim
	// NoFixture starts the display and the buses alone, for a test whose
	// subject is another application (Chromium with its accessibility on).
	NoFixture bool
}

// Desktop is a running accessible desktop.
type Desktop struct {
	X       *xvfb.Server
	Session string // the session bus address
	PID     int    // the fixture's
	Stdin   io.Writer
	lines   chan string // the fixture's stdout, a line at a time
	env     []string    // the fixtures' environment, less the session bus
	python  string
}

// Start starts the display, the buses and the fixture, and returns once the
// fixture's window is mapped (at once with Options.NoFixture).
func Start(t testing.TB, opts Options) *Desktop {
	t.Helper()
	launcher := testenv.NeedCommand(t, "/usr/libexec/at-spi-bus-launcher")
	// Debian's python3-gi lives with the system python; a pyenv python3
	// may lack gi.
	python := ""
	if !opts.NoFixture {
		python = testenv.NeedCommand(t, "/usr/bin/python3")
	}
	testenv.NeedCommand(t, "dbus-daemon")
	x := xvfb.StartT(t, opts.Screen)

	// A short runtime dir: the accessibility bus's socket goes in it, and
	// a socket path may not exceed 108 bytes.
	runtime, err := os.MkdirTemp("", "atspi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		// GTK 3 loads the AT-SPI bridge unless NO_AT_BRIDGE is set.
		case "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "NO_AT_BRIDGE", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "DISPLAY="+x.Display, "XDG_RUNTIME_DIR="+runtime, "GDK_BACKEND=x11", "GSETTINGS_BACKEND=memory")

	if !opts.NoFixture {
		gtk := exec.Command(python, "-c", "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk")
		gtk.Env = env
		testenv.OwnGroup(gtk)
		out, err := gtk.CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		testenv.Need(t, err == nil, "python3-gi with GTK 3 (Debian: python3-gi gir1.2-gtk-3.0; python said: "+lines[len(lines)-1]+")")
	}

	session := testenv.SessionBus(t, env)
	benv := append(env[:len(env):len(env)], "DBUS_SESSION_BUS_ADDRESS="+session)
	startGroup(t, "at-spi-bus-launcher", exec.Command(launcher, "--launch-immediately"), benv)
	sconn, err := dbus.Connect(session)
	if err != nil {
		t.Fatal(err)
	}
	defer sconn.Close()
	// NameHasOwner, unlike a call to the bus, never starts a second one.
	testenv.WaitFor(t, "at-spi-bus-launcher to own org.a11y.Bus", func() bool {
		var owned bool
		err := sconn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.a11y.Bus").Store(&owned)
		return err == nil && owned
	})

	d := &Desktop{X: x, Session: session, env: env, python: python}
	if opts.NoFixture {
		return d
	}
	d.startFixture(t, append([]string{"FIXTURE_BUTTONS=" + strconv.Itoa(opts.Buttons)}, opts.Env...))
	return d
}

// Another starts one more fixture on the same display and buses, with env
// added to its environment, and returns once its window is mapped; without
// a window manager it shows at the screen's corner, over the first.
func (d *Desktop) Another(t testing.TB, env ...string) *Desktop {
	t.Helper()
	o := &Desktop{X: d.X, Session: d.Session, env: d.env, python: d.python}
	o.startFixture(t, env)
	return o
}

func (d *Desktop) startFixture(t testing.TB, extra []string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "fixture.py")
	if err := os.WriteFile(script, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	fx := exec.Command(d.python, script)
	fenv := append(d.env[:len(d.env):len(d.env)], "DBUS_SESSION_BUS_ADDRESS="+d.Session, "FIXTURE_SECRET="+Secret)
	fenv = append(fenv, extra...)
	stdin, err := fx.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := fx.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startGroup(t, "the GTK fixture", fx, fenv)
	d.Stdin, d.lines = stdin, make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	line := d.Next(t, "ready")
	d.PID, err = strconv.Atoi(strings.TrimPrefix(line, "ready "))
	if err != nil || d.PID != fx.Process.Pid {
		t.Fatalf("the fixture said %q; want ready %d", line, fx.Process.Pid)
	}
}

// Next waits for the fixture's next line that starts with prefix.
func (d *Desktop) Next(t testing.TB, prefix string) string {
	t.Helper()
	deadline := time.After(testenv.Patience)
	for {
		select {
		case line, ok := <-d.lines:
			if !ok {
				t.Fatalf("the fixture exited before saying %q", prefix)
			}
			if strings.HasPrefix(line, prefix) {
				return line
			}
		case <-deadline:
			t.Fatalf("timed out after %v waiting for the fixture to say %q", testenv.Patience, prefix)
		}
	}
}

// Lines returns the fixture's lines said so far and not yet waited for.
func (d *Desktop) Lines() []string {
	var out []string
	for {
		select {
		case line, ok := <-d.lines:
			if !ok {
				return out
			}
			out = append(out, line)
		default:
			return out
		}
	}
}

// startGroup starts cmd under env in a process group of its own, stopped
// by its pid when the test ends; its stderr is shown if the test fails.
func startGroup(t testing.TB, what string, cmd *exec.Cmd, env []string) *exec.Cmd {
	t.Helper()
	cmd.Env = env
	testenv.OwnGroup(cmd)
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(func() {
		testenv.StopGroup(cmd, 5*time.Second, func() { cmd.Wait() })
		stderr.Close()
		if b, _ := os.ReadFile(stderr.Name()); t.Failed() && len(b) > 0 {
			t.Logf("%s stderr:\n%s", what, b)
		}
	})
	return cmd
}
