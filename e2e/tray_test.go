package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestTrayApprovalClickedOnThePopup runs the real tray app — the reins
// binary with no subcommand, under Xvfb and a private session bus — with
// Chromium and the extension on a test page. An agent connects through the
// real `reins mcp`; its first connection and then its click each wait on the
// approval popup, which the test answers the way a person does: a click on
// the popup's Allow button, found on the X server by the window's title,
// made with the X server's own mouse (xdesk.Person), since Reins takes no
// program's click on Allow. The page's own handler must see exactly one
// trusted click, and the audit log must hold the person's share, the
// agent's admission and the click committed before it fired.
//
// The binary is built with the reinstest tag for two hooks a person does not
// need (testonly_on.go): sharing the test's tab at Control, as the tray menu
// would, and printing where the popup's buttons sit. Neither answers an
// approval.
func TestTrayApprovalClickedOnThePopup(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	dbusRun := testenv.NeedCommand(t, "dbus-run-session")
	cgo, _ := exec.Command("go", "env", "CGO_ENABLED").Output()
	testenv.Need(t, strings.TrimSpace(string(cgo)) == "1", "cgo (a C compiler) to build the tray")
	t0 := time.Now()
	bin := buildTestOnlyReins(t)
	t.Logf("built reins -tags reinstest: %v", time.Since(t0))

	x := xvfb.StartT(t, "1280x800x24")
	data := filepath.Join(t.TempDir(), "data")
	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/tray.html": trayPage()})
	page := origin + "/tray.html"

	tray := startTray(t, dbusRun, bin, x.Display, data, page)
	tray.waitLine(t, "the tray to start", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "Reins is running.") })

	t0 = time.Now()
	browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: bin, URL: page, Width: 1200, Height: 780})
	tray.waitLine(t, "the tray to share the test tab", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "reinstest: shared tab") })
	waitWitness(t, witness, "loaded", nil)
	t.Logf("Chromium paired and the tab shared: %v", time.Since(t0))

	// The agent: the real `reins mcp`, driven by an MCP client.
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+data)
	mcpErr := &syncBuffer{}
	cmd.Stderr = mcpErr
	client := sdk.NewClient(&sdk.Implementation{Name: "tray e2e agent", Version: "1.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\nreins mcp: %s", err, mcpErr.String())
	}
	defer cs.Close()

	call := func(tool string, args map[string]any) <-chan mcptest.Result { return mcptest.Go(ctx, cs, tool, args) }
	get := func(what string, ch <-chan mcptest.Result) string {
		t.Helper()
		r := mcptest.Await(t, what, ch, mcpErr)
		if r.IsErr {
			t.Fatalf("%s: %s\nreins mcp: %s", what, r.Text, mcpErr.String())
		}
		return r.Text
	}

	// The first connection waits on the popup: "Connect to Reins for the
	// first time", answered with Allow.
	snapCh := call("browser_snapshot", nil)
	tray.clickAllow(t, x.Display, "Connect to Reins", "once")
	snap := get("browser_snapshot", snapCh)
	button := mcptest.Ref(t, snap, "button", "Main button")

	// The click waits on the popup too; nothing reaches the page until the
	// person's Allow.
	clickCh := call("browser_click", map[string]any{"ref": button, "element": "the main button"})
	tray.waitPopup(t, "Click “Main button”", "once", 30*time.Second)
	if n := len(witness.Events("click")); n != 0 {
		t.Fatalf("the page saw %d clicks before the person allowed one", n)
	}

	// The agent, with the desktop at Control, clicks the popup's Allow
	// itself: the popup is Reins' own window, known by its process, so the
	// click is refused before anyone is asked, and the click it waits on
	// stays unanswered.
	px, py := tray.popupPoint(t, x.Display, "Click “Main button”", "once")
	mcptest.Refused(t, cs, "desktop_click", map[string]any{"x": px, "y": py, "element": "the Allow button"}, vocab.CodeOwnWindow)
	tray.waitPopup(t, "Click “Main button”", "once", 5*time.Second)
	if n := len(witness.Events("click")); n != 0 {
		t.Fatalf("the agent's click on the popup let %d clicks through", n)
	}
	tray.clickAllow(t, x.Display, "Click “Main button”", "once")
	out := get("browser_click", clickCh)
	if !strings.Contains(out, "Done: Click “Main button”") {
		t.Fatalf("click result: %s", out)
	}
	c := waitWitness(t, witness, "click", func(m map[string]any) bool { return m["id"] == "main" })
	if c["trusted"] != true {
		t.Fatalf("the click was not trusted: %v", c)
	}
	settle()
	if n := len(witness.Events("click")); n != 1 {
		t.Fatalf("the page saw %d clicks, want exactly 1: %v", n, witness.Events("click"))
	}

	// Quit the tray as the system would, then read the log it leaves.
	cs.Close()
	tray.stop(t)
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(data, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if n, err := log.Verify(context.Background()); err != nil {
		t.Fatalf("the log's chain is broken after %d rows: %v", n, err)
	}
	rows, err := core.ReadAudit(context.Background(), log, persondoor.AuditFilter{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := len(rows) - 1; i >= 0; i-- {
		lines = append(lines, persondoor.FormatAuditRow(rows[i]))
	}
	all := strings.Join(lines, "\n")
	t.Logf("audit log:\n%s", all)
	var shared, admitted, fire, done int
	var fireSeq int64
	for _, r := range rows {
		switch {
		case r.AgentName == "person" && r.ActKind == "share" && strings.HasPrefix(r.Detail, "shared at control; pinned to "):
			shared++
		case r.AgentName == "tray e2e agent" && r.ActKind == "connect" && r.Outcome == vocab.OutcomeDone && r.Decision == "allowed once":
			admitted++
		case r.AgentName == "tray e2e agent" && r.ActKind == "click" && r.Phase == audit.PhaseFire:
			fire++
			fireSeq = r.Seq
			if r.Outcome != vocab.OutcomeAboutToFire || r.Decision != "allowed once" || r.TargetName != "Main button" {
				t.Errorf("the fire row: %s", persondoor.FormatAuditRow(r))
			}
		case r.AgentName == "tray e2e agent" && r.ActKind == "click" && r.Outcome == vocab.OutcomeDone:
			done++
			if r.RefSeq == 0 {
				t.Errorf("the outcome row does not name its fire row: %s", persondoor.FormatAuditRow(r))
			}
		}
	}
	if shared != 1 || admitted != 1 || fire != 1 || done != 1 {
		t.Fatalf("want one share, one admission, one fire row and one outcome; got %d, %d, %d, %d", shared, admitted, fire, done)
	}
	for _, r := range rows {
		if r.ActKind == "click" && r.Outcome == vocab.OutcomeDone && r.RefSeq != fireSeq {
			t.Errorf("the outcome row names #%d, want the fire row #%d", r.RefSeq, fireSeq)
		}
	}
}

// buildTestOnlyReins builds reins with the reinstest hooks; the e2e
// package's other tests use the release build.
func buildTestOnlyReins(t *testing.T) string {
	t.Helper()
	// Renamed, as a copy of Reins may be: its windows are still its own,
	// known by process, not by a name on a list.
	out := filepath.Join(t.TempDir(), "notes")
	cmd := exec.Command("go", "build", "-tags", "reinstest", "-o", out, "./app/cmd/reins")
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building reins -tags reinstest: %v\n%s", err, b)
	}
	return out
}

// trayPage has its button well away from the screen's top-left corner,
// where windows open without a window manager (the popup among them).
func trayPage() string {
	return `<!doctype html>
<html><head><title>Reins tray test</title>
<style>body { margin: 0; font: 16px sans-serif; } #main { position: absolute; left: 720px; top: 460px; width: 160px; height: 44px; }</style>
</head><body><h1>Tray test</h1>
<button id="main">Main button</button>
<script>` + reportJS + `
watch(document.getElementById('main'), 'top');
report({type: 'loaded', page: 'tray'});
</script></body></html>`
}

func waitWitness(t *testing.T, w *browsertest.Witness, typ string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := w.Wait(ctx, typ, match)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trayProc is the running tray: dbus-run-session and everything under it
// in one process group, and the lines it writes to stderr.
type trayProc struct {
	cmd    *exec.Cmd
	exited chan struct{}

	mu    sync.Mutex
	lines []string
	more  chan struct{}
}

func startTray(t *testing.T, dbusRun, bin, display, data, page string) *trayProc {
	t.Helper()
	cmd := exec.Command(dbusRun, "--", bin, "-mcp-port", "-1", "-testonly-share", page, "-testonly-share-desktop", "-testonly-report-popup")
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "REINS_DATA_DIR="+data)
	return startTrayCmd(t, cmd)
}

// startTrayCmd starts cmd in its own process group and follows its output.
func startTrayCmd(t *testing.T, cmd *exec.Cmd) *trayProc {
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
		p.stop(t)
		if t.Failed() {
			p.mu.Lock()
			t.Logf("tray output (tail):\n%s", tail(strings.Join(p.lines, "\n"), 6000))
			p.mu.Unlock()
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func (p *trayProc) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.lines = append(p.lines, sc.Text())
		p.mu.Unlock()
		select {
		case p.more <- struct{}{}:
		default:
		}
	}
}

// stop ends the tray's process group by its pid: SIGTERM, then SIGKILL;
// dbus-daemon and anything else in the group go too.
func (p *trayProc) stop(t *testing.T) {
	if !testenv.StopGroup(p.cmd, 10*time.Second, func() { <-p.exited }) {
		t.Errorf("the tray did not quit within 10 s of SIGTERM; its group was killed")
	}
}

// waitLine waits for a line of the tray's output that ok accepts, from the
// start, and returns it.
func (p *trayProc) waitLine(t *testing.T, what string, d time.Duration, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(d)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if ok(l) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-time.After(100 * time.Millisecond):
		case <-p.exited:
			t.Fatalf("the tray exited while waiting for %s", what)
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

var spotRE = regexp.MustCompile(`(\w+)=([0-9.]+),([0-9.]+),(on|off)`)

// waitPopup waits until the popup shows a request whose sentence contains
// sentence, armed, with the named button enabled; it returns the button's
// centre as fractions of the window.
func (p *trayProc) waitPopup(t *testing.T, sentence, button string, d time.Duration) (float64, float64) {
	t.Helper()
	var fx, fy float64
	p.waitLine(t, "the popup to show "+sentence+" armed", d, func(l string) bool {
		if !strings.HasPrefix(l, "reinstest: popup ") || !strings.Contains(l, "armed=true") || !strings.Contains(l, sentence) {
			return false
		}
		for _, m := range spotRE.FindAllStringSubmatch(l, -1) {
			if m[1] == button && m[4] == "on" {
				fx, _ = strconv.ParseFloat(m[2], 64)
				fy, _ = strconv.ParseFloat(m[3], 64)
				return true
			}
		}
		return false
	})
	return fx, fy
}

// popupPoint is where the popup's button is on the screen, in pixels, once
// the popup shows sentence, armed.
func (p *trayProc) popupPoint(t *testing.T, display, sentence, button string) (px, py int) {
	t.Helper()
	fx, fy := p.waitPopup(t, sentence, button, 60*time.Second)
	x, y, w, h, err := findWindow(display, "Reins — approval")
	if err != nil {
		t.Fatal(err)
	}
	return x + int(fx*float64(w)), y + int(fy*float64(h))
}

// clickAllow clicks the popup's button as the person does, with the X
// server's own mouse (xdesk.Person), once the popup shows sentence, armed:
// a plain XTEST click, as any program makes, allows nothing.
func (p *trayProc) clickAllow(t *testing.T, display, sentence, button string) {
	t.Helper()
	px, py := p.popupPoint(t, display, sentence, button)
	x, y, w, h, _ := findWindow(display, "Reins — approval")
	t.Logf("popup %dx%d+%d+%d; clicking %q at %d,%d for %q", w, h, x, y, button, px, py, sentence)
	if err := personClick(display, px, py); err != nil {
		t.Fatal(err)
	}
	p.waitLine(t, "the popup to move on from "+sentence, 15*time.Second, func(l string) bool {
		return strings.HasPrefix(l, "reinstest: popup ") && !strings.Contains(l, sentence)
	})
}

// findWindow finds a mapped top-level window by its title and returns its
// place and size on the root window, in pixels.
func findWindow(display, title string) (x, y, w, h int, err error) {
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
	tree, err := xproto.QueryTree(conn, root).Reply()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	var seen []string
	for _, win := range tree.Children {
		attr, err := xproto.GetWindowAttributes(conn, win).Reply()
		if err != nil || attr.MapState != xproto.MapStateViewable {
			continue
		}
		name := ""
		if r, err := xproto.GetProperty(conn, false, win, netName, utf8, 0, 1024).Reply(); err == nil && r.ValueLen > 0 {
			name = string(r.Value)
		} else if r, err := xproto.GetProperty(conn, false, win, xproto.AtomWmName, xproto.AtomString, 0, 1024).Reply(); err == nil {
			name = string(r.Value)
		}
		seen = append(seen, fmt.Sprintf("%q", name))
		if name != title {
			continue
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
	return 0, 0, 0, 0, fmt.Errorf("no window titled %q is mapped; mapped windows: %s", title, strings.Join(seen, ", "))
}

// syncBuffer lets a process's stderr be written while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
