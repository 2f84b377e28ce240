package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

// popupPage has the popups a page may open with the activation Reins'
// click gives it: an "Attach invoice" button that opens a popup window
// instead of a file chooser, a file input whose click opens a popup
// ("Contract file"), and one whose click asks for a popup right after
// the chooser ("Invoice file").
const popupPage = `<!doctype html>
<html><head><title>Popup upload page</title>
<style>body { margin: 0; font: 16px sans-serif; }
#pop { position: absolute; left: 60px; top: 40px; }
#f { position: absolute; left: 60px; top: 120px; }
</style></head>
<body>
<button id="pop">Attach invoice</button>
<label for="f" style="position:absolute; left:60px; top:95px">Invoice file</label>
<input type="file" id="f">
<label for="h" style="position:absolute; left:360px; top:95px">Contract file</label>
<input type="file" id="h" style="position:absolute; left:360px; top:120px">
<label for="g" style="position:absolute; left:60px; top:175px">Receipt file</label>
<input type="file" id="g" style="position:absolute; left:60px; top:200px">
<script>
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
function openPopup() {
  const popup = window.open('', '', 'popup');
  if (popup) {
    popup.document.write('<title>Popup window</title><input autofocus>');
    popup.document.close();
  }
  report({type: 'popup', opened: !!popup});
}
document.getElementById('pop').addEventListener('click', openPopup);
const input = document.getElementById('f');
input.addEventListener('click', () => setTimeout(openPopup, 0));
document.getElementById('h').addEventListener('click', openPopup);
for (const i of [input, document.getElementById('g'), document.getElementById('h')]) {
  i.addEventListener('change', () => report({type: 'chosen', id: i.id, name: i.files[0] ? i.files[0].name : ''}));
}
addEventListener('load', () => report({type: 'loaded', page: 'popupupload'}));
</script>
</body></html>`

// TestAnUploadTypesIntoNoWindowButTheFileChooser attacks the upload through
// the real reins mcp in real Chromium under Xvfb: the element the agent
// names opens a popup window of the browser instead of a file chooser, or
// the page opens a popup in the click on its file input, or asks for one
// right after the chooser. Counted as the X server delivers them, no key
// reaches a window that is not the file chooser, and the agent is answered
// no_file_dialog. A real upload on the same page shows, as the X server
// has it, what the chooser is: a window of role GtkFileChooserDialog
// marked as a dialog for the browser window clicked, where the popup is of
// role "pop-up" and names no window.
func TestAnUploadTypesIntoNoWindowButTheFileChooser(t *testing.T) {
	reinsBinaryFor(t) // with the Go commands' own home, and their build cache
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GTK_USE_PORTAL", "0")
	invoice := filepath.Join(home, "Documents", "invoice-2026.txt")
	if err := os.MkdirAll(filepath.Dir(invoice), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(invoice, []byte("Invoice 2026\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	cs := r.controlled("popupupload", popupPage)
	waitFor := func(t *testing.T, typ string, match func(map[string]any) bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if _, err := r.witness.Wait(ctx, typ, match); err != nil {
			t.Fatalf("no %q report: %v", typ, err)
		}
	}
	upload := func(t *testing.T, role, name string) (string, bool, *windowWatch) {
		snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
		ref := mcptest.Ref(t, snap, role, name)
		w := watchWindows(t, r.x.Display)
		out, isErr := mcptest.Call(t, cs, "browser_file_upload", map[string]any{"ref": ref, "paths": []string{invoice}})
		w.stop()
		t.Logf("answer:\n%s\nthe page's popups: %v", out, r.witness.Events("popup"))
		return out, !isErr, w
	}

	t.Run("the chooser is a dialog for the window clicked, of its role", func(t *testing.T) {
		out, ok, w := upload(t, "button", "Receipt file")
		if !ok {
			t.Fatalf("the upload failed: %s", out)
		}
		waitFor(t, "chosen", func(m map[string]any) bool { return m["id"] == "g" && m["name"] == "invoice-2026.txt" })
		t.Logf("the windows that came up:%s", w)
		if n := w.keysOutside(); n != 0 {
			t.Errorf("%d keys went to windows that are not the file chooser", n)
		}
		chooser := w.withRole(chooserRole)
		if chooser == nil {
			t.Fatalf("no window of role %s came up", chooserRole)
		}
		if browser := w.before[chooser.transient]; browser == nil || !strings.Contains(browser.class, "Chromium") || browser.role != "browser" {
			t.Errorf("the chooser is a dialog for window %d, not for the browser's window", chooser.transient)
		}
	})

	t.Run("the element opens a popup instead of a chooser", func(t *testing.T) {
		out, ok, w := upload(t, "button", "Attach invoice")
		waitFor(t, "popup", func(m map[string]any) bool { return m["opened"] == true })
		t.Logf("the windows that came up:%s", w)
		if n := w.keysOutside(); n != 0 {
			t.Errorf("%d keys went to windows that are not the file chooser", n)
		}
		if ok || !strings.Contains(out, vocab.CodeNoFileDialog) {
			t.Errorf("answered %q, want %s", out, vocab.CodeNoFileDialog)
		}
		if w.withRole(chooserRole) != nil {
			t.Error("a file chooser came up")
		}
		closeWindow(t, r.x.Display, w.withRole("pop-up"))
	})

	t.Run("the page opens a popup in the click on its file input", func(t *testing.T) {
		r.witness.Reset("popup")
		out, ok, w := upload(t, "button", "Contract file")
		t.Logf("the windows that came up:%s", w)
		if n := w.keysOutside(); n != 0 {
			t.Errorf("%d keys went to windows that are not the file chooser", n)
		}
		if ok || !strings.Contains(out, vocab.CodeNoFileDialog) {
			t.Errorf("answered %q, want %s", out, vocab.CodeNoFileDialog)
		}
		closeWindow(t, r.x.Display, w.withRole("pop-up"))
	})

	// Chromium lets the file chooser take the activation the click gave
	// the page, so a popup the page asks for once the chooser is up is
	// blocked (Chromium 156: window.open returns null). Were it not, the
	// check of the focus before every key would stop the typing.
	t.Run("the page asks for a popup once the chooser is up", func(t *testing.T) {
		r.witness.Reset("popup")
		r.witness.Reset("chosen")
		out, ok, w := upload(t, "button", "Invoice file")
		waitFor(t, "popup", func(map[string]any) bool { return true })
		t.Logf("the windows that came up:%s", w)
		if n := w.keysOutside(); n != 0 {
			t.Errorf("%d keys went to windows that are not the file chooser", n)
		}
		if p := w.withRole("pop-up"); p != nil {
			if ok || !strings.Contains(out, vocab.CodeNoFileDialog) {
				t.Errorf("a popup came up and the upload answered %q, want %s", out, vocab.CodeNoFileDialog)
			}
			closeWindow(t, r.x.Display, p)
			return
		}
		if !ok {
			t.Fatalf("no popup came up and the upload failed: %s", out)
		}
		waitFor(t, "chosen", func(m map[string]any) bool { return m["id"] == "f" && m["name"] == "invoice-2026.txt" })
	})
	r.assertFiredChecked()
}

// chooserRole is the role GTK 3 gives its file chooser dialog.
const chooserRole = "GtkFileChooserDialog"

// windowWatch notes, from the X server, the top-level windows there when
// it starts and every one mapped since: each one's class, role
// (WM_WINDOW_ROLE) and the window it says it is a dialog for
// (WM_TRANSIENT_FOR), as they are when it is mapped; and the key presses
// each gets, from its making on.
type windowWatch struct {
	c    *xgb.Conn
	keys *xi2Keys
	done chan struct{}

	mu     sync.Mutex
	before map[xproto.Window]*watchedWindow
	came   []*watchedWindow // in the order they were mapped
}

type watchedWindow struct {
	id         xproto.Window
	class      string
	role       string
	transient  xproto.Window
	x, y, w, h int
}

func watchWindows(t *testing.T, display string) *windowWatch {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	w := &windowWatch{c: c, keys: dialXI2Keys(t, display), done: make(chan struct{}), before: map[xproto.Window]*watchedWindow{}}
	root := xproto.Setup(c).DefaultScreen(c).Root
	if err := xproto.ChangeWindowAttributesChecked(c, root, xproto.CwEventMask, []uint32{xproto.EventMaskSubstructureNotify}).Check(); err != nil {
		t.Fatal(err)
	}
	tree, err := xproto.QueryTree(c, root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	for _, win := range tree.Children {
		w.before[win] = w.read(win)
		w.keys.watch(uint32(win))
	}
	go w.run()
	return w
}

// read notes win's class, role and the window it is a dialog for.
func (w *windowWatch) read(win xproto.Window) *watchedWindow {
	str := func(name string) string {
		a, err := xproto.InternAtom(w.c, false, uint16(len(name)), name).Reply()
		if err != nil {
			return ""
		}
		p, err := xproto.GetProperty(w.c, false, win, a.Atom, xproto.GetPropertyTypeAny, 0, 256).Reply()
		if err != nil {
			return ""
		}
		return strings.TrimRight(string(p.Value), "\x00")
	}
	ww := &watchedWindow{id: win, role: str("WM_WINDOW_ROLE"), class: strings.ReplaceAll(str("WM_CLASS"), "\x00", ".")}
	if p, err := xproto.GetProperty(w.c, false, win, xproto.AtomWmTransientFor, xproto.AtomWindow, 0, 1).Reply(); err == nil && len(p.Value) >= 4 {
		ww.transient = xproto.Window(xgb.Get32(p.Value))
	}
	if g, err := xproto.GetGeometry(w.c, xproto.Drawable(win)).Reply(); err == nil {
		ww.x, ww.y, ww.w, ww.h = int(g.X), int(g.Y), int(g.Width), int(g.Height)
	}
	return ww
}

func (w *windowWatch) run() {
	defer close(w.done)
	for {
		ev, err := w.c.WaitForEvent()
		if ev == nil && err == nil {
			return // the connection closed
		}
		switch ev := ev.(type) {
		case xproto.CreateNotifyEvent:
			// Watched from its making: no key can reach it before.
			w.keys.watch(uint32(ev.Window))
		case xproto.MapNotifyEvent:
			if !ev.OverrideRedirect {
				ww := w.read(ev.Window)
				w.mu.Lock()
				w.came = append(w.came, ww)
				w.mu.Unlock()
			}
		}
	}
}

// stop ends the watch once the server has sent every event of what
// happened before it.
func (w *windowWatch) stop() {
	xproto.GetInputFocus(w.c).Reply() // a round trip: the events before it are in
	w.c.Close()
	<-w.done
	w.keys.sync()
	w.keys.stop()
}

// keysOutside is how many key presses went to windows that are not a file
// chooser.
func (w *windowWatch) keysOutside() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	chooser := map[uint32]bool{}
	for _, ww := range w.came {
		if ww.role == chooserRole {
			chooser[uint32(ww.id)] = true
		}
	}
	n := 0
	w.keys.mu.Lock()
	defer w.keys.mu.Unlock()
	for win, k := range w.keys.keys {
		if !chooser[win] {
			n += k
		}
	}
	return n
}

// closeWindow asks win's application to close it, as a window manager's
// close button does (WM_DELETE_WINDOW), and waits until it is gone.
func closeWindow(t *testing.T, display string, win *watchedWindow) {
	t.Helper()
	if win == nil {
		t.Fatal("no window to close")
	}
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	atom := func(name string) xproto.Atom {
		a, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return a.Atom
	}
	ev := xproto.ClientMessageEvent{Format: 32, Window: win.id, Type: atom("WM_PROTOCOLS"),
		Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(atom("WM_DELETE_WINDOW")), xproto.TimeCurrentTime, 0, 0, 0})}
	if err := xproto.SendEventChecked(c, false, win.id, 0, string(ev.Bytes())).Check(); err != nil {
		t.Fatal(err)
	}
	testenv.WaitWithin(t, 10*time.Second, "the popup to close", func() bool {
		a, err := xproto.GetWindowAttributes(c, win.id).Reply()
		return err != nil || a.MapState != xproto.MapStateViewable
	})
}

// withRole is the first window mapped since the watch began with role.
func (w *windowWatch) withRole(role string) *watchedWindow {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ww := range w.came {
		if ww.role == role {
			return ww
		}
	}
	return nil
}

func (w *windowWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, ww := range w.came {
		fmt.Fprintf(&b, "\n  window %d at %d,%d %dx%d: class %q, role %q, a dialog for window %d, %d keys", ww.id, ww.x, ww.y, ww.w, ww.h, ww.class, ww.role, ww.transient, w.keys.count(uint32(ww.id)))
		if p := w.before[ww.transient]; p != nil {
			fmt.Fprintf(&b, " (class %q, role %q)", p.class, p.role)
		}
	}
	fmt.Fprintf(&b, "\n  key presses by window: %s", w.keys)
	return b.String()
}
