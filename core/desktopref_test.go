package core_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

var fixtureApp = executor.App{Name: "Fixture", Exe: "/usr/bin/python3", PID: 5150}

// fixtureTree is a window with a button and a password field.
func fixtureTree(button string) *gdesktop.Tree {
	on := gdesktop.States{Enabled: true, Showing: true, Visible: true}
	return &gdesktop.Tree{App: "Fixture", PID: fixtureApp.PID, Root: gdesktop.Element{
		ID: "/w", Role: "frame", Name: "Fixture", State: on, Box: gdesktop.Rect{W: 300, H: 200},
		Children: []gdesktop.Element{
			{ID: "/w/b", Role: "push button", Name: button, State: on, Box: gdesktop.Rect{X: 10, Y: 20, W: 100, H: 30}},
			{ID: "/w/p", Role: "password text", Name: "Password", Secret: true, State: on, Box: gdesktop.Rect{X: 10, Y: 60, W: 100, H: 30}},
		},
	}}
}

func desktopRig(t *testing.T) (*coretest.Engine, agentdoor.Session) {
	t.Helper()
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 2 * time.Second})
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.AnswerAll(vocab.AllowOnce))
	e.Exec.SetFrontmost(fixtureApp)
	e.Exec.SetAppAt(fixtureApp)
	e.Read.SetAccessible(fixtureApp.PID, fixtureTree("Press me"))
	return e, coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
}

func deskRefOf(t *testing.T, v *agentdoor.DesktopView, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(`- ` + role + ` "` + name + `"[^\n]*\[ref=(d\d+)\]`).FindStringSubmatch(v.Elements)
	if m == nil {
		t.Fatalf("no %s %q in %q (note %q)", role, name, v.Elements, v.Note)
	}
	return m[1]
}

// A desktop ref is clicked at its element's centre as the application shows
// it at fire time, and named in the request by its role and name.
func TestADesktopRefIsClickedWhereTheElementIsNow(t *testing.T) {
	e, agent := desktopRig(t)
	ctx := context.Background()
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := deskRefOf(t, v, "button", "Press me")
	if !strings.Contains(v.Elements, `textbox "Password" [secret]`) {
		t.Errorf("the password field is not marked secret:\n%s", v.Elements)
	}
	moved := fixtureTree("Press me")
	moved.Root.Children[0].Box = gdesktop.Rect{X: 200, Y: 100, W: 50, H: 20}
	e.Read.SetAccessible(fixtureApp.PID, moved)
	res, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, Ref: ref})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Done, "Click button “Press me” in ") {
		t.Errorf("done %q", res.Done)
	}
	fired := e.Exec.Fired()
	if len(fired) != 1 || fired[0].Plan.X != 225 || fired[0].Plan.Y != 110 {
		t.Fatalf("fired %+v, want one click at the button's centre now (225, 110)", fired)
	}
}

// A ref whose element went, changed or is covered is refused before
// anything fires; a browser, a deny-listed application and Reins' own
// windows are not read at all.
func TestADesktopRefThatNoLongerHoldsIsRefused(t *testing.T) {
	e, agent := desktopRig(t)
	ctx := context.Background()
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := deskRefOf(t, v, "button", "Press me")
	click := func() error {
		_, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, Ref: ref})
		return err
	}
	e.Read.SetAccessible(fixtureApp.PID, fixtureTree("Delete everything"))
	if err := click(); codeOf(err) != vocab.CodeChanged {
		t.Errorf("a relabelled button: %v, want %s", err, vocab.CodeChanged)
	}
	gone := fixtureTree("Press me")
	gone.Root.Children = gone.Root.Children[1:]
	e.Read.SetAccessible(fixtureApp.PID, gone)
	if err := click(); codeOf(err) != vocab.CodeStaleRef {
		t.Errorf("a button gone: %v, want %s", err, vocab.CodeStaleRef)
	}
	e.Read.SetAccessible(fixtureApp.PID, fixtureTree("Press me"))
	e.Exec.SetAppAt(executor.App{Name: "Overlay", PID: 999})
	if err := click(); codeOf(err) != vocab.CodeObscured {
		t.Errorf("a button covered by another window: %v, want %s", err, vocab.CodeObscured)
	}
	if n := len(e.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, Ref: "d999"}); codeOf(err) != vocab.CodeStaleRef {
		t.Errorf("an unknown ref: %v", err)
	}

	for _, c := range []struct {
		app  executor.App
		note string
	}{
		{executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 6000}, "web browser"},
		{executor.App{Name: "KeePassXC", Exe: "/usr/bin/keepassxc", Class: "keepassxc", PID: 6001}, "deny list"},
	} {
		e.Exec.SetFrontmost(c.app)
		e.Read.SetAccessible(c.app.PID, fixtureTree("Press me"))
		v, err := agent.Desktop(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Elements != "" || !strings.Contains(v.Note, c.note) {
			t.Errorf("%s in front: elements %q, note %q; want none read, saying %q", c.app.Name, v.Elements, v.Note, c.note)
		}
	}
}

// In a picture of the desktop, the windows of a browser, of a deny-listed
// application and of Reins itself are black, and so is all that is not a
// window of an application an agent may see; those show as they are.
func TestADesktopPictureHidesWhatAgentsMayNotSee(t *testing.T) {
	e, agent := desktopRig(t)
	e.Exec.SetScreens([]executor.Screen{{W: 400, H: 300}})
	e.Exec.SetWindows([]executor.Window{
		{App: executor.App{Name: "KeePassXC", Exe: "/usr/bin/keepassxc", PID: 6001}, X: 0, Y: 0, W: 100, H: 100},
		{App: executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 6000}, X: 100, Y: 0, W: 100, H: 100},
		{App: executor.App{Name: "Reins", Exe: "/usr/bin/reins", PID: os.Getpid()}, X: 200, Y: 0, W: 100, H: 100},
		{App: fixtureApp, X: 0, Y: 150, W: 300, H: 100, Active: true},
	})
	b, err := agent.DesktopScreenshot(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	isBlack := func(x, y int) bool { r, g, b, _ := img.At(x, y).RGBA(); return r == 0 && g == 0 && b == 0 }
	for _, p := range [][2]int{{50, 50}, {150, 50}, {250, 50}} {
		if !isBlack(p[0], p[1]) {
			t.Errorf("(%d, %d) shows in the picture, in a window an agent may not see", p[0], p[1])
		}
	}
	if isBlack(150, 200) {
		t.Errorf("the fixture's window is black")
	}
	// What no list names as an application's window an agent may see (the
	// desktop behind, a pop-up no window manager lists) is black too.
	if !isBlack(350, 50) || !isBlack(350, 280) {
		t.Errorf("the bare desktop shows in the picture")
	}
	w, err := agent.DesktopScreenshot(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(w)); err != nil || cfg.Width != 301 || cfg.Height != 102 {
		t.Errorf("the window's picture is %dx%d (%v), want the active window and a pixel round it, within the screen", cfg.Width, cfg.Height, err)
	}
	// Without the permission to see other applications' windows (macOS
	// Screen Recording) no picture is made, and the agent is told the fix.
	e.Read.CaptureErr = deskread.ErrNoScreenRecording
	if _, err := agent.DesktopScreenshot(context.Background(), false); codeOf(err) != vocab.CodePermissionRequired || !strings.Contains(err.Error(), "System Settings") {
		t.Errorf("a picture without Screen Recording: %v, want %s with the fix-it step", err, vocab.CodePermissionRequired)
	}
	e.Read.CaptureErr = nil
	if err := e.SetShare(vocab.DesktopKey, vocab.None); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.DesktopScreenshot(context.Background(), false); codeOf(err) != vocab.CodeShareRequired {
		t.Errorf("a picture without the desktop given: %v", err)
	}
}

// Typing into a password field that has the keyboard focus is a secret
// type: the person reads its length, and the record keeps no text.
func TestTypingIntoAFocusedPasswordFieldIsSecret(t *testing.T) {
	e, agent := desktopRig(t)
	tree := fixtureTree("Press me")
	tree.Root.Children[1].State.Focused = true
	e.Read.SetAccessible(fixtureApp.PID, tree)
	res, err := agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: "hunter2"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Done, "hunter2") || !strings.Contains(res.Done, "7 characters") {
		t.Errorf("done %q, want the text's length only", res.Done)
	}
	fired := e.Exec.Fired()
	if len(fired) != 1 || !fired[0].Act.Secret {
		t.Fatalf("fired %+v, want one secret type", fired)
	}
	rows, err := core.ReadAudit(context.Background(), e.Log, persondoor.AuditFilter{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if strings.Contains(string(r.Act), "hunter2") || strings.Contains(r.Detail, "hunter2") {
			t.Errorf("row %d keeps the typed secret", r.Seq)
		}
	}
}

// With a browser in front, the desktop view holds the tab its focused
// window shows, read from the page with its tab refs, when that tab is open
// to the agent; of a tab that is not, nothing but that it is there.
func TestABrowserInFrontShowsOnlyItsSharedTab(t *testing.T) {
	e, agent := desktopRig(t)
	chromium := executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 6000}
	e.Exec.SetFrontmost(chromium)
	e.Exec.SetWindows([]executor.Window{{App: chromium, Title: "Secret cart - Chromium", W: 800, H: 600, Active: true}})
	e.Browser.Open(7, coretest.Page{URL: "https://shop.example/cart", Title: "Secret cart", Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Place order", 10, 10))}})
	tab := e.WaitTab(t, "https://shop.example/cart")
	e.Browser.SetActive(7, true)
	e.Browser.SetFocused(7, true)
	ctx := context.Background()
	var v *agentdoor.DesktopView
	testenv.WaitFor(t, "the tab to be the one in front", func() bool {
		var err error
		v, err = agent.Desktop(ctx)
		return err == nil && strings.Contains(v.Note, "not open to you")
	})
	if strings.Contains(fmt.Sprintf("%+v", v), "Secret cart") || strings.Contains(v.Note+v.Elements, "Place order") {
		t.Errorf("an unshared tab's title or text reached the desktop view: %+v", v)
	}
	if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Elements, "Web browser, tab "+tab+" (open to you)") || !regexp.MustCompile(`button "Place order" \[ref=e\d+\]`).MatchString(v.Elements) {
		t.Errorf("the shared tab in front is not in the desktop view: %+v", v)
	}
}

// The element fired at is the one the person was asked about: renamed while
// they looked, and looked at again by the agent meanwhile, it is refused.
func TestADesktopRefRenamedWhileThePersonLooksIsRefused(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	e.Exec.SetFrontmost(fixtureApp)
	e.Exec.SetAppAt(fixtureApp)
	e.Read.SetAccessible(fixtureApp.PID, fixtureTree("Cancel"))
	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	ctx := context.Background()
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := deskRefOf(t, v, "button", "Cancel")
	err = actWhileAsked(t, e, agent, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, Ref: ref}, func(q vocab.Request) {
		if !strings.Contains(q.Sentence(), "“Cancel”") {
			t.Errorf("the person is asked %q", q.Sentence())
		}
		e.Read.SetAccessible(fixtureApp.PID, fixtureTree("Delete all"))
		if _, err := agent.Desktop(ctx); err != nil { // the same ref now names "Delete all"
			t.Fatal(err)
		}
	})
	if codeOf(err) != vocab.CodeChanged {
		t.Fatalf("the click = %v, want %s: the person allowed Cancel", err, vocab.CodeChanged)
	}
	if n := len(e.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}

// actWhileAsked runs the agent's desktop act r and, once the person is
// asked about it, runs while with the question before allowing it once;
// it returns the act's error.
func actWhileAsked(t *testing.T, e *coretest.Engine, agent agentdoor.Session, r agentdoor.DesktopActRequest, while func(vocab.Request)) error {
	t.Helper()
	events, stop := e.Subscribe(16)
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := agent.DesktopAct(context.Background(), r)
		done <- err
	}()
	for ev := range events {
		// The agent's first connection may still be told meanwhile.
		if ev.Kind != persondoor.EventApproval || ev.Request.Act.Kind != r.Act.Kind {
			continue
		}
		while(*ev.Request)
		e.Answer(ev.Request.ID, vocab.AllowOnce)
		break
	}
	return <-done
}

// The desktop view reads, besides the window in front, the tabs open to
// the agent that browser windows behind it show on screen, from their
// pages, each known by where the browser says its window is; a window
// covered whole by one in front is not on screen, and a tab not open to
// the agent is neither read nor named.
func TestTheDesktopViewReadsSharedTabsOnScreen(t *testing.T) {
	e, agent := desktopRig(t)
	ctx := context.Background()
	at := func(x, y, w, h float64) *protocol.Window {
		return &protocol.Window{ScreenX: x, ScreenY: y, OuterWidth: w, OuterHeight: h, DPR: 1}
	}
	page := shop()
	page.Window = at(600, 0, 600, 400)
	e.Browser.Open(7, page)
	shopTab := e.WaitTab(t, shopURL)
	e.Browser.Open(8, coretest.Page{URL: "https://mail.example.com/", Title: "Inbox — Mail", Window: at(0, 400, 600, 400), Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Archive", 10, 10))}})
	mailTab := e.WaitTab(t, "https://mail.example.com/")
	e.Browser.Open(9, coretest.Page{URL: "https://docs.example.com/", Title: "Notes — Docs", Window: at(100, 100, 200, 200), Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, "Publish", 10, 10))}})
	docsTab := e.WaitTab(t, "https://docs.example.com/")
	for _, tab := range []string{shopTab, docsTab} {
		if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int{7, 8, 9} {
		e.Browser.SetFocused(id, false)
	}
	chromium := executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 6000}
	e.Exec.SetWindows([]executor.Window{
		{App: fixtureApp, Title: "Fixture", X: 0, Y: 0, W: 600, H: 400, Active: true},
		{App: chromium, Title: "Cart — Shop - Chromium", X: 600, Y: 0, W: 600, H: 400},
		{App: chromium, Title: "Inbox — Mail - Chromium", X: 0, Y: 400, W: 600, H: 400},
		{App: chromium, Title: "Notes — Docs - Chromium", X: 100, Y: 100, W: 200, H: 200}, // under the fixture
	})
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Elements, `"Press me"`) {
		t.Errorf("the window in front is not read: %q", v.Elements)
	}
	if !strings.Contains(v.Tabs, "tab "+shopTab+" (open to you)") || !regexp.MustCompile(`button "Place order" \[ref=e\d+\]`).MatchString(v.Tabs) {
		t.Errorf("the shared tab on screen is not in the view: %q", v.Tabs)
	}
	for _, leak := range []string{"Archive", "Inbox", "tab " + mailTab, "Publish", "tab " + docsTab} {
		if strings.Contains(v.Tabs, leak) {
			t.Errorf("the view holds %q, of a tab not open to the agent or not on screen: %q", leak, v.Tabs)
		}
	}
}

// Each part of a desktop view says how long before the answer it was read;
// one read more than 2 s before is marked: here a slow application kept
// the answer back, and the window list, read first, may have changed.
func TestADesktopViewMarksWhatWasReadLongBeforeTheAnswer(t *testing.T) {
	var clock atomic.Int64
	base := time.Now()
	e := coretest.New(t, coretest.Options{Now: func() time.Time { return base.Add(time.Duration(clock.Load())) }})
	if err := e.SetShare(vocab.DesktopKey, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	e.Exec.SetFrontmost(fixtureApp)
	e.Read.SetAccessible(fixtureApp.PID, fixtureTree("Press me"))
	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	ctx := context.Background()
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Ages) != 2 || v.Ages[0].Part != "the window list" || v.Ages[0].Stale || v.Ages[1].Stale {
		t.Fatalf("ages of a quick read: %+v, want the window list and the window in front, neither stale", v.Ages)
	}
	e.Read.WhileReading = func(int) { clock.Add(int64(3 * time.Second)) }
	if v, err = agent.Desktop(ctx); err != nil {
		t.Fatal(err)
	}
	if len(v.Ages) != 2 || !v.Ages[0].Stale || v.Ages[0].Age != 3*time.Second || v.Ages[1].Stale {
		t.Fatalf("ages after a 3 s read of the window in front: %+v, want the window list stale at 3s, the window in front not", v.Ages)
	}
}

// A desktop view keeps to the budget it is given, saying what it left out,
// and gives every element when asked for no limit.
func TestADesktopViewKeepsToItsBudget(t *testing.T) {
	e, agent := desktopRig(t)
	big := fixtureTree("Press me")
	for i := range 300 {
		big.Root.Children = append(big.Root.Children, gdesktop.Element{ID: fmt.Sprintf("/w/m%d", i), Role: "push button", Name: fmt.Sprintf("Message number %d", i), State: gdesktop.States{Enabled: true, Showing: true}, Box: gdesktop.Rect{X: 10, Y: 100, W: 100, H: 20}})
	}
	e.Read.SetAccessible(fixtureApp.PID, big)
	ctx := context.Background()
	cut, err := agent.DesktopWith(ctx, agentdoor.DesktopOptions{MaxChars: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Elements) > 2000 || !strings.Contains(cut.Elements, "Message number 0") || strings.Contains(cut.Elements, "Message number 299") || !strings.Contains(cut.Elements, "left out") {
		t.Errorf("a view cut to 2000 characters is %d long:\n%s", len(cut.Elements), cut.Elements)
	}
	whole, err := agent.DesktopWith(ctx, agentdoor.DesktopOptions{MaxChars: agentdoor.NoBudget})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole.Elements, `"Message number 299"`) {
		t.Errorf("a view with no limit lacks the last element (%d characters)", len(whole.Elements))
	}
}
