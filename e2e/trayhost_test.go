//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/hosttest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
)

// TestTrayHostMenuSharesPausesAndQuits runs the real tray app on a desktop
// with a real tray host: Xvfb, a private session bus and xfce4-panel with
// its systray plugin, with Chromium and the extension on a test page. The
// test is the person: it finds Reins' icon on the panel's pixels, clicks it
// with XTEST, and walks the menu with the keyboard as a person can: Tabs ›
// the test tab › Control, then Pause all agents, then Quit Reins. Between
// them an agent, through the real `reins mcp`, is refused while the tab is
// not shared, asked once it is, and refused "paused" once paused; the
// item's icon, read from the bus, shows the waiting dot while the question
// is up. Quit from the menu exits 0.
func TestTrayHostMenuSharesPausesAndQuits(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	d := startDesktop(t)
	d.startPanel(t)
	bin := buildTestOnlyReins(t)
	data := filepath.Join(t.TempDir(), "data")
	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/tray.html": trayPage()})
	page := origin + "/tray.html"

	tray := d.startReins(t, bin, data, "-testonly-report-popup")
	tray.waitLine(t, "the tray to start", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "Reins is running.") })
	item := d.waitItem(t, tray, true)
	d.waitIcon(t, item, ui.IconIdle)

	browsertest.Start(t, browsertest.Options{X: d.x, DataDir: data, Reins: bin, URL: page, Width: 1200, Height: 760})
	waitWitness(t, witness, "loaded", nil)

	agent := startAgent(t, bin, data)
	// The agent's first connection is asked; once allowed, the unshared tab
	// is refused.
	snapCh := agent.call("browser_snapshot", nil)
	tray.clickAllow(t, d.x.Display, "Connect to Reins", "once")
	if r := agent.wait(t, "browser_snapshot", snapCh); !r.IsErr || !strings.Contains(r.Text, "grant_required") {
		t.Fatalf("a snapshot of the unshared tab: %+v, want it refused until the person gives a tab", r)
	}
	d.waitIcon(t, item, ui.IconConnected)

	// Tabs › the test tab › Control, from the tray's menu; the running
	// Reins' own menu then shows Control chosen.
	d.pick(t, item, func() bool {
		e, ok := d.menuLayout(t, item).find("Tabs", "Reins tray test", "Control")
		return ok && e.checked
	}, "Tabs", "Reins tray test", "Control")
	var snap string
	testenv.WaitWithin(t, 20*time.Second, "the agent to read the shared tab", func() bool {
		r := agent.wait(t, "browser_snapshot", agent.call("browser_snapshot", nil))
		snap = r.Text
		return !r.IsErr
	})
	button := mcptest.Ref(t, snap, "button", "Main button")

	// An act on a controlled tab is asked: the icon shows the dot meanwhile.
	clickCh := agent.call("browser_click", map[string]any{"ref": button, "element": "the main button"})
	tray.waitPopup(t, "Click “Main button”", "deny", 30*time.Second)
	d.waitIcon(t, item, ui.IconWaiting)
	tray.clickAllow(t, d.x.Display, "Click “Main button”", "deny")
	if r := agent.wait(t, "browser_click", clickCh); !r.IsErr {
		t.Fatalf("a denied click: %+v", r)
	}
	d.waitIcon(t, item, ui.IconConnected)

	// Pause all agents: the next act is refused without a question.
	d.pick(t, item, func() bool { return d.iconIs(item, ui.IconPaused) }, "Pause all agents")
	if r := agent.wait(t, "browser_click", agent.call("browser_click", map[string]any{"ref": button, "element": "the main button"})); !r.IsErr || !strings.Contains(r.Text, "paused") {
		t.Fatalf("a click while paused: %+v, want it refused as paused", r)
	}
	if n := len(witness.Events("click")); n != 0 {
		t.Fatalf("the page saw %d clicks; none was allowed", n)
	}

	// Quit Reins from the menu.
	d.pick(t, item, func() bool {
		select {
		case <-tray.exited:
			return true
		default:
			return false
		}
	}, "Quit Reins")
	if code := tray.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("Reins exited %d after Quit Reins, want 0", code)
	}
	tray.mustNotPanic(t)
}

// TestTrayHostThatComesAndGoesMovesTheMenu starts Reins on a session bus
// with no tray host: the stand-in window carries the menu. A host that
// appears gets Reins' item and the stand-in goes; a host that goes away
// brings it back. SIGTERM then quits cleanly.
func TestTrayHostThatComesAndGoesMovesTheMenu(t *testing.T) {
	d := startDesktop(t)
	bin := buildTestOnlyReins(t)
	tray := d.startReins(t, bin, filepath.Join(t.TempDir(), "data"))
	tray.waitLine(t, "the tray to start", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "Reins is running.") })
	d.waitStandIn(t, true)

	panel := d.startPanel(t)
	d.waitItem(t, tray, true)
	d.waitStandIn(t, false)

	panel.stop(t)
	d.waitWatcher(t, false)
	d.waitStandIn(t, true)

	d.startPanel(t)
	d.waitItem(t, tray, true)
	d.waitStandIn(t, false)

	syscall.Kill(tray.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-tray.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("Reins did not quit within 15 s of SIGTERM")
	}
	if code := tray.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("Reins exited %d on SIGTERM, want 0", code)
	}
	tray.mustNotPanic(t)
}

// TestTrayWithoutASessionBusQuitsOnSIGTERM runs Reins where no session bus
// exists at all: no tray is tried, the stand-in shows, and SIGTERM quits
// without the tray library's panic on a connection it never made.
func TestTrayWithoutASessionBusQuitsOnSIGTERM(t *testing.T) {
	cgo, _ := exec.Command("go", "env", "CGO_ENABLED").Output()
	testenv.Need(t, strings.TrimSpace(string(cgo)) == "1", "cgo (a C compiler) to build the tray")
	bin := buildTestOnlyReins(t)
	x := xvfb.StartT(t, "1280x800x24")
	cmd := exec.Command(bin, "-mcp-port", "-1")
	cmd.Env = append(withoutBus(os.Environ()), "DISPLAY="+x.Display, "REINS_DATA_DIR="+filepath.Join(t.TempDir(), "data"),
		"XDG_RUNTIME_DIR="+t.TempDir())
	tray := startTrayCmd(t, cmd)
	tray.waitLine(t, "the tray to start", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "Reins is running.") })
	tray.waitLine(t, "the stand-in", 5*time.Second, func(l string) bool { return strings.Contains(l, "a small Reins window stands in") })
	testenv.WaitWithin(t, 10*time.Second, "the stand-in window", func() bool { _, _, _, _, err := findWindow(x.Display, "Reins"); return err == nil })
	syscall.Kill(tray.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-tray.exited:
	case <-time.After(15 * time.Second):
		t.Fatal("Reins did not quit within 15 s of SIGTERM")
	}
	if code := tray.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("Reins exited %d on SIGTERM without a session bus, want 0", code)
	}
	tray.mustNotPanic(t)
}

func withoutBus(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") || strings.HasPrefix(kv, "XDG_RUNTIME_DIR=")
	})
}

func (p *trayProc) mustNotPanic(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if strings.HasPrefix(l, "panic:") || strings.Contains(l, "goroutine ") && strings.Contains(l, "[running]") {
			t.Fatalf("Reins panicked:\n%s", tail(strings.Join(p.lines, "\n"), 4000))
		}
	}
}

// desktop is Xvfb and a private session bus, the test's own connection to
// that bus, and the environment for the programs of this desktop.
type desktop struct {
	x    *xvfb.Server
	bus  *dbus.Conn
	env  []string
	conf string // XDG_CONFIG_HOME
}

// screenHeight is the test desktop's height; its panel runs along the
// bottom.
const screenHeight = 1024

// startDesktop starts Xvfb and a private session bus.
func startDesktop(t *testing.T) *desktop {
	t.Helper()
	testenv.NeedCommand(t, "dbus-daemon")
	testenv.NeedCommand(t, "xfce4-panel")
	cgo, _ := exec.Command("go", "env", "CGO_ENABLED").Output()
	testenv.Need(t, strings.TrimSpace(string(cgo)) == "1", "cgo (a C compiler) to build the tray")
	x := xvfb.StartT(t, fmt.Sprintf("1280x%dx24", screenHeight))

	// What the bus starts for the panel (xfconfd) reads its settings from
	// the bus's own environment.
	conf := t.TempDir()
	env := append(withoutBus(os.Environ()), "DISPLAY="+x.Display, "XDG_CONFIG_HOME="+conf, "XDG_RUNTIME_DIR="+t.TempDir())
	// The bus and what it starts for the panel (xfconfd, the accessibility
	// bus) share its process group, which ends with the test.
	addr := testenv.SessionBus(t, env)
	bus, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connecting to the test's session bus %s: %v", addr, err)
	}
	t.Cleanup(func() { bus.Close() })
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	return &desktop{x: x, bus: bus, env: env, conf: conf}
}

// startPanel writes the panel's configuration fresh (xfconfd writes back
// into it) and starts xfce4-panel, returning once it owns the
// StatusNotifierWatcher.
func (d *desktop) startPanel(t *testing.T) *trayProc {
	t.Helper()
	if err := hosttest.WritePanelConfig(d.conf, screenHeight); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("xfce4-panel", "--disable-wm-check")
	cmd.Env = append(slices.Clone(d.env), "NO_AT_BRIDGE=1")
	p := startTrayCmd(t, cmd)
	d.waitWatcher(t, true)
	return p
}

func (d *desktop) startReins(t *testing.T, bin, data string, args ...string) *trayProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-mcp-port", "-1"}, args...)...)
	cmd.Env = append(slices.Clone(d.env), "REINS_DATA_DIR="+data)
	return startTrayCmd(t, cmd)
}

func (d *desktop) waitWatcher(t *testing.T, want bool) {
	t.Helper()
	testenv.WaitWithin(t, 20*time.Second, fmt.Sprintf("a tray host on the bus = %t", want), func() bool {
		return hosttest.HasWatcher(d.bus) == want
	})
}

// waitItem waits until the host lists Reins' tray item and returns the
// bus name that serves it.
func (d *desktop) waitItem(t *testing.T, tray *trayProc, want bool) string {
	t.Helper()
	var owner string
	testenv.WaitWithin(t, 20*time.Second, fmt.Sprintf("Reins' item registered with the tray host = %t", want), func() bool {
		var ok bool
		owner, ok = hosttest.Registered(d.bus, tray.cmd.Process.Pid)
		return ok == want && (owner != "" || !want)
	})
	return owner
}

// waitIcon waits until the item's icon, as the host reads it from the bus,
// is Reins' icon for state.
func (d *desktop) waitIcon(t *testing.T, item string, state ui.Icon) {
	t.Helper()
	testenv.WaitWithin(t, 20*time.Second, "the tray icon to show "+state.String(), func() bool { return d.iconIs(item, state) })
}

func (d *desktop) iconIs(item string, state ui.Icon) bool {
	v, err := d.bus.Object(item, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil {
		return false
	}
	var px []struct {
		W, H int32
		Data []byte
	}
	if err := dbus.Store([]any{v.Value()}, &px); err != nil || len(px) == 0 {
		return false
	}
	return bytes.Equal(px[0].Data, argb(ui.TrayIcon(state).Content()))
}

// argb is a PNG's pixels the way a StatusNotifierItem's IconPixmap carries
// them.
func argb(b []byte) []byte {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	var out []byte
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			rr, gg, bb, aa := img.At(x, y).RGBA()
			out = append(out, byte(aa), byte(rr), byte(gg), byte(bb))
		}
	}
	return out
}

func (d *desktop) waitStandIn(t *testing.T, shown bool) {
	t.Helper()
	testenv.WaitWithin(t, 20*time.Second, fmt.Sprintf("the stand-in window shown = %t", shown), func() bool {
		_, _, _, _, err := findWindow(d.x.Display, "Reins")
		return (err == nil) == shown
	})
}

// iconSpot finds Reins' icon on the panel from the screen's pixels: the
// dark shape on the light panel along the bottom.
func (d *desktop) iconSpot(t *testing.T) (x, y int) {
	t.Helper()
	var box image.Rectangle
	var img *image.RGBA
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if img, err = xdesk.Capture(d.x.Display); err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		box = image.Rectangle{}
		for py := b.Max.Y - 30; py < b.Max.Y; py++ {
			for px := b.Min.X; px < b.Max.X; px++ {
				c := img.RGBAAt(px, py)
				if c.R < 80 && c.G < 80 && c.B < 80 {
					box = box.Union(image.Rect(px, py, px+1, py+1))
				}
			}
		}
		if box.Dx() >= 10 && box.Dx() <= 40 && box.Dy() >= 10 && box.Dy() <= 30 {
			break
		}
		if time.Now().After(deadline) {
			path := filepath.Join(os.TempDir(), "reins-trayhost-screen.png")
			f, err := os.Create(path)
			if err == nil {
				png.Encode(f, img)
				f.Close()
			}
			t.Fatalf("no icon-sized dark shape on the panel (dark pixels in %v); the screen is in %s", box, path)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("Reins' icon on the panel: %v", box)
	return (box.Min.X + box.Max.X) / 2, (box.Min.Y + box.Max.Y) / 2
}

// openMenu clicks Reins' icon as a person does and waits for the menu.
func (d *desktop) openMenu(t *testing.T, item string) {
	t.Helper()
	x, y := d.iconSpot(t)
	before := popups(t, d.x.Display)
	// With the person's own mouse: a choice of the menu that shares or
	// resumes follows only their click.
	if err := personClick(d.x.Display, x, y); err != nil {
		t.Fatal(err)
	}
	testenv.WaitWithin(t, 10*time.Second, "the tray menu to open", func() bool { return popups(t, d.x.Display) > before })
}

// pick opens the menu and chooses path in it, as a person does, until done
// reports that the choice took. A person whose choice did not take (the
// menu changed under the keys, a key came before the menu had the
// keyboard) closes the menu and tries again; so does the test, up to
// three times.
func (d *desktop) pick(t *testing.T, item string, done func() bool, path ...string) {
	t.Helper()
	for try := 1; ; try++ {
		base := popups(t, d.x.Display)
		d.openMenu(t, item)
		d.choose(t, item, path...)
		if testenv.Eventually(5*time.Second, done) {
			return
		}
		if try == 3 {
			shot := filepath.Join(os.TempDir(), "reins-trayhost-menu.png")
			if img, err := xdesk.Capture(d.x.Display); err == nil {
				if f, err := os.Create(shot); err == nil {
					png.Encode(f, img)
					f.Close()
				}
			}
			t.Fatalf("choosing %s in the tray menu did not take, three times; the screen is in %s; the menu: %+v",
				strings.Join(path, " › "), shot, d.menuLayout(t, item))
		}
		t.Logf("choosing %s did not take; closing the menu and trying again", strings.Join(path, " › "))
		xdesk.Keys(d.x.Display, "Escape", "Escape", "Escape")
		testenv.Eventually(5*time.Second, func() bool { return popups(t, d.x.Display) <= base })
	}
}

// choose walks the open menu with the keyboard, as a person can: each
// label's place among the items one can select, read from the menu the item
// publishes on the bus (com.canonical.dbusmenu), is that many presses of
// Down; Right opens a submenu, Return chooses. A label that names a
// heading (a tab's name above its choices) only says which group the next
// label is in.
func (d *desktop) choose(t *testing.T, item string, path ...string) {
	t.Helper()
	menu := d.menuLayout(t, item)
	from := 0       // where the next label is looked for in menu
	opened := false // a submenu has opened: its first item is selected
	for i, label := range path {
		at := -1
		for j := from; j < len(menu.children); j++ {
			if strings.HasPrefix(menu.children[j].label, label) {
				at = j
				break
			}
		}
		if at < 0 {
			t.Fatalf("no %q in the menu: %s", label, menu.labels())
		}
		e := menu.children[at]
		last := i == len(path)-1
		if !e.selectable() && !last {
			from = at + 1
			continue
		}
		n := 0
		for _, c := range menu.children[:at] {
			if c.selectable() {
				n++
			}
		}
		// In the top menu nothing is selected yet: the first Down selects
		// the first item. A submenu opens with its first item selected.
		if !opened {
			n++
		}
		var keys []string
		for range n {
			keys = append(keys, "Down")
		}
		if last {
			keys = append(keys, "Return")
		} else {
			keys = append(keys, "Right")
		}
		open := popups(t, d.x.Display)
		t.Logf("menu %s: %s", label, strings.Join(keys, " "))
		if err := xdesk.Keys(d.x.Display, keys...); err != nil {
			t.Fatal(err)
		}
		if !last {
			// The submenu takes the keyboard once it is up.
			testenv.WaitWithin(t, 10*time.Second, "the submenu of "+label, func() bool { return popups(t, d.x.Display) > open })
			menu, from, opened = e, 0, true
		}
	}
}

type menuEntry struct {
	label          string
	separator      bool
	enabled, shown bool
	checked        bool
	children       []menuEntry
}

// find follows a path of label prefixes down the menu; a label that names
// a heading (a disabled item) says which group of its menu the next label
// is in.
func (e menuEntry) find(path ...string) (menuEntry, bool) {
	from := 0
	for k, label := range path {
		i := slices.IndexFunc(e.children[from:], func(c menuEntry) bool { return strings.HasPrefix(c.label, label) })
		if i < 0 {
			return menuEntry{}, false
		}
		i += from
		if c := e.children[i]; !c.enabled && k < len(path)-1 {
			from = i + 1
			continue
		}
		e, from = e.children[i], 0
	}
	return e, true
}

func (e menuEntry) selectable() bool { return !e.separator && e.enabled && e.shown }

func (e menuEntry) labels() string {
	var out []string
	for _, c := range e.children {
		out = append(out, fmt.Sprintf("%q", c.label))
	}
	return strings.Join(out, ", ")
}

func (d *desktop) menuLayout(t *testing.T, item string) menuEntry {
	t.Helper()
	var rev uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	// The item says where its menu is.
	menuPath, err := d.bus.Object(item, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("reading where Reins' menu is from the bus: %v", err)
	}
	path, _ := menuPath.Value().(dbus.ObjectPath)
	call := d.bus.Object(item, path).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if err := call.Store(&rev, &layout); err != nil {
		t.Fatalf("reading Reins' menu from the bus: %v", err)
	}
	var conv func(props map[string]dbus.Variant, children []dbus.Variant) menuEntry
	conv = func(props map[string]dbus.Variant, children []dbus.Variant) menuEntry {
		e := menuEntry{enabled: true, shown: true}
		if v, ok := props["label"]; ok {
			e.label, _ = v.Value().(string)
		}
		if v, ok := props["type"]; ok {
			e.separator = v.Value() == "separator"
		}
		if v, ok := props["enabled"]; ok {
			e.enabled, _ = v.Value().(bool)
		}
		if v, ok := props["visible"]; ok {
			e.shown, _ = v.Value().(bool)
		}
		if v, ok := props["toggle-state"]; ok {
			e.checked = fmt.Sprint(v.Value()) == "1"
		}
		for _, c := range children {
			var sub struct {
				ID       int32
				Props    map[string]dbus.Variant
				Children []dbus.Variant
			}
			if err := dbus.Store([]any{c.Value()}, &sub); err != nil {
				t.Fatalf("a menu entry: %v", err)
			}
			e.children = append(e.children, conv(sub.Props, sub.Children))
		}
		return e
	}
	return conv(layout.Props, layout.Children)
}

// popups counts the menus open on the screen.
func popups(t *testing.T, display string) int {
	n, err := xdesk.Menus(display)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mcpAgent is the real `reins mcp` driven by an MCP client.
type mcpAgent struct {
	cs     *sdk.ClientSession
	ctx    context.Context
	stderr *syncBuffer
}

func startAgent(t *testing.T, bin, data string) *mcpAgent {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+data)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "tray host e2e agent", Version: "1.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\nreins mcp: %s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpAgent{cs: cs, ctx: ctx, stderr: stderr}
}

// call calls tool on a goroutine of its own; wait receives its result.
func (a *mcpAgent) call(tool string, args map[string]any) <-chan mcptest.Result {
	return mcptest.Go(a.ctx, a.cs, tool, args)
}

func (a *mcpAgent) wait(t *testing.T, what string, ch <-chan mcptest.Result) mcptest.Result {
	t.Helper()
	return mcptest.Await(t, what, ch, a.stderr)
}
