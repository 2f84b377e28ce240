//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/a11ytest"
	"github.com/reins-app/reins/internal/testrig/hosttest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestSelfTestOnARealDesktop runs the self-test as a person does on a
// desktop like theirs: Xvfb with openbox managing it, a session bus with
// the accessibility bus on it, and xfce4-panel hosting the tray, readable
// through AT-SPI. The real tray app runs; `reins selftest -hand` asks it
// for the test over its socket; the test answers the popup with a real
// click on Allow, and, when asked, moves the mouse as the person's own
// device (xdesk.Person). Every check must pass or be skipped, the table
// must be printed, and the report must be in the data folder. Then, with
// the executor broken on purpose (the reinstest build's click offset), the
// self-test must fail and name the click check.
func TestSelfTestOnARealDesktop(t *testing.T) {
	testenv.NeedCommand(t, "xfce4-panel")
	cgo, _ := exec.Command("go", "env", "CGO_ENABLED").Output()
	testenv.Need(t, strings.TrimSpace(string(cgo)) == "1", "cgo (a C compiler) to build the tray")
	t0 := time.Now()
	desk := a11ytest.Start(t, a11ytest.Options{NoFixture: true, Screen: "1280x1024x24"})
	conf := t.TempDir()
	// A Chromium for this user: Reins installs its pairing helper there as
	// it starts, and the self-test runs it as Chromium would.
	if err := os.MkdirAll(filepath.Join(conf, "chromium"), 0o700); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "NO_AT_BRIDGE", "AT_SPI_BUS_ADDRESS", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "DISPLAY="+desk.X.Display, "DBUS_SESSION_BUS_ADDRESS="+desk.Session, "XDG_CONFIG_HOME="+conf, "GDK_BACKEND=x11")
	holdDisplay(t, desk.X.Display)
	startWindowManager(t, desk.X.Display)
	startAccessiblePanel(t, env, conf, desk.Session)
	bin := buildTestOnlyReins(t)
	t.Logf("desktop, panel and reins -tags reinstest: %v", time.Since(t0))

	t.Run("passes", func(t *testing.T) {
		out, progress, err := runSelfTest(t, bin, env, desk.X.Display, true)
		t.Logf("reins selftest:\n%s\n%s", progress, out)
		if err != nil {
			t.Fatalf("reins selftest failed: %v", err)
		}
		for _, want := range []string{"check", "result", "what it saw", "All ", "checks passed"} {
			if !strings.Contains(out, want) {
				t.Errorf("the table lacks %q", want)
			}
		}
	})

	t.Run("fails with a broken executor", func(t *testing.T) {
		out, progress, err := runSelfTest(t, bin, env, desk.X.Display, false, "-testonly-click-offset", "70")
		t.Logf("reins selftest:\n%s\n%s", progress, out)
		if err == nil {
			t.Fatal("the self-test passed with every click landing 70 points off")
		}
		if !strings.Contains(out, "checks failed: click") {
			t.Errorf("the report does not name the click check first among the failed:\n%s", out)
		}
	})
}

// runSelfTest starts the tray with trayArgs on the desktop, runs `reins
// selftest` against it, allows the test in the popup and, when asked to
// move the mouse, moves it as the person's own device. It returns the
// table, the progress lines and the command's error, having checked the
// report the data folder holds.
func runSelfTest(t *testing.T, bin string, env []string, display string, hand bool, trayArgs ...string) (table, progress string, err error) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	cmd := exec.Command(bin, append([]string{"-mcp-port", "-1", "-testonly-report-popup"}, trayArgs...)...)
	cmd.Env = append(slices.Clone(env), "REINS_DATA_DIR="+data)
	tray := startTrayKilled(t, cmd)
	tray.waitLine(t, "the tray to start", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "Reins is running.") })

	args := []string{"selftest"}
	if hand {
		args = append(args, "-hand")
	}
	st := exec.Command(bin, args...)
	st.Env = append(slices.Clone(env), "REINS_DATA_DIR="+data)
	var stdout bytes.Buffer
	st.Stdout = &stdout
	lines := &trayProc{cmd: st, exited: make(chan struct{}), more: make(chan struct{}, 1)}
	stderr, perr := st.StderrPipe()
	if perr != nil {
		t.Fatal(perr)
	}
	testenv.OwnGroup(st)
	if err := st.Start(); err != nil {
		t.Fatal(err)
	}
	go lines.read(stderr)
	done := make(chan error, 1)
	go func() {
		err := st.Wait()
		close(lines.exited)
		done <- err
	}()
	t.Cleanup(func() { testenv.StopGroup(st, 5*time.Second, func() { <-lines.exited }) })

	clickManaged(t, tray, display, "Run a plan of 8 steps", "once")
	if hand {
		lines.waitLine(t, "the self-test to ask for the mouse", 2*time.Minute, func(l string) bool { return strings.Contains(l, "Move the mouse") })
		p, err := xdesk.NewPerson(display)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := p.MoveBy(40, 30); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatalf("reins selftest did not end within 3 minutes; it said:\n%s", strings.Join(lines.lines, "\n"))
	}
	lines.mu.Lock()
	progress = strings.Join(lines.lines, "\n")
	lines.mu.Unlock()

	if hand {
		checkSelfTestRows(t, tray, data)
	}
	b, rerr := os.ReadFile(filepath.Join(data, "selftest.json"))
	if rerr != nil {
		t.Fatalf("no report in the data folder: %v", rerr)
	}
	var rep persondoor.SelfTestReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("the report is not JSON: %v", err)
	}
	if len(rep.Checks) < 15 {
		t.Errorf("the report holds %d checks: %+v", len(rep.Checks), rep.Checks)
	}
	if _, err := os.Stat(filepath.Join(data, "selftest-window.png")); err != nil && !slices.Contains(rep.Failed(), "picture, secret hidden") {
		t.Errorf("the picture check passed but left no picture: %v", err)
	}
	return stdout.String(), progress, err
}

// checkSelfTestRows stops the tray and reads the audit log it leaves: the
// self-test's plan, allowed whole, and each of its eight acts as a fire row
// committed before it and an outcome after, the one on the deny list
// refused, every other done; the chain intact.
func checkSelfTestRows(t *testing.T, tray *trayProc, data string) {
	t.Helper()
	testenv.KillGroup(tray.cmd, func() { <-tray.exited })
	ctx := context.Background()
	log, err := audit.Open(ctx, audit.Options{Path: filepath.Join(data, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if n, err := log.Verify(ctx); err != nil {
		t.Fatalf("the log's chain is broken after %d rows: %v", n, err)
	}
	rows, err := core.ReadAudit(ctx, log, persondoor.AuditFilter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	var planned, fired int
	outcomes := map[string]int{}
	fires := map[int64]bool{}
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		if r.AgentName != "Reins self-test" {
			continue
		}
		switch {
		case r.ActKind == "plan" && r.Decision == "allowed steps 1 to 8 of 8":
			planned++
		case r.Phase == audit.PhaseFire && r.Outcome == vocab.OutcomeAboutToFire && r.Desktop:
			fired++
			fires[r.Seq] = true
		case r.Phase == audit.PhaseOutcome:
			if !fires[r.RefSeq] {
				t.Errorf("an outcome row names no earlier fire row: %s", persondoor.FormatAuditRow(r))
			}
			outcomes[r.Outcome]++
		}
	}
	if planned != 1 || fired != 8 || outcomes["done"] != 7 || outcomes["refused"] != 1 {
		var lines []string
		for i := len(rows) - 1; i >= 0; i-- {
			lines = append(lines, persondoor.FormatAuditRow(rows[i]))
		}
		t.Errorf("want the plan allowed once, 8 fire rows, 7 done and 1 refused; got %d, %d, %v:\n%s", planned, fired, outcomes, strings.Join(lines, "\n"))
	}
}

// startTrayKilled starts the tray as startTrayCmd does, but kills it when
// the test ends: how Reins quits is the tray tests' subject, and fyne
// 2.7.1 now and then stalls quitting, on SIGTERM, in its own event queue.
func startTrayKilled(t *testing.T, cmd *exec.Cmd) *trayProc {
	t.Helper()
	testenv.OwnGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &trayProc{cmd: cmd, exited: make(chan struct{}), more: make(chan struct{}, 1)}
	go p.read(stderr)
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		testenv.KillGroup(cmd, func() { <-p.exited })
		if t.Failed() {
			p.mu.Lock()
			t.Logf("tray output (tail):\n%s", tail(strings.Join(p.lines, "\n"), 6000))
			p.mu.Unlock()
		}
	})
	return p
}

// startAccessiblePanel starts xfce4-panel, with its systray plugin, on the
// desktop's session bus with the accessibility bridge on, and returns once
// it hosts the tray.
func startAccessiblePanel(t *testing.T, env []string, conf, session string) {
	t.Helper()
	if err := hosttest.WritePanelConfig(conf, 1024); err != nil {
		t.Fatal(err)
	}
	startTrayCmd(t, withEnv(exec.Command("xfce4-panel", "--disable-wm-check"), env))
	bus, err := dbus.Connect(session)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	testenv.WaitWithin(t, 20*time.Second, "xfce4-panel to host the tray", func() bool { return hosttest.HasWatcher(bus) })
}

// clickManaged clicks the popup's button as the person does, with the X
// server's own mouse (a plain XTEST click allows nothing), once the popup
// shows sentence, armed, on a desktop whose window manager has put the
// popup in a frame of its own.
func clickManaged(t *testing.T, tray *trayProc, display, sentence, button string) {
	t.Helper()
	fx, fy := tray.waitPopup(t, sentence, button, 60*time.Second)
	var x, y, w, h int
	testenv.WaitWithin(t, 10*time.Second, "the popup's window to be mapped", func() bool {
		var err error
		x, y, w, h, err = findFramedWindow(display, "Reins — approval")
		return err == nil
	})
	px, py := x+int(fx*float64(w)), y+int(fy*float64(h))
	t.Logf("popup %dx%d+%d+%d; clicking %q at %d,%d", w, h, x, y, button, px, py)
	if err := personClick(display, px, py); err != nil {
		t.Fatal(err)
	}
	tray.waitLine(t, "the popup to move on from "+sentence, 15*time.Second, func(l string) bool {
		return strings.HasPrefix(l, "reinstest: popup ") && !strings.Contains(l, sentence)
	})
}

// findFramedWindow finds a mapped client window by its title, a child of
// the root or of a window manager's frame, and returns its place and size
// on the root window, in pixels.
func findFramedWindow(display, title string) (x, y, w, h int, err error) {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer conn.Close()
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0
		}
		return r.Atom
	}
	netName, utf8 := atom("_NET_WM_NAME"), atom("UTF8_STRING")
	var walk func(win xproto.Window, depth int) (xproto.Window, bool)
	walk = func(win xproto.Window, depth int) (xproto.Window, bool) {
		if r, err := xproto.GetProperty(conn, false, win, netName, utf8, 0, 1024).Reply(); err == nil && string(r.Value) == title {
			if a, err := xproto.GetWindowAttributes(conn, win).Reply(); err == nil && a.MapState == xproto.MapStateViewable {
				return win, true
			}
		}
		if depth == 2 {
			return 0, false
		}
		tree, err := xproto.QueryTree(conn, win).Reply()
		if err != nil {
			return 0, false
		}
		for _, c := range tree.Children {
			if found, ok := walk(c, depth+1); ok {
				return found, true
			}
		}
		return 0, false
	}
	win, ok := walk(root, 0)
	if !ok {
		return 0, 0, 0, 0, fmt.Errorf("no window titled %q is mapped", title)
	}
	geo, err := xproto.GetGeometry(conn, xproto.Drawable(win)).Reply()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	pos, err := xproto.TranslateCoordinates(conn, win, root, 0, 0).Reply()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	return int(pos.DstX), int(pos.DstY), int(geo.Width), int(geo.Height), nil
}

// holdDisplay keeps a connection to display open until the test ends:
// Xvfb resets itself whenever its last client leaves, and a client
// connecting during a reset is turned away.
func holdDisplay(t *testing.T, display string) {
	t.Helper()
	var conn *xgb.Conn
	testenv.WaitWithin(t, 10*time.Second, "a connection to the display", func() bool {
		c, err := xgb.NewConnDisplay(display)
		conn = c
		return err == nil
	})
	t.Cleanup(conn.Close)
}

func withEnv(cmd *exec.Cmd, env []string) *exec.Cmd {
	cmd.Env = env
	return cmd
}
