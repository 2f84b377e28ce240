package executor

import (
	"os"
	"strings"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// A window made after the list of windows is a new dialog of the process
// the X server says made it, whatever its _NET_WM_PID claims; it has the
// focus only while the X input focus is on it, and is shown only while
// mapped.
func TestX11FindsTheNewDialogByTheServersWordAndItsFocus(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	before, err := r.ex.shownWindows()
	if err != nil {
		t.Fatal(err)
	}
	if news, err := r.ex.newDialogs(before); err != nil || len(news) != 0 {
		t.Fatalf("new dialogs before any came up: %+v, %v", news, err)
	}
	win := r.w.app("Dialog", 100, 100, 300, 200)
	news, err := r.ex.newDialogs(before)
	if err != nil {
		t.Fatal(err)
	}
	if len(news) != 1 || news[0].id != uint64(win) || news[0].app.PID != os.Getpid() || news[0].title != "Dialog — window" {
		t.Fatalf("new dialogs %+v, want the window of this process", news)
	}
	// A window that says it is another process's is still this one's.
	pid := make([]byte, 4)
	xgb.Put32(pid, 1)
	must(t, xproto.ChangePropertyChecked(r.w.conn, xproto.PropModeReplace, win, r.w.atom("_NET_WM_PID"), xproto.AtomCardinal, 32, 1, pid).Check())
	news, err = r.ex.newDialogs(before)
	if err != nil {
		t.Fatal(err)
	}
	if len(news) != 1 || news[0].app.PID != os.Getpid() || !strings.Contains(news[0].app.Name, "claiming pid 1") {
		t.Fatalf("a window claiming pid 1: %+v, want this process named as claiming it", news)
	}
	c := news[0].chooser
	must(t, xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusNone, r.w.root, xproto.TimeCurrentTime).Check())
	if ok, err := r.ex.chooserFocused(c); err != nil || ok {
		t.Errorf("focused with the focus on the root: %v, %v", ok, err)
	}
	must(t, xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusNone, win, xproto.TimeCurrentTime).Check())
	if ok, err := r.ex.chooserFocused(c); err != nil || !ok {
		t.Errorf("not focused with the focus on it: %v, %v", ok, err)
	}
	must(t, xproto.SetInputFocusChecked(r.w.conn, xproto.InputFocusNone, xproto.Window(xproto.InputFocusPointerRoot), xproto.TimeCurrentTime).Check())
	if ok, err := r.ex.chooserFocused(c); err != nil || ok {
		t.Errorf("focused with the focus following the pointer: %v, %v", ok, err)
	}
	if shown, err := r.ex.chooserShown(c); err != nil || !shown {
		t.Errorf("not shown while mapped: %v, %v", shown, err)
	}
	must(t, xproto.UnmapWindowChecked(r.w.conn, win).Check())
	if shown, err := r.ex.chooserShown(c); err != nil || shown {
		t.Errorf("shown once unmapped: %v, %v", shown, err)
	}
}

// The X server's word on a new window: the window it is a dialog for
// (WM_TRANSIENT_FOR) and its role (WM_WINDOW_ROLE), which tell GTK's file
// chooser for the window clicked from a popup of the same process.
func TestX11ReadsWhichWindowANewOneIsForAndItsRole(t *testing.T) {
	r := newX11Rig(t, startDisplay(t, 1))
	browser := r.w.app("Chromium", 0, 0, 600, 400)
	before, err := r.ex.shownWindows()
	if err != nil {
		t.Fatal(err)
	}
	clicked, err := r.ex.clickedWindow(point{100, 100})
	if err != nil || clicked != uint64(browser) {
		t.Fatalf("clicked window %d, %v; want the browser's %d", clicked, err, browser)
	}
	setProp := func(w xproto.Window, name string, typ xproto.Atom, format byte, value []byte) {
		t.Helper()
		n := uint32(len(value))
		if format == 32 {
			n /= 4
		}
		must(t, xproto.ChangePropertyChecked(r.w.conn, xproto.PropModeReplace, w, r.w.atom(name), typ, format, n, value).Check())
	}
	chooserWin := r.w.app("Chooser", 100, 50, 400, 300)
	owner := make([]byte, 4)
	xgb.Put32(owner, uint32(browser))
	setProp(chooserWin, "WM_TRANSIENT_FOR", xproto.AtomWindow, 32, owner)
	setProp(chooserWin, "WM_WINDOW_ROLE", xproto.AtomString, 8, []byte("GtkFileChooserDialog"))
	popup := r.w.app("Popup", 620, 50, 300, 200)
	setProp(popup, "WM_WINDOW_ROLE", xproto.AtomString, 8, []byte("pop-up"))

	news, err := r.ex.newDialogs(before)
	if err != nil {
		t.Fatal(err)
	}
	got := map[xproto.Window]dialogFit{}
	for _, d := range news {
		got[xproto.Window(d.id)] = fitOf(d, App{PID: os.Getpid()}, clicked, r.ex.chooserRole())
		switch xproto.Window(d.id) {
		case chooserWin:
			if d.forWindow != uint64(browser) || d.role != "GtkFileChooserDialog" {
				t.Errorf("the chooser read as a dialog for %d of role %q", d.forWindow, d.role)
			}
		case popup:
			if d.forWindow != 0 || d.role != "pop-up" {
				t.Errorf("the popup read as a dialog for %d of role %q", d.forWindow, d.role)
			}
		}
	}
	if len(news) != 2 || got[chooserWin] != fitChooser || got[popup] != fitForNone {
		t.Errorf("new windows judged %v, want the chooser %d the dialog and the popup %d not", got, chooserWin, popup)
	}
}
