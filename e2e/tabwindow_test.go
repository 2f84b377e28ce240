package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// popupKeysPage opens a popup window of its own once five keys have
// reached its field: what a page may do with the user activation Reins'
// own typing gives it, to take the keyboard mid-act.
const popupKeysPage = `<!doctype html>
<html><head><title>Popup keys page</title></head>
<body>
<input id="notes" aria-label="Notes" style="width: 600px">
<script>
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
let n = 0, opened = false;
document.getElementById('notes').addEventListener('keydown', (e) => {
  n++;
  report({type: 'key', key: e.key, trusted: e.isTrusted});
  if (n === 5 && !opened) {
    opened = true;
    window.open('/bait.html', 'bait', 'popup,width=320,height=240,left=820,top=80');
  }
});
addEventListener('load', () => report({type: 'loaded', page: 'popupkeys'}));
</script>
</body></html>`

// baitPage is the popup: it takes the focus and counts every key it sees.
const baitPage = `<!doctype html>
<html><head><title>Bait</title></head>
<body>
<input id="bait" aria-label="Bait" autofocus>
<script>
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
addEventListener('keydown', (e) => report({type: 'baitkey', key: e.key, trusted: e.isTrusted}), true);
addEventListener('load', () => { window.focus(); document.getElementById('bait').focus(); report({type: 'baitopened'}); });
</script>
</body></html>`

// dropPage has a card dragged with pointer events and a ticket dragged
// with HTML drag and drop, each with a zone to drop it on; the page's own
// handlers say when each drag began and where each was let go of.
const dropPage = `<!doctype html>
<html><head><title>Drop test page</title>
<style>
  body { margin: 0; font: 16px sans-serif; }
  .thing { position: absolute; left: 40px; width: 140px; height: 60px; background: #acf; }
  .zone { position: absolute; left: 420px; width: 220px; height: 160px; border: 2px dashed #444; }
</style></head>
<body>
<div id="card" class="thing" style="top:100px" role="button" aria-label="Card" tabindex="0">Card</div>
<div id="done" class="zone" style="top:60px" role="button" aria-label="Done column" tabindex="0">Done</div>
<div id="ticket" class="thing" style="top:330px" draggable="true" role="button" aria-label="Ticket" tabindex="0">Ticket</div>
<div id="archive" class="zone" style="top:290px" role="button" aria-label="Archive" tabindex="0">Archive</div>
<script>
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
const card = document.getElementById('card');
let dragging = false;
card.addEventListener('pointerdown', (e) => { dragging = e.isTrusted; card.setPointerCapture(e.pointerId); report({type: 'began', how: 'pointer'}); });
card.addEventListener('pointerup', (e) => {
  if (!dragging) return;
  dragging = false;
  const under = document.elementsFromPoint(e.clientX, e.clientY).map((n) => n.id);
  report({type: 'dropped', how: 'pointer', on: under.includes('done') ? 'done' : under[0] || ''});
});
const ticket = document.getElementById('ticket'), archive = document.getElementById('archive');
ticket.addEventListener('dragstart', (e) => { e.dataTransfer.setData('text/plain', 'ticket'); report({type: 'began', how: 'html5'}); });
archive.addEventListener('dragover', (e) => e.preventDefault());
archive.addEventListener('drop', (e) => { e.preventDefault(); report({type: 'dropped', how: 'html5', on: 'archive'}); });
addEventListener('load', () => report({type: 'loaded', page: 'drop'}));
</script>
</body></html>`

// zoneDrops are the drops the page saw on a drop zone: with the xterm over
// every zone, each is a drop under the xterm.
func zoneDrops(w *browsertest.Witness) []map[string]any {
	var out []map[string]any
	for _, d := range w.Events("dropped") {
		if d["on"] == "done" || d["on"] == "archive" {
			out = append(out, d)
		}
	}
	return out
}

// controlledWith is rig.controlled for a page that needs more files.
func (r *rig) controlledWith(name string, files map[string]string) *sdk.ClientSession {
	r.t.Helper()
	path := "/" + name + ".html"
	r.origin = browsertest.Serve(r.t, r.witness, files)
	r.browser = browsertest.Start(r.t, browsertest.Options{X: r.x, DataDir: r.data, Reins: reinsBinary.path, URL: r.origin + path, Width: 1200, Height: 780})
	who := "e2e " + name + " agent"
	coretest.Admitted(r.t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: who, Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	r.tab = r.pairedTab(r.origin + path)
	r.wait(context.Background(), "loaded", func(m map[string]any) bool { return m["page"] == name })
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		r.t.Fatal(err)
	}
	return agentThroughMCP(r.t, r.rt, r.data, sdk.Implementation{Name: who, Version: "1"})
}

// TestAPopupThatTakesTheKeysGetsNone has an agent type, through the real
// reins mcp, a long text the person allowed into a real page that opens a
// popup of the same browser process after five keys, which takes the
// keyboard: typing stops there with focus_moved, the popup's own handlers
// see no key, and no key is left down.
func TestAPopupThatTakesTheKeysGetsNone(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	cs := r.controlledWith("popupkeys", map[string]string{"/popupkeys.html": popupKeysPage, "/bait.html": baitPage})
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	text := strings.Repeat("abcdefghij", 8)
	out := mcptest.Refused(t, cs, "browser_type", map[string]any{"ref": mcptest.Ref(t, snap, "textbox", "Notes"), "text": text}, vocab.CodeFocusMoved)
	if !strings.Contains(out, "(pid ") || !strings.Contains(out, "input events") {
		t.Errorf("the answer does not say who took the keys and how far typing went: %s", out)
	}
	r.wait(context.Background(), "baitopened", func(map[string]any) bool { return true })
	settle() // any key that reached the popup has reported by now
	if keys := r.witness.Events("baitkey"); len(keys) != 0 {
		t.Errorf("%d keys reached the popup: %v", len(keys), keys)
	}
	page := 0
	for _, k := range r.witness.Events("key") {
		if k["trusted"] == true {
			page++
		}
	}
	if page < 5 || page >= len(text) {
		t.Errorf("the page saw %d keys; want the 5 before its popup, and not all %d", page, len(text))
	}
	if down := keysDown(t, r.display); len(down) > 0 {
		t.Errorf("keys %v are left down", down)
	}
	rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: string(vocab.Type), Limit: 1})
	if len(rows) != 1 || rows[0].Code != vocab.CodeFocusMoved {
		t.Errorf("the typing's outcome row %+v, want %s", rows, vocab.CodeFocusMoved)
	}
	t.Logf("the page saw %d of %d keys; answer: %s", page, len(text), out)
	r.assertFiredChecked()
}

// TestADropOntoAWindowOverThePageIsRefused drags, through the real reins
// mcp, onto drop zones that a real xterm lies over: placed there before
// the act, or shown once the drag has begun (with pointer events, and
// with HTML drag and drop, whose drag picture Chromium shows under the
// pointer). Nothing is let go of over the xterm: the answer is
// not_in_tab_window, naming it, and the page's own handlers see no drop
// on a zone.
func TestADropOntoAWindowOverThePageIsRefused(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	cs := r.controlledWith("drop", map[string]string{"/drop.html": dropPage})
	// Over the page's right part, where both zones are (page x ≥ 420 in a
	// window at the screen's left edge); the things dragged stay
	// uncovered.
	term := startXterm(t, r.display, "200x80+400+0")
	drag := func(t *testing.T, from, to string) string {
		t.Helper()
		snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
		out := mcptest.Refused(t, cs, "browser_drag", map[string]any{"ref": mcptest.Ref(t, snap, "button", from), "to": mcptest.Ref(t, snap, "button", to)}, vocab.CodeNotInTabWindow)
		if !strings.Contains(out, "XTerm (pid ") {
			t.Errorf("the refusal does not name the xterm: %s", out)
		}
		settle()
		if drops := zoneDrops(r.witness); len(drops) != 0 {
			t.Errorf("the page saw drops under the xterm: %v", drops)
		}
		if down := keysDown(t, r.display); len(down) > 0 {
			t.Errorf("keys %v are left down", down)
		}
		t.Logf("answer: %s", out)
		return out
	}

	t.Run("an xterm over the drop zone before the drag", func(t *testing.T) {
		out := drag(t, "Card", "Done column")
		if !strings.Contains(out, "under the drag's end") || len(r.witness.Events("began")) != 0 {
			t.Errorf("the drag began: %s", out)
		}
	})
	for _, c := range []struct{ how, from, to string }{
		{"pointer", "Card", "Done column"},
		{"html5", "Ticket", "Archive"},
	} {
		t.Run("an xterm shown over the drop zone once a drag began, "+c.how, func(t *testing.T) {
			if err := term.show(false); err != nil {
				t.Fatal(err)
			}
			r.witness.Reset("began")
			shown := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				if _, err := r.witness.Wait(ctx, "began", func(m map[string]any) bool { return m["how"] == c.how }); err != nil {
					shown <- err
					return
				}
				shown <- term.show(true)
			}()
			out := drag(t, c.from, c.to)
			if err := <-shown; err != nil {
				t.Fatalf("the xterm was not shown once the drag began: %v", err)
			}
			if !strings.Contains(out, "under the release") {
				t.Errorf("the refusal does not say the release was stopped: %s", out)
			}
		})
	}
	r.assertFiredChecked()
}

// TestKeysWithTheFocusInAnotherWindowAreRefused presses Enter through the
// real reins mcp while another X window holds the keyboard focus: Reins
// asks the X server, not only the page, and refuses before the person is
// asked; the window gets no key.
func TestKeysWithTheFocusInAnotherWindowAreRefused(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	cs := r.controlledWith("popupkeys", map[string]string{"/popupkeys.html": popupKeysPage, "/bait.html": baitPage})
	term := startXterm(t, r.display, "40x10+900+500")
	term.focus(t)
	asked := r.asked()
	out := mcptest.Refused(t, cs, "browser_press_key", map[string]any{"key": "Enter"}, vocab.CodeFocusMoved)
	if !strings.Contains(out, "XTerm (pid ") {
		t.Errorf("the refusal does not name the window with the focus: %s", out)
	}
	if n := r.asked() - asked; n != 0 {
		t.Errorf("the person was asked %d times", n)
	}
	settle()
	if n := term.keys(t); n != 0 {
		t.Errorf("the xterm with the focus got %d keys", n)
	}
	if keys := r.witness.Events("key"); len(keys) != 0 {
		t.Errorf("the page saw keys: %v", keys)
	}
}

// xterm is a real xterm on the test's display, another program than
// Reins and the browser, whose windows a connection of the test's watches
// for the keys they get.
type xterm struct {
	cmd  *exec.Cmd
	conn *xgb.Conn
	id   xproto.Window // its top-level window
	mark xproto.Window // an unmapped window of the test's that carries sync markers
	done chan struct{}

	mu    sync.Mutex
	nKeys int                      // guarded by mu
	marks map[uint32]chan struct{} // guarded by mu
	nmark uint32                   // guarded by mu
}

// startXterm runs xterm at geometry (columns x rows + x + y), shown in
// front of the others, and waits for its window.
func startXterm(t *testing.T, display, geometry string) *xterm {
	t.Helper()
	bin := testenv.NeedCommand(t, "xterm")
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	x := &xterm{conn: c, done: make(chan struct{}), marks: map[uint32]chan struct{}{}}
	scr := xproto.Setup(c).DefaultScreen(c)
	if x.mark, err = xproto.NewWindowId(c); err != nil {
		t.Fatal(err)
	}
	if err := xproto.CreateWindowChecked(c, 0, x.mark, scr.Root, 0, 0, 1, 1, 0, xproto.WindowClassInputOutput, scr.RootVisual, 0, nil).Check(); err != nil {
		t.Fatal(err)
	}
	before := map[xproto.Window]bool{}
	if tree, err := xproto.QueryTree(c, scr.Root).Reply(); err == nil {
		for _, w := range tree.Children {
			before[w] = true
		}
	}
	x.cmd = exec.Command(bin, "-geometry", geometry, "-e", "sleep", "600")
	x.cmd.Env = append(os.Environ(), "DISPLAY="+display)
	testenv.OwnGroup(x.cmd)
	if err := x.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { x.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		testenv.StopGroup(x.cmd, 2*time.Second, func() { <-exited })
		c.Close()
		<-x.done
	})
	testenv.WaitWithin(t, 20*time.Second, "xterm's window", func() bool {
		tree, err := xproto.QueryTree(c, scr.Root).Reply()
		if err != nil {
			return false
		}
		for _, w := range tree.Children {
			if before[w] {
				continue
			}
			class, err := xproto.GetProperty(c, false, w, xproto.AtomWmClass, xproto.AtomString, 0, 64).Reply()
			attrs, aerr := xproto.GetWindowAttributes(c, w).Reply()
			if err == nil && aerr == nil && strings.HasPrefix(string(class.Value), "xterm\x00") && attrs.MapState == xproto.MapStateViewable {
				x.id = w
				return true
			}
		}
		return false
	})
	// Its keys, wherever in it they go.
	var watch func(w xproto.Window)
	watch = func(w xproto.Window) {
		xproto.ChangeWindowAttributes(c, w, xproto.CwEventMask, []uint32{xproto.EventMaskKeyPress})
		if tree, err := xproto.QueryTree(c, w).Reply(); err == nil {
			for _, ch := range tree.Children {
				watch(ch)
			}
		}
	}
	watch(x.id)
	go func() {
		defer close(x.done)
		for {
			ev, xerr := c.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
			x.mu.Lock()
			switch v := ev.(type) {
			case xproto.KeyPressEvent:
				x.nKeys++
			case xproto.ClientMessageEvent:
				if ch, ok := x.marks[v.Data.Data32[0]]; ok {
					close(ch)
					delete(x.marks, v.Data.Data32[0])
				}
			}
			x.mu.Unlock()
		}
	}()
	return x
}

// show maps xterm's window again, or hides it.
func (x *xterm) show(shown bool) error {
	if shown {
		return xproto.MapWindowChecked(x.conn, x.id).Check()
	}
	return xproto.UnmapWindowChecked(x.conn, x.id).Check()
}

// focus gives xterm the keyboard focus, as a click in it would.
func (x *xterm) focus(t *testing.T) {
	t.Helper()
	if err := xproto.SetInputFocusChecked(x.conn, xproto.InputFocusPointerRoot, x.id, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
}

// keys is how many key presses reached xterm's windows so far.
func (x *xterm) keys(t *testing.T) int {
	t.Helper()
	x.mu.Lock()
	x.nmark++
	n := x.nmark
	ch := make(chan struct{})
	x.marks[n] = ch
	x.mu.Unlock()
	// A message sent to itself arrives after every event sent before it.
	msg := xproto.ClientMessageEvent{
		Format: 32, Window: x.mark, Type: xproto.AtomNotice,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{n, 0, 0, 0, 0}),
	}
	if err := xproto.SendEventChecked(x.conn, false, x.mark, 0, string(msg.Bytes())).Check(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("xterm's events did not arrive")
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.nKeys
}
