package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/a11ytest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestDesktopByRef drives a real GTK 3 application through the real
// reins mcp, on a desktop whose accessibility bus is real: the agent looks
// at the desktop, finds the button by its desktop ref and clicks it once the
// person allows it, and the application itself reports exactly one click;
// it types into the text field by ref and the application reports the
// text; the password field's secret appears in no answer, row or file; a
// button relabelled after the look is refused as changed and not clicked.
func TestDesktopByRef(t *testing.T) {
	dr := startA11yDesktop(t)
	d, data, exec, rt, cs := dr.d, dr.data, dr.exec, dr.rt, dr.cs
	var answers []string
	call := func(tool string, args map[string]any) string {
		t.Helper()
		out := mcptest.MustCall(t, cs, tool, args)
		answers = append(answers, out)
		return out
	}
	look := func(button string) string {
		t.Helper()
		var out string
		// The application registers its window on the accessibility bus
		// in its own time after it is mapped.
		if !testenv.Eventually(testenv.Patience, func() bool {
			out = call("desktop_observe", nil)
			return strings.Contains(out, `button "`+button+`"`)
		}) {
			t.Fatalf("desktop_observe never showed the fixture's button %q:\n%s", button, out)
		}
		return out
	}
	deskRef := func(view, role, name string) string {
		t.Helper()
		m := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(d\d+)\]`).FindStringSubmatch(view)
		if m == nil {
			t.Fatalf("no %s %q with a ref in:\n%s", role, name, view)
		}
		return m[1]
	}

	view := look("Press me")
	t.Logf("desktop_observe:\n%s", view)
	if !strings.Contains(view, `textbox "Password" [secret]`) {
		t.Errorf("the password field is not shown as secret:\n%s", view)
	}

	out := call("desktop_click", map[string]any{"ref": deskRef(view, "button", "Press me")})
	if !strings.Contains(out, "Done: Click button “Press me” in ") {
		t.Errorf("the click's answer: %s", out)
	}
	d.Next(t, "clicked Press me")

	out = call("desktop_type", map[string]any{"ref": deskRef(view, "textbox", "Name"), "text": "grace"})
	if !strings.Contains(out, "Done: Type “grace” into textbox “Name” in ") {
		t.Errorf("the typing's answer: %s", out)
	}
	// The field says each change; the last is the whole text.
	for line := d.Next(t, "Name is "); !strings.HasSuffix(line, "grace"); line = d.Next(t, "Name is ") {
	}

	// Relabelled after the look: the old ref names a button no longer there
	// as it was, and nothing is clicked.
	fmt.Fprintln(d.Stdin, "relabel")
	d.Next(t, "relabelled")
	text, isErr := mcptest.Call(t, cs, "desktop_click", map[string]any{"ref": deskRef(view, "button", "Press me")})
	answers = append(answers, text)
	if !isErr || !strings.HasPrefix(text, vocab.CodeChanged+":") {
		t.Errorf("a click on the relabelled button: %q, want %s", text, vocab.CodeChanged)
	}
	if text, isErr := mcptest.Call(t, cs, "desktop_click", map[string]any{"ref": "d999"}); !isErr || !strings.HasPrefix(text, vocab.CodeStaleRef+":") {
		t.Errorf("a click on an unknown desktop ref: %q, want %s", text, vocab.CodeStaleRef)
	}
	// One more look, so that any late line of the fixture's is in.
	look("Pressed already")
	for _, l := range d.Lines() {
		if strings.HasPrefix(l, "clicked") {
			t.Errorf("the fixture saw another click: %q", l)
		}
	}

	// A picture of the desktop shows the fixture's window.
	fixtureWin := windowOf(t, call("desktop_observe", nil), "Fixture.py")
	if black := blackShare(t, picture(t, cs, false), fixtureWin); black > 0.5 {
		t.Errorf("%.0f%% of the fixture's window is black in the desktop picture, want it shown", 100*black)
	}

	// A window of a deny-listed application: not read, not clicked, and
	// black in every picture.
	keepass := d.Another(t, "FIXTURE_CLASS=keepassxc")
	if err := xdesk.Move(d.X.Display, 9, 9); err != nil {
		t.Fatal(err)
	}
	var denied string
	if !testenv.Eventually(testenv.Patience, func() bool {
		denied = call("desktop_observe", nil)
		return strings.Contains(denied, "deny list")
	}) {
		t.Fatalf("with the deny-listed window in front, desktop_observe says:\n%s", denied)
	}
	if strings.Contains(denied, "[ref=d") {
		t.Errorf("a deny-listed application's elements were listed:\n%s", denied)
	}
	if text, isErr := mcptest.Call(t, cs, "desktop_click", map[string]any{"x": 40, "y": 30}); !isErr || !strings.HasPrefix(text, vocab.CodeDenyListed+":") {
		t.Errorf("a click on the deny-listed window: %q, want %s", text, vocab.CodeDenyListed)
	}
	kwin := windowOf(t, denied, "Fixture.py") // the first listed: the one in front
	if black := blackShare(t, picture(t, cs, false), kwin); black < 1 {
		t.Errorf("only %.0f%% of the deny-listed window is black in the desktop picture", 100*black)
	}
	for _, l := range keepass.Lines() {
		if strings.HasPrefix(l, "clicked") {
			t.Errorf("the deny-listed window saw a click: %q", l)
		}
	}

	rows, err := rt.AuditRows(context.Background(), persondoor.AuditFilter{Act: string(vocab.Click), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var done, changed int
	for _, r := range rows {
		switch {
		case r.Phase == "outcome" && r.Outcome == vocab.OutcomeDone:
			done++
			if r.TargetRole != "button" || r.TargetName != "Press me" {
				t.Errorf("the click's row names %s %q, want button \"Press me\"", r.TargetRole, r.TargetName)
			}
		case r.Code == vocab.CodeChanged:
			changed++
		}
	}
	if done != 1 || changed != 1 || rows[0].Code != vocab.CodeDenyListed {
		t.Errorf("click rows: %d done and %d changed, want one of each: %+v", done, changed, rows)
	}
	if n := exec.fired.Load(); n != 2 {
		t.Errorf("%d acts reached the executor, want the click and the typing", n)
	}
	if p := exec.problems(); len(p) > 0 {
		t.Errorf("an act reached the executor before its row was committed: %v", p)
	}
	noSecret(t, a11ytest.Secret, strings.Join(answers, "\n"), data)
}

// desktopRig is a desktop with a real accessibility bus and the GTK fixture
// on it, Reins on that desktop with the desktop shared at Control, and an
// agent allowed through the real reins mcp.
type desktopRig struct {
	d    *a11ytest.Desktop
	data string
	raw  executor.Executor
	read deskread.Reader
	exec *checkedExecutor
	rt   *core.Runtime
	cs   *sdk.ClientSession
}

func startA11yDesktop(t *testing.T) desktopRig {
	t.Helper()
	reinsBinaryFor(t)
	d := a11ytest.Start(t, a11ytest.Options{Screen: "1280x800x24"})
	data := filepath.Join(t.TempDir(), "data")
	raw, err := executor.New(executor.Options{Display: d.X.Display})
	if err != nil {
		t.Fatal(err)
	}
	exec := &checkedExecutor{Executor: raw, dbPath: filepath.Join(data, "audit.db")}
	rd := readerOf(t, d.X.Display, d.Session, raw, deskread.AccessibleAuto)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: data, Executor: exec, Reader: rd, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	person := &answerer{policy: "allow"}
	t.Cleanup(person.run(rt))
	coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "e2e desktop agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	if err := rt.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	cs := agentThroughMCP(t, rt, data, sdk.Implementation{Name: "e2e desktop agent", Version: "1"})
	// With no window manager, the window in front is the one under the
	// pointer: the person's mouse rests on the fixture.
	if err := xdesk.Move(d.X.Display, 8, 8); err != nil {
		t.Fatal(err)
	}

	return desktopRig{d: d, data: data, raw: raw, read: rd, exec: exec, rt: rt, cs: cs}
}

// TestDesktopBrowserFromThePage puts Chromium in front with its own
// accessibility on, so that its tree on the bus holds the page's elements:
// the tab it shows is in the desktop view only once it is open to the
// agent, and then once, from the page, with its tab refs, never from
// Chromium's tree; its window is black in every picture.
func TestDesktopBrowserFromThePage(t *testing.T) {
	dr := startA11yDesktop(t)
	d, data, read, rt, cs := dr.d, dr.data, dr.read, dr.rt, dr.cs
	call := func(tool string, args map[string]any) string {
		t.Helper()
		return mcptest.MustCall(t, cs, tool, args)
	}
	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/desk.html": `<!doctype html><title>Private page</title><h1>Private words</h1><button>Shared button</button>
<script>addEventListener('load', () => fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded'})}))</script>`})
	// Chromium's own accessibility is on, on the same bus: its tree holds
	// the page's elements, which the desktop view must not take from it.
	chromium := browsertest.Start(t, browsertest.Options{X: d.X, DataDir: data, Reins: reinsBinary.path, URL: origin + "/desk.html", Width: 900, Height: 600,
		Args: []string{"--force-renderer-accessibility"}, Env: []string{"DBUS_SESSION_BUS_ADDRESS=" + d.Session, "ACCESSIBILITY_ENABLED=1"}})
	if err := xdesk.Move(d.X.Display, 600, 400); err != nil { // over Chromium only
		t.Fatal(err)
	}
	testenv.WaitWithin(t, 60*time.Second, "Chromium's accessibility tree to hold the page's button", func() bool {
		tree, err := read.Accessible(context.Background(), chromium.PID())
		return err == nil && tree.Find("push button", "Shared button") != nil
	})
	var tab string
	testenv.WaitWithin(t, 30*time.Second, "the extension to report the tab", func() bool {
		for _, tb := range rt.Tabs() {
			if tb.Connected && strings.HasPrefix(tb.URL, origin) {
				tab = tb.ID
				return true
			}
		}
		return false
	})
	var browser string
	if !testenv.Eventually(testenv.Patience, func() bool {
		browser = call("desktop_observe", nil)
		return strings.Contains(browser, "web browser")
	}) {
		t.Fatalf("with Chromium in front, desktop_observe says:\n%s", browser)
	}
	if strings.Contains(browser, "Private") || strings.Contains(browser, "Shared button") {
		t.Errorf("the text of a tab not open to the agent reached the desktop view:\n%s", browser)
	}
	if err := rt.SetShare(tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	if !testenv.Eventually(testenv.Patience, func() bool {
		browser = call("desktop_observe", nil)
		return regexp.MustCompile(`button "Shared button" \[ref=e\d+\]`).MatchString(browser)
	}) {
		t.Fatalf("the shared tab in front is not in the desktop view:\n%s", browser)
	}
	if n := strings.Count(browser, "Shared button"); n != 1 {
		t.Errorf("the shared tab's button is in the desktop view %d times, want once:\n%s", n, browser)
	}
	cwin := windowOf(t, browser, "Chromium-browser")
	if black := blackShare(t, picture(t, cs, false), cwin); black < 1 {
		t.Errorf("only %.0f%% of the browser's window is black in the desktop picture", 100*black)
	}

	// Another application in front, which a window manager gives the
	// focus: Chromium's window behind still shows the shared tab on
	// screen, and the view reads it from the page.
	startWindowManager(t, d.X.Display)
	d.Another(t)
	if !testenv.Eventually(testenv.Patience, func() bool {
		// The window manager gives the fixture the focus in its own time.
		browser = call("desktop_observe", nil)
		return strings.Contains(browser, `"Press me"`) && strings.Contains(browser, "Web browser window behind, tab "+tab+" (open to you)")
	}) {
		t.Fatalf("with the fixture in front, its elements and the shared tab on screen are not in the desktop view:\n%s", browser)
	}
	if n := strings.Count(browser, "Shared button"); n != 1 {
		t.Errorf("the shared tab's button is in the desktop view %d times, want once:\n%s", n, browser)
	}
}

// noSecret fails the test when secret is in answers or in any file under
// dir (the audit log, the settings, the logs).
func noSecret(t *testing.T, secret, answers, dir string) {
	t.Helper()
	if strings.Contains(answers, secret) {
		t.Errorf("an answer carries the password field's secret")
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		if strings.Contains(string(b), secret) {
			t.Errorf("%s carries the password field's secret", p)
		}
		return nil
	})
}

// windowOf is the rectangle of the window of app that desktop_observe
// lists first.
func windowOf(t *testing.T, view, app string) image.Rectangle {
	t.Helper()
	m := regexp.MustCompile(`— ` + regexp.QuoteMeta(app) + ` at (\d+),(\d+) size (\d+)×(\d+)`).FindStringSubmatch(view)
	if m == nil {
		t.Fatalf("no window of %s in:\n%s", app, view)
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	return image.Rect(n(1), n(2), n(1)+n(3), n(2)+n(4))
}

// picture is desktop_screenshot's image.
func picture(t *testing.T, cs *sdk.ClientSession, window bool) image.Image {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "desktop_screenshot", Arguments: map[string]any{"window": window}})
	if err != nil || res.IsError {
		t.Fatalf("desktop_screenshot: %v %s", err, mcptest.Text(res))
	}
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img, err := png.Decode(bytes.NewReader(ic.Data))
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatal("desktop_screenshot gave no image")
	return nil
}

// blackShare is the part of r's pixels in img that are black.
func blackShare(t *testing.T, img image.Image, r image.Rectangle) float64 {
	t.Helper()
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		t.Fatalf("the window %v is outside the picture %v", r, img.Bounds())
	}
	black := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr == 0 && cg == 0 && cb == 0 {
				black++
			}
		}
	}
	return float64(black) / float64(r.Dx()*r.Dy())
}

// BenchmarkDesktopClick times a desktop click through the core, from the
// agent's call to its answer (the person answers at once), by desktop ref
// and at a point, on the GTK fixture: the difference is what finding the
// element again costs. Each click is waited for until the fixture reports
// it.
func BenchmarkDesktopClick(b *testing.B) {
	d := a11ytest.Start(b, a11ytest.Options{Screen: "1280x800x24"})
	data := filepath.Join(b.TempDir(), "data")
	raw, err := executor.New(executor.Options{Display: d.X.Display})
	if err != nil {
		b.Fatal(err)
	}
	rd := readerOf(b, d.X.Display, d.Session, raw, deskread.AccessibleAuto)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: data, Executor: raw, Reader: rd, Logf: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	person := &answerer{policy: "allow"}
	b.Cleanup(person.run(rt))
	agent := coretest.Admitted(b, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "bench agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	if err := rt.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		b.Fatal(err)
	}
	if err := xdesk.Move(d.X.Display, 8, 8); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var view *agentdoor.DesktopView
	if !testenv.Eventually(testenv.Patience, func() bool {
		view, err = agent.Desktop(ctx)
		return err == nil && strings.Contains(view.Elements, `button "Press me"`)
	}) {
		b.Fatalf("the fixture's button never showed: %v", err)
	}
	ref := regexp.MustCompile(`button "Press me"[^\n]*\[ref=(d\d+)\]`).FindStringSubmatch(view.Elements)[1]
	var x, y float64
	for _, c := range []struct {
		name string
		req  func() agentdoor.DesktopActRequest
	}{
		{"by ref", func() agentdoor.DesktopActRequest {
			return agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, Ref: ref}
		}},
		{"at a point", func() agentdoor.DesktopActRequest {
			return agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: x, Y: y}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := agent.DesktopAct(ctx, c.req()); err != nil {
					b.Fatal(err)
				}
				d.Next(b, "clicked Press me")
			}
		})
		if x == 0 {
			// The point the ref clicked, for the run at a point.
			rows, _ := rt.AuditRows(ctx, persondoor.AuditFilter{Act: string(vocab.Click), Limit: 2})
			for _, r := range rows {
				if len(r.Plan) > 0 {
					var p struct{ X, Y float64 }
					json.Unmarshal(r.Plan, &p)
					x, y = p.X, p.Y
				}
			}
		}
	}
}

// BenchmarkDesktopObserve times one whole desktop view of a window of 209
// accessible elements, as an agent asks for it: the window list, the
// application's elements read from its cache or element by element, the
// snapshot built with its refs, and the read's audit row.
func BenchmarkDesktopObserve(b *testing.B) {
	d := a11ytest.Start(b, a11ytest.Options{Screen: "1280x800x24", Buttons: 200})
	if err := xdesk.Move(d.X.Display, 8, 8); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		source deskread.AccessibleSource
	}{{"cache", deskread.AccessibleCache}, {"walk", deskread.AccessibleWalk}} {
		b.Run(c.name, func(b *testing.B) {
			raw, err := executor.New(executor.Options{Display: d.X.Display})
			if err != nil {
				b.Fatal(err)
			}
			rd := readerOf(b, d.X.Display, d.Session, raw, c.source)
			rt, err := core.Start(ctx, core.StartOptions{DataDir: filepath.Join(b.TempDir(), "data"), Executor: raw, Reader: rd, Logf: b.Logf})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { rt.Close() })
			agent := coretest.Admitted(b, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "bench agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
			if err := rt.SetShare(vocab.DesktopKey, vocab.ReadOnly); err != nil {
				b.Fatal(err)
			}
			if !testenv.Eventually(testenv.Patience, func() bool {
				v, err := agent.DesktopWith(ctx, agentdoor.DesktopOptions{MaxChars: agentdoor.NoBudget})
				return err == nil && strings.Contains(v.Elements, `"Item 200"`)
			}) {
				b.Fatal("the fixture's 200 buttons never showed")
			}
			refs := 0
			for b.Loop() {
				v, err := agent.DesktopWith(ctx, agentdoor.DesktopOptions{MaxChars: agentdoor.NoBudget})
				if err != nil {
					b.Fatal(err)
				}
				refs = strings.Count(v.Elements, "[ref=d")
			}
			b.ReportMetric(float64(refs), "refs")
		})
	}
}
