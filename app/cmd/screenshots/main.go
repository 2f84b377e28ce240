// Command screenshots renders each Reins window with fyne's test driver into
// PNG files, for review: `go run ./app/cmd/screenshots -out DIR`. The
// approval popup shows a real Chromium capture of a small shop page
// (testdata/shop.png, made with `chromium --headless --screenshot` from
// testdata/shop.html). The last picture is of a real desktop under Xvfb:
// xfce4-panel with Reins' icon and its menu open, taken from the screen
// (-desktop=false leaves it out).
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

//go:embed testdata/shop.png
var shopPNG []byte

// The "Place order" button in shop.png, in its pixels (shop.html places it).
const boxX, boxY, boxW, boxH = 488, 280, 220, 44

func main() {
	out := flag.String("out", "screenshots", "folder for the PNG files")
	scale := flag.Float64("scale", 2, "pixels per point")
	desktop := flag.Bool("desktop", true, "also take the picture of a real desktop with Reins in its tray (Linux, with Xvfb and xfce4-panel)")
	flag.Parse()
	if err := run(*out, float32(*scale), *desktop); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

func run(out string, scale float32, desktop bool) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	a := test.NewApp()
	a.Settings().SetTheme(ui.NewTheme())
	now := time.Date(2025, 11, 29, 14, 32, 10, 0, time.Local)
	clock := ui.NewFakeClock(now)
	s := newScene(clock, now)
	for _, w := range s.windows() {
		img := capture(w.content, w.size, scale)
		path := filepath.Join(out, w.name+".png")
		if err := writePNG(path, img); err != nil {
			return err
		}
		fmt.Println(path)
	}
	if !desktop {
		return nil
	}
	path := filepath.Join(out, "desktop-tray-menu.png")
	switch err := desktopShot(path); {
	case errors.Is(err, errNoDesktop):
		fmt.Fprintln(os.Stderr, "screenshots: skipping the desktop picture:", err)
	case err != nil:
		return err
	default:
		fmt.Println(path)
	}
	return nil
}

type shot struct {
	name    string
	content fyne.CanvasObject
	size    fyne.Size
}

func capture(content fyne.CanvasObject, size fyne.Size, scale float32) image.Image {
	w := test.NewWindow(content)
	defer w.Close()
	w.SetPadded(false)
	c := w.Canvas().(test.WindowlessCanvas)
	c.SetScale(scale)
	// A window never shows smaller than its content's least size: the
	// desktop grows a fixed-size window to it, and so does the picture.
	size = size.Max(content.MinSize())
	w.Resize(size)
	return c.Capture()
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type scene struct {
	clock *ui.FakeClock
	now   time.Time
	eng   *ui.FakeEngine
}

func newScene(clock *ui.FakeClock, now time.Time) *scene {
	return &scene{clock: clock, now: now, eng: ui.NewFakeEngine()}
}

func claude() vocab.Agent {
	return vocab.Agent{Name: "Claude Code", Version: "2.0.14", PID: 4121, Exe: "/usr/local/bin/claude", Session: "s1"}
}

// placeOrder is a click on the shop's "Place order" button as the broker
// puts it to the person: its label is on the risk table, so it carries the
// table's warning (these words are the table's) and "allow on this tab" is
// not offered.
func (s *scene) placeOrder(id string) vocab.Request {
	r := vocab.Request{ID: id, Agent: claude(), Act: vocab.Act{Kind: vocab.Click}, Picture: shopPNG, Asked: s.now.Add(-6 * time.Second),
		Risk: "Its label says it buys, pays, sends or deletes, so it is asked every time. " +
			"The page or application wrote that label and Reins can miss such buttons: look before you allow."}
	r.Target.Tab, r.Target.TabTitle, r.Target.Origin = "3", "Cart — Shop", "https://shop.example.com"
	r.Target.Role, r.Target.Name, r.Target.Ref = "button", "Place order", "e41"
	ui.SetBox(&r, boxX, boxY, boxW, boxH)
	return r
}

func (s *scene) windows() []shot {
	var out []shot
	e := s.eng
	e.SetTabs(
		vocab.TabInfo{ID: "3", Title: "Cart — Shop", URL: "https://shop.example.com/cart", Origin: "https://shop.example.com", Level: vocab.Control, Connected: true, Active: true},
		vocab.TabInfo{ID: "4", Title: "Inbox (2) — Mail", URL: "https://mail.example.com/", Origin: "https://mail.example.com", Level: vocab.None, Connected: true},
		vocab.TabInfo{ID: "7", Title: "Quarterly report — Docs", URL: "https://docs.example.com/d/91", Origin: "https://docs.example.com", Level: vocab.ReadOnly, Connected: true},
	)
	e.SetAgents(
		persondoor.AgentInfo{Key: "Claude Code · /usr/local/bin/claude", Name: "Claude Code", PID: 4121, Exe: "/usr/local/bin/claude", Allowed: true, Sessions: 1},
		persondoor.AgentInfo{Key: "Codex · /opt/homebrew/bin/codex", Name: "Codex", PID: 5230, Exe: "/opt/homebrew/bin/codex", Sessions: 1, Asking: true},
	)

	// The approval popup, with three acts waiting.
	p := ui.NewPopup(ui.PopupOptions{Engine: e, Clock: s.clock, Timeout: 30 * time.Second})
	for _, r := range []vocab.Request{s.placeOrder("a1"), s.placeOrder("a2"), s.placeOrder("a3")} {
		e.Ask(r)
	}
	p.Sync(e.Pending())
	s.clock.Advance(ui.ArmDelay)
	out = append(out, shot{"approval-popup", p.Content(), ui.PopupSize})

	// A password, typed: the text is never shown, and nothing is remembered.
	pw := vocab.Request{ID: "b1", Agent: claude(), Act: vocab.Act{Kind: vocab.Type, Text: "correct horse battery", Secret: true}, Asked: s.now.Add(-3 * time.Second),
		Risk: "Typing into a password or payment field is asked every time; only the length is shown."} // the risk table's words
	pw.Target.Tab, pw.Target.TabTitle, pw.Target.Origin, pw.Target.FrameOrigin = "3", "Checkout — Shop", "https://shop.example.com", "https://pay.example-payments.com"
	pw.Target.Role, pw.Target.Name = "textbox", "Card security code"
	ui.SetBox(&pw, 520, 300, 180, 36)
	// Chrome gave no picture: the popup draws the page from the snapshot's boxes.
	pw.Sketch = &vocab.Sketch{W: 1200, H: 700, Boxes: []vocab.SketchBox{
		{X: 60, Y: 24, W: 140, H: 28, Role: "link"}, {X: 880, Y: 24, W: 120, H: 28, Role: "link"}, {X: 1020, Y: 24, W: 120, H: 28, Role: "button"},
		{X: 120, Y: 120, W: 380, H: 36, Role: "textbox"}, {X: 520, Y: 120, W: 380, H: 36, Role: "textbox"},
		{X: 120, Y: 210, W: 780, H: 36, Role: "textbox"}, {X: 120, Y: 300, W: 380, H: 36, Role: "textbox"},
		{X: 520, Y: 300, W: 180, H: 36, Role: "textbox"}, {X: 120, Y: 390, W: 24, H: 24, Role: "checkbox"},
		{X: 160, Y: 392, W: 300, H: 20, Role: "generic"}, {X: 120, Y: 470, W: 200, H: 44, Role: "button"},
		{X: 960, Y: 120, W: 200, H: 300, Role: "region"},
	}}
	p2 := ui.NewPopup(ui.PopupOptions{Engine: e, Clock: s.clock, Timeout: 30 * time.Second})
	p2.Add(&pw)
	out = append(out, shot{"approval-popup-secret-in-frame", p2.Content(), ui.PopupSize})

	// Text with line breaks, each an Enter: shown as ⏎, counted, and whole.
	note := vocab.Request{ID: "t1", Agent: claude(), Act: vocab.Act{Kind: vocab.Type, Clear: true,
		Text: "Please gift-wrap the mug.\nLeave it with the neighbour at no. 12 if nobody answers.\n"}, Picture: shopPNG, Asked: s.now.Add(-2 * time.Second)}
	note.Target.Tab, note.Target.TabTitle, note.Target.Origin = "3", "Cart — Shop", "https://shop.example.com"
	note.Target.Role, note.Target.Name = "textbox", "Delivery note"
	ui.SetBox(&note, 420, 330, 180, 40)
	pt := ui.NewPopup(ui.PopupOptions{Engine: e, Clock: s.clock, Timeout: 30 * time.Second})
	pt.Add(&note)
	out = append(out, shot{"approval-popup-typed-lines", pt.Content(), ui.PopupSize})

	// A plan of three steps, one of them always asked on its own.
	pl := vocab.Request{ID: "p1", Agent: claude(), Act: vocab.Act{Kind: vocab.Plan, Text: "Check the sizes, then place the order", Steps: 3}, Picture: shopPNG, Asked: s.now.Add(-4 * time.Second),
		Target: vocab.Target{Tab: "3", TabTitle: "Cart — Shop", Origin: "https://shop.example.com"}}
	step := func(kind vocab.ActKind, ref, role, name, reason string, b vocab.Box) vocab.PlanStep {
		return vocab.PlanStep{Act: vocab.Act{Kind: kind, Plan: "p1", Steps: 3}, Target: vocab.Target{Tab: "3", TabTitle: "Cart — Shop", Origin: "https://shop.example.com", Ref: ref, Role: role, Name: name}, Reason: reason, Box: &b}
	}
	pl.Plan = []vocab.PlanStep{
		step(vocab.Hover, "e12", "link", "Linen shirt", "see the size", vocab.Box{X: 124, Y: 116, W: 92, H: 20}),
		step(vocab.Hover, "e15", "link", "Canvas tote", "see the colour", vocab.Box{X: 124, Y: 205, W: 102, H: 20}),
		step(vocab.Click, "e41", "button", "Place order", "", vocab.Box{X: boxX, Y: boxY, W: boxW, H: boxH}),
	}
	pl.Plan[2].Risk = s.placeOrder("x").Risk
	p4 := ui.NewPopup(ui.PopupOptions{Engine: e, Clock: s.clock, Timeout: 42 * time.Second})
	p4.Add(&pl)
	s.clock.Advance(ui.ArmDelay)
	out = append(out, shot{"approval-popup-plan", p4.Content(), ui.PopupSize})

	// A new agent's first connection.
	cn := vocab.Request{ID: "c1", Agent: vocab.Agent{Name: "Codex", PID: 5230, Exe: "/opt/homebrew/bin/codex"}, Act: vocab.Act{Kind: vocab.Connect}, Asked: s.now.Add(-2 * time.Second)}
	p3 := ui.NewPopup(ui.PopupOptions{Engine: e, Clock: s.clock, Timeout: 30 * time.Second})
	p3.Add(&cn)
	s.clock.Advance(ui.ArmDelay)
	out = append(out, shot{"approval-popup-new-agent", p3.Content(), ui.PopupSize})

	// The tray menu, with the Tabs submenu and one tab's share levels open.
	items := ui.BuildTray(ui.TrayState{Tabs: e.Tabs(), Desktop: vocab.None, Agents: e.Agents(), Pending: 2, Connected: true}, ui.TrayActions{})
	out = append(out, shot{"tray-menu", ui.MenuPreview(items, []int{3, 0}, ui.IconWaiting), fyne.Size{}})

	// The activity strip of the shop tab.
	strip := ui.NewActivityStrip()
	strip.SetTabs(e.Tabs())
	who := vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"}.Label()
	add := func(ago time.Duration, act, outcome, code, detail string) {
		strip.Add("3", persondoor.Activity{Time: s.now.Add(-ago), Agent: who, Act: act, Outcome: outcome, Code: code, Detail: detail})
	}
	add(9*time.Minute, "Read", vocab.OutcomeRefused, vocab.CodeShareRequired, "")
	for i := 0; i < 12; i++ {
		add(8*time.Minute-time.Duration(i)*time.Second, "Read", vocab.OutcomeRefused, vocab.CodeShareRequired, "")
	}
	add(6*time.Minute, "Read", vocab.OutcomeRead, "", "")
	add(5*time.Minute, "Click “Checkout”", vocab.OutcomeRefused, vocab.CodeControlRequired, "")
	add(4*time.Minute, "Click “Checkout”", vocab.OutcomeDone, "", "")
	add(3*time.Minute, "Type “Ada Lovelace” into “Name on card”", vocab.OutcomeDone, "", "")
	add(150*time.Second, "Click “Apply coupon”", vocab.OutcomeRefused, vocab.CodeStaleRef, "")
	add(2*time.Minute, "Click “Remove”", vocab.OutcomeDenied, vocab.CodeDenied, "")
	add(90*time.Second, "Press Meta+Q", vocab.OutcomeRefused, vocab.CodeDenyListed, "a deny-listed application is in the way: 1Password is in front (deny list: 1Password); nothing was fired")
	add(30*time.Second, "Click “Place order”", vocab.OutcomeTimeout, vocab.CodeTimeout, "")
	out = append(out, shot{"activity-strip", strip.Content(), fyne.NewSize(460, 720)})

	// The audit viewer.
	s.auditRows()
	av := ui.NewAuditViewer(ui.AuditViewerOptions{Engine: e, Clock: s.clock, Export: func([]byte) {}})
	av.Verify()
	out = append(out, shot{"audit-viewer", av.Content(), fyne.NewSize(1080, 600)})

	// Preferences and first run.
	facts := ui.Settings{
		BridgePort: 48211, GlobalKeys: true,
		DataDir: "~/Library/Application Support/Reins", Executable: "/Applications/Reins.app/Contents/MacOS/reins",
	}
	prefsEngine := ui.NewFakeEngine()
	prefsEngine.SetSettings(settings.Settings{
		ApprovalTimeout: 30 * time.Second, RememberFor: 10 * time.Minute,
		DenyList:  []string{"Reins", "1Password", "Keychain Access", "Passwords", "System Settings", "Authentication dialog", "Bitwarden", "KeePassXC", "Dashlane", "LastPass"},
		DenyAdded: []string{"Signal", "com.example.BankApp"},
	})
	prefsEngine.SetOpenApps("Google Chrome", "Mail", "Slack", "Terminal")
	prefs := ui.NewPreferences(prefsEngine, facts).Content()
	out = append(out, shot{"preferences", prefs, fyne.NewSize(580, prefs.MinSize().Height)})
	fresh := ui.NewFakeEngine()
	fresh.SetConnected(true)
	fr := ui.NewFirstRun(ui.FirstRunOptions{Settings: facts, Engine: fresh, GOOS: "darwin", Accessibility: func() bool { return false }})
	out = append(out, shot{"first-run", fr.Content(), fyne.NewSize(580, 740)})
	return out
}

func (s *scene) auditRows() {
	seq := int64(100)
	row := func(ago time.Duration, agent string, pid int, exe, origin, kind, act, role, name, phase, outcome, code, decision string) {
		seq++
		s.eng.AddRows(persondoor.AuditRow{Seq: seq, Time: s.now.Add(-ago), AgentName: agent, AgentPID: pid, AgentExe: exe, Tab: "3",
			Origin: origin, ActKind: kind, Act: []byte(act), TargetRole: role, TargetName: name, Phase: phase, Outcome: outcome, Code: code, Decision: decision})
	}
	const cl, ex = "/usr/local/bin/claude", "/opt/homebrew/bin/codex"
	shop, mail := "https://shop.example.com", "https://mail.example.com"
	row(20*time.Minute, "person", 0, "", shop, "share", `{"kind":"share"}`, "", "", "record", "done", "", "")
	row(19*time.Minute, "Claude Code", 4121, cl, shop, "read", `{"kind":"read"}`, "", "", "record", "read", "", "")
	row(17*time.Minute, "Codex", 5230, ex, mail, "read", `{"kind":"read"}`, "", "", "record", "refused", "grant_required", "")
	row(15*time.Minute, "Claude Code", 4121, cl, shop, "click", `{"kind":"click"}`, "button", "Checkout", "fire", "about_to_fire", "", "allowed once")
	row(15*time.Minute, "Claude Code", 4121, cl, shop, "click", `{"kind":"click"}`, "button", "Checkout", "outcome", "done", "", "")
	row(12*time.Minute, "Claude Code", 4121, cl, shop, "type", `{"kind":"type","text_length":4,"secret":true}`, "textbox", "Card security code", "record", "denied", "denied_by_user", "denied")
	row(9*time.Minute, "Claude Code", 4121, cl, shop, "click", `{"kind":"click"}`, "button", "Apply coupon", "record", "refused", "stale_ref", "")
	row(6*time.Minute, "Claude Code", 4121, cl, shop, "key", `{"kind":"key","keys":"Meta+Q"}`, "", "", "record", "refused", "deny_listed_app", "")
	row(3*time.Minute, "Claude Code", 4121, cl, shop, "click", `{"kind":"click"}`, "button", "Place order", "record", "timeout", "approval_timeout", "")
	row(1*time.Minute, "Claude Code", 4121, cl, shop, "navigate", `{"kind":"navigate","url":"https://shop.example.com/orders"}`, "", "", "record", "refused", "paused", "")
}
