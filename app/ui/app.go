package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// Options configures [Start].
type Options struct {
	App      fyne.App        // required: made by the main with fyne's app package
	Engine   persondoor.Door // required
	Clock    Clock           // optional: default the wall clock
	Settings Settings        // optional: facts shown in preferences and first run
	// Tray reports whether this session can have a tray item at all (on
	// Linux: a D-Bus session bus; on macOS: always). Without it the tray is
	// never started and a small window stands in with the same menu.
	Tray bool
	// TrayHost says whether a tray host shows the item: its first value,
	// which must be ready when Start or New is called, says it now, then
	// one value per change (trayhost.Watch gives these). While it says
	// false the stand-in window shows; a host that appears hides it again.
	// Optional: nil means a host is there whenever Tray is.
	TrayHost <-chan bool
	// AfterTrayIcon is called on fyne's goroutine after each change of the
	// tray's icon; on macOS it makes the icon a template image. Optional.
	AfterTrayIcon func(fyne.Resource)
	// FirstRun's callbacks: reveal the extension, open URLs, the clipboard
	// and the Accessibility check. Its Engine and Settings are filled in.
	FirstRun FirstRunOptions
	OnQuit   func() // optional: called before the app quits
	Logf     func(format string, args ...any)

	testOnlyDo func(func()) // runs engine events on the UI's goroutine; default fyne.Do
}

// UI is the running person's door: it renders the engine's events and sends
// the person's decisions back.
type UI struct {
	opts     Options
	app      fyne.App
	popup    *Popup
	popupWin fyne.Window
	popupUp  bool // the popup's window is shown
	strip    *ActivityStrip
	stripWin fyne.Window
	auditWin fyne.Window
	audit    *AuditViewer
	prefsWin fyne.Window
	prefs    *Preferences
	first    *FirstRun
	firstWin fyne.Window
	standIn  fyne.Window // the tray's stand-in, while no tray host shows the item
	standUp  bool        // the stand-in is shown
	hostUp   bool        // a tray host shows the item
	shown    bool        // Show has run: windows may appear
	trayMenu *fyne.Menu  // the one menu handed to the tray, refilled in place
	trayKey  string      // the state trayMenu was built from
	stop     func()
	icon     Icon
	handoff  *HandoffPanel // tabs handed to the person; see handoff.go
	handWin  fyne.Window   // its window, once a hand-off showed it
	handUp   bool          // handWin is shown
	// menuGate lets a choice of the tray's menu (or of the stand-in) that
	// shares, allows, resumes or ends a hand-off with Done take effect only
	// after the person's own click; menuRefused says why the last one did
	// nothing. See trayGate.
	menuGate    *gate
	menuRefused string
	selfTest    selfTestView // the self-test's window; see selftest.go
}

// Start is [New] followed by [UI.Show], for a UI started while the app
// runs (and for tests).
func Start(opts Options) *UI {
	u := New(opts)
	u.Show()
	return u
}

// New follows the engine and hands the tray its icon and menu, but shows no
// window yet. Call it on the main goroutine before the app runs: fyne
// starts the tray only if it has a menu by then. Call [UI.Show] once the
// app has started.
func New(opts Options) *UI {
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	u := &UI{opts: opts, app: opts.App, icon: -1}
	opts.App.Settings().SetTheme(NewTheme())
	u.popup = NewPopup(PopupOptions{
		Engine: opts.Engine, Clock: opts.Clock, Logf: opts.Logf,
		Timeout: opts.Engine.Settings().ApprovalTimeout, RememberFor: opts.Engine.Settings().RememberFor,
		OnShow: u.showPopup, OnHide: u.hidePopup,
	})
	u.handoff = NewHandoffPanel(HandoffOptions{Engine: opts.Engine, Clock: opts.Clock, Logf: opts.Logf,
		OnShow: u.showHandoff, OnHide: u.hideHandoff})
	u.strip = NewActivityStrip()
	u.strip.SetTabs(opts.Engine.Tabs())
	// The tray's menu is drawn by the panel, another program: Reins learns
	// of a choice over D-Bus, where any program may send one, and never
	// sees the click. What it can see is the person's own clicks, so it
	// watches them — buttons alone, never a key — for as long as it runs,
	// and a choice that gives power takes effect only within a moment of
	// one.
	u.menuGate = newGate(opts.Engine, persondoor.PressOptions{Within: gateWithin}, opts.Logf)
	u.menuGate.start()

	do := opts.testOnlyDo
	if do == nil {
		do = fyne.Do
	}
	u.hostUp = opts.Tray
	if opts.Tray && opts.TrayHost != nil {
		select {
		case up, ok := <-opts.TrayHost:
			u.hostUp = up && ok
		default:
			u.hostUp = false
		}
		go func() {
			for up := range opts.TrayHost {
				do(func() { u.setHost(up) })
			}
		}()
	}
	events, stop := opts.Engine.Subscribe(512)
	u.stop = stop
	go func() {
		for ev := range events {
			do(func() { u.handle(ev) })
		}
	}()
	u.popup.Sync(opts.Engine.Pending())
	u.handoff.Sync()
	u.refreshTray()
	return u
}

// Show shows what should be on screen once the app runs: the stand-in when
// no tray host shows the item, and the first run when nothing has
// connected yet. On macOS call it after the Dock icon is hidden.
func (u *UI) Show() {
	u.shown = true
	u.refreshTray()
	if !u.opts.Engine.Connected() && len(u.opts.Engine.Agents()) == 0 {
		u.ShowFirstRun()
	}
}

// Stop stops following the engine.
func (u *UI) Stop() {
	u.stop()
	u.menuGate.stop()
}

// MenuRefused is why the last choice of the menu that gives power did
// nothing, or "".
func (u *UI) MenuRefused() string { return u.menuRefused }

// personsChoice reports whether a choice of the menu that gives power
// (what: "Sharing", "Resuming agents"…) follows the person's own click; if
// not, the person is told why, and nothing changes.
func (u *UI) personsChoice(what string) bool {
	ok, why := u.menuGate.pass(what)
	if ok {
		u.menuRefused = ""
		return true
	}
	u.menuRefused = why
	u.app.SendNotification(fyne.NewNotification("Reins: nothing changed", why))
	return false
}

// Popup is the approval popup, for tests that drive it.
func (u *UI) Popup() *Popup { return u.popup }

// PopupWindow is the popup's window once a request has shown it, else nil.
func (u *UI) PopupWindow() fyne.Window { return u.popupWin }

// StandIn is the window that stands in for the tray, or nil if it was
// never needed.
func (u *UI) StandIn() fyne.Window { return u.standIn }

// StandInShown reports whether the stand-in window is on screen.
func (u *UI) StandInShown() bool { return u.standUp }

// setHost follows the tray host: the stand-in hides while a host shows the
// item and comes back when the host goes away.
func (u *UI) setHost(up bool) {
	if up == u.hostUp {
		return
	}
	u.hostUp = up
	u.opts.Logf("%s", hostLine(up))
	u.refreshTray()
}

func hostLine(up bool) string {
	if up {
		return "a tray host appeared; Reins is in the tray"
	}
	return "the tray host went away; a small Reins window stands in for the menu"
}

func (u *UI) handle(ev persondoor.Event) {
	switch ev.Kind {
	case persondoor.EventApproval:
		if ev.Request != nil {
			u.popup.Add(ev.Request)
		}
	case persondoor.EventActDone:
		if ev.Request != nil {
			u.popup.ActDone(ev.Request.ID)
		}
	case persondoor.EventApprovalEnd:
		if ev.Request != nil {
			u.popup.End(ev.Request.ID)
		}
	case persondoor.EventActivity:
		if ev.Activity != nil {
			u.strip.Add(ev.Tab, *ev.Activity)
		}
		return
	case persondoor.EventTabs, persondoor.EventShare:
		u.strip.SetTabs(u.opts.Engine.Tabs())
		u.handoff.Sync()
	case persondoor.EventHandoff, persondoor.EventHandoffEnd:
		u.handoff.Sync()
	case persondoor.EventSettings:
		s := u.opts.Engine.Settings()
		u.popup.SetDurations(s.ApprovalTimeout, s.RememberFor)
		if u.prefs != nil {
			u.prefs.Refresh()
		}
		return
	}
	if u.first != nil {
		u.first.Refresh()
	}
	u.refreshTray()
}

// TrayItems is the tray menu as it stands.
func (u *UI) TrayItems() []Item {
	e := u.opts.Engine
	return BuildTray(ReadTrayState(e), TrayActions{
		SetShare: func(tab string, l vocab.Level) {
			if l != vocab.None && !u.personsChoice("Sharing") {
				return
			}
			if err := e.SetShare(tab, l); err != nil {
				u.opts.Logf("sharing %s: %v", tab, err)
			}
			u.refreshTray()
		},
		ShareWith: func(tab string, l vocab.Level, agent string) {
			if l != vocab.None && !u.personsChoice("Sharing") {
				return
			}
			if err := e.ShareWith(tab, l, agent); err != nil {
				u.opts.Logf("sharing %s with %s: %v", tab, agent, err)
			}
			u.refreshTray()
		},
		AllowAgent: func(key string) {
			if u.personsChoice("Allowing an agent") {
				e.AllowAgent(key)
			}
		},
		ForgetAgent:  func(key string) { e.ForgetAgent(key) },
		Install:      u.ShowFirstRun,
		ShowPending:  u.showPopup,
		ShowActivity: u.ShowActivity,
		ShowAudit:    u.ShowAudit,
		SetPaused: func(on bool) {
			if !on && !u.personsChoice("Resuming agents") {
				return
			}
			e.Pause(on)
			u.refreshTray()
		},
		ShowPrefs:    u.ShowPreferences,
		ShowFirstRun: u.ShowFirstRun,
		RunSelfTest:  u.selfTestItem(),
		Quit:         u.quit,
		Handoff: func(id string, done bool) {
			if done && !u.personsChoice("Done") {
				return
			}
			u.handoff.Finish(id, done)
		},
		ShowHandoff: u.handoff.Show,
	})
}

func (u *UI) refreshTray() {
	state := ReadTrayState(u.opts.Engine)
	icon := IconFor(state)
	d, tray := u.app.(desktop.App)
	tray = tray && u.opts.Tray
	// The menu is rebuilt only when what it shows changed: a host rebuilds
	// an open menu under the person's pointer on every change, and opening
	// the menu alone changes which window has the focus.
	items := u.TrayItems()
	key := menuKey(state, items)
	if u.trayMenu == nil || key != u.trayKey {
		fresh := FyneMenu(items)
		if u.trayMenu == nil {
			u.trayMenu = fresh
		} else {
			// fyne keeps the first menu it was given and refreshes from it
			// once its tray is ready: the same menu, refilled, never goes stale.
			u.trayMenu.Items = fresh.Items
		}
		u.trayKey = key
		if tray {
			if icon != u.icon {
				// The icon first: an item whose first icon is not a PNG
				// shows empty on Linux hosts.
				u.setTrayIcon(d, icon)
			}
			d.SetSystemTrayMenu(u.trayMenu)
		}
		if u.standIn != nil {
			u.standIn.SetContent(widget.NewMenu(u.trayMenu))
			u.standIn.Resize(u.standIn.Content().MinSize())
		}
	}
	if tray && icon != u.icon {
		u.setTrayIcon(d, icon)
	}
	u.icon = icon
	u.placeStandIn(tray && u.hostUp)
}

// menuKey is what the tray menu shows, and the tabs its items act on.
func menuKey(state TrayState, items []Item) string {
	var b strings.Builder
	for _, t := range state.Tabs {
		b.WriteString(t.ID + "\x00")
	}
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			fmt.Fprintf(&b, "%q %t %t %t %t [", it.Label, it.Disabled, it.Checked, it.Separator, it.Quit)
			walk(it.Children)
			b.WriteString("]")
		}
	}
	walk(items)
	return b.String()
}

func (u *UI) setTrayIcon(d desktop.App, icon Icon) {
	res := TrayIcon(icon)
	d.SetSystemTrayIcon(res)
	u.icon = icon
	if u.opts.AfterTrayIcon != nil {
		u.opts.AfterTrayIcon(res)
	}
}

// placeStandIn shows the stand-in window while no tray host shows the item,
// and hides it while one does. Before Show nothing appears.
func (u *UI) placeStandIn(inTray bool) {
	if !u.shown {
		return
	}
	if inTray {
		if u.standUp {
			u.standIn.Hide()
			u.standUp = false
		}
		return
	}
	if u.standIn == nil {
		u.standIn = u.app.NewWindow("Reins")
		u.standIn.SetIcon(TrayIcon(IconConnected))
		u.standIn.SetCloseIntercept(u.quit)
		u.standIn.SetContent(widget.NewMenu(u.trayMenu))
		u.standIn.Resize(u.standIn.Content().MinSize())
	}
	if !u.standUp {
		u.standIn.Show()
		u.standUp = true
	}
}

func (u *UI) quit() {
	if u.opts.OnQuit != nil {
		u.opts.OnQuit()
	}
	u.app.Quit()
}

// showPopup shows the popup's window with the request on screen. With none
// (nothing waits, or the popup rests after an Allow) it does nothing: the
// popup calls it again when the rest ends.
func (u *UI) showPopup() {
	if u.popup.Current() == nil {
		return
	}
	if u.popupWin == nil {
		w := u.app.NewWindow("Reins — approval")
		w.SetContent(u.popup.Content())
		w.Resize(PopupSize)
		w.SetFixedSize(true)
		w.Canvas().SetOnTypedKey(u.popup.TypedKey)
		w.SetCloseIntercept(u.closePopup)
		u.popupWin = w
	}
	u.rememberFront()
	u.popupWin.Show()
	u.popupUp = true
	u.floatPopup()
	u.popupWin.RequestFocus()
}

// closePopup is the popup window's close button. Closing the popup is a
// no, like silence; it hides the way an answer does, giving the keyboard
// back.
func (u *UI) closePopup() {
	u.popup.DenyAll()
	u.hidePopup()
}

// hidePopup hides the popup's window and gives the keyboard back to the
// application the person was using.
func (u *UI) hidePopup() {
	if u.popupWin == nil || !u.popupUp {
		return
	}
	u.popupWin.Hide()
	u.popupUp = false
	u.giveBackFront()
}

// ShowActivity opens the activity strip.
func (u *UI) ShowActivity() {
	if u.stripWin == nil {
		u.stripWin = u.window("Reins — Activity", u.strip.Content(), fyne.NewSize(460, 560))
	}
	u.stripWin.Show()
	u.stripWin.RequestFocus()
}

// ShowAudit opens the audit viewer.
func (u *UI) ShowAudit() {
	if u.auditWin == nil {
		u.audit = NewAuditViewer(AuditViewerOptions{Engine: u.opts.Engine, Clock: u.opts.Clock, Export: u.export})
		u.auditWin = u.window("Reins — Audit log", u.audit.Content(), fyne.NewSize(1080, 620))
	} else {
		u.audit.Reload()
	}
	u.auditWin.Show()
	u.auditWin.RequestFocus()
}

// ShowPreferences opens the preferences.
func (u *UI) ShowPreferences() {
	if u.prefsWin == nil {
		u.prefs = NewPreferences(u.opts.Engine, u.opts.Settings)
		u.prefs.gate.logf = u.opts.Logf
		// Scrolls only on a short screen; the whole form is 850 pt tall.
		u.prefsWin = u.window("Reins — Preferences", container.NewVScroll(u.prefs.Content()),
			fyne.NewSize(580, min(u.prefs.Content().MinSize().Height, 760)))
		w := u.prefsWin
		w.SetCloseIntercept(func() { u.prefs.Hidden(); w.Hide() })
	} else {
		u.prefs.Refresh()
	}
	u.prefs.Shown()
	u.prefsWin.Show()
	u.prefsWin.RequestFocus()
}

// ShowFirstRun opens the getting-started steps.
func (u *UI) ShowFirstRun() {
	if u.firstWin == nil {
		fo := u.opts.FirstRun
		fo.Engine, fo.Settings = u.opts.Engine, u.opts.Settings
		if fo.Copy == nil {
			fo.Copy = func(s string) { u.app.Clipboard().SetContent(s) }
		}
		u.first = NewFirstRun(fo)
		u.firstWin = u.window("Welcome to Reins", u.first.Content(), fyne.NewSize(560, 600))
	}
	u.first.Refresh()
	u.firstWin.Show()
	u.firstWin.RequestFocus()
}

// window makes a window that hides rather than closes, so it keeps its state.
func (u *UI) window(title string, content fyne.CanvasObject, size fyne.Size) fyne.Window {
	w := u.app.NewWindow(title)
	w.SetContent(content)
	w.Resize(size)
	w.SetCloseIntercept(w.Hide)
	return w
}

// export saves the audit rows shown where the person picks.
func (u *UI) export(data []byte) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		defer w.Close()
		if _, err := w.Write(data); err != nil {
			dialog.ShowError(err, u.auditWin)
		}
	}, u.auditWin)
	d.SetFileName("reins-audit.jsonl")
	d.Show()
}
