package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/persondoor"
)

// selfTestView is the self-test's window: what the test says as it runs,
// then its report.
type selfTestView struct {
	win     fyne.Window
	status  *widget.Label
	table   *widget.TextGrid
	copyBtn *widget.Button
	running bool
	report  *persondoor.SelfTestReport
}

// selfTestItem is what the tray's "Run self-test…" does, or nil when the
// engine has no self-test.
func (u *UI) selfTestItem() func() {
	if _, ok := u.opts.Engine.(persondoor.SelfTester); !ok {
		return nil
	}
	return u.RunSelfTest
}

// RunSelfTest starts the self-test from the menu: the person allows it in
// the popup, as any act; its window shows each check as it ends, then the
// table, which is also in the data folder.
func (u *UI) RunSelfTest() {
	tester, ok := u.opts.Engine.(persondoor.SelfTester)
	if !ok {
		return
	}
	v := u.selfTestWindow()
	v.win.Show()
	if v.running {
		return
	}
	v.running, v.report = true, nil
	v.copyBtn.Disable()
	v.status.SetText("The self-test asks for your approval first, in Reins' popup. Then it clicks, types, scrolls and drags for about half a minute in a small window of its own; leave the mouse and keyboard alone meanwhile.")
	v.table.SetText("")
	var lines []string
	progress := func(ev persondoor.SelfTestEvent) {
		u.runOnUI(func() {
			switch {
			case ev.Check != nil:
				lines = append(lines, fmt.Sprintf("%-6s %s", ev.Check.Result, ev.Check.Name))
			case ev.Say != "":
				lines = append(lines, ev.Say)
			}
			v.table.SetText(strings.Join(lines, "\n"))
		})
	}
	go func() {
		rep, err := tester.SelfTest(context.Background(), persondoor.SelfTestOptions{Tray: u.SelfTestTray, Progress: progress})
		u.runOnUI(func() {
			v.running = false
			if err != nil {
				v.status.SetText("The self-test did not run: " + err.Error())
				return
			}
			v.report = &rep
			v.status.SetText(selfTestSummary(rep))
			v.table.SetText(persondoor.FormatSelfTest(rep))
			v.copyBtn.Enable()
			v.win.Show()
			v.win.RequestFocus()
		})
	}()
}

// runOnUI runs f on the UI's goroutine, as the engine's events are run.
func (u *UI) runOnUI(f func()) {
	if u.opts.testOnlyDo != nil {
		u.opts.testOnlyDo(f)
		return
	}
	fyne.Do(f)
}

func (u *UI) selfTestWindow() *selfTestView {
	v := &u.selfTest
	if v.win != nil {
		return v
	}
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.table = widget.NewTextGrid()
	v.copyBtn = widget.NewButton("Copy the report", func() {
		if v.report == nil {
			return
		}
		b, err := json.MarshalIndent(v.report, "", "  ")
		if err == nil {
			u.app.Clipboard().SetContent(string(b))
		}
	})
	v.copyBtn.Disable()
	content := container.NewBorder(v.status, container.NewHBox(v.copyBtn), nil, nil, container.NewScroll(v.table))
	v.win = u.window("Reins — Self-test", content, fyne.NewSize(900, 560))
	return v
}

// selfTestSummary is the report's one-line verdict for the window's head.
func selfTestSummary(r persondoor.SelfTestReport) string {
	where := ""
	if r.File != "" {
		where = " The report is in " + r.File + "."
	}
	if failed := r.Failed(); len(failed) > 0 {
		return fmt.Sprintf("%d of %d checks failed: %s.%s", len(failed), len(r.Checks), strings.Join(failed, ", "), where)
	}
	return fmt.Sprintf("Every check passed or was skipped.%s", where)
}

// SelfTestTray is the tray's own account of its item, for the self-test:
// whether the item is set and a host shows it, or the stand-in window
// stands in. Call it off fyne's goroutine.
func (u *UI) SelfTestTray() persondoor.SelfTestCheck {
	var c persondoor.SelfTestCheck
	fyne.DoAndWait(func() {
		items := 0
		if u.trayMenu != nil {
			items = len(u.trayMenu.Items)
		}
		icon := "none yet"
		if u.icon >= 0 {
			icon = u.icon.String()
		}
		switch {
		case u.opts.Tray && u.hostUp:
			c = persondoor.SelfTestCheck{Result: persondoor.SelfTestPass,
				Saw: fmt.Sprintf("Reins set its icon (%s) and a menu of %d items, and a tray host shows them", icon, items)}
		case u.standUp:
			c = persondoor.SelfTestCheck{Result: persondoor.SelfTestFail,
				Saw: "no tray host shows Reins' item; a small window stands in for the menu"}
		default:
			c = persondoor.SelfTestCheck{Result: persondoor.SelfTestFail,
				Saw: "the tray item is not shown, and neither is the window that stands in for it"}
		}
	})
	return c
}
