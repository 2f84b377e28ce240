package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// FireUpload lets an upload through the checked executor as Fire: its row
// must be committed before the click that opens the file dialog.
func (c *checkedExecutor) FireUpload(ctx context.Context, t audit.Ticket) error {
	if err := c.committed(t.Seq()); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, err)
		c.mu.Unlock()
		return err
	}
	c.fired.Add(1)
	return executor.Upload(ctx, c.Executor, t)
}

// uploadPage has a file input whose own handler reports, to the witness and
// on the page, the name and size of the file it received.
const uploadPage = `<!doctype html>
<html><head><title>Upload test page</title>
<style>body { margin: 0; font: 16px sans-serif; } #f { position: absolute; left: 60px; top: 80px; }</style></head>
<body>
<label for="f">Invoice file</label>
<input type="file" id="f">
<p id="got" style="position:absolute; left:60px; top:160px">Nothing chosen yet</p>
<script>
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
const input = document.getElementById('f');
input.addEventListener('change', (e) => {
  const f = input.files[0];
  document.getElementById('got').textContent = f ? 'Received ' + f.name + ', ' + f.size + ' bytes' : 'Nothing chosen';
  f.text().then((text) => report({type: 'chosen', name: f.name, size: f.size, text, trusted: e.isTrusted}));
});
addEventListener('load', () => report({type: 'loaded', page: 'upload'}));
</script>
</body></html>`

// TestFileUpload gives, through the real reins mcp, a file input in real
// Chromium a file by its path, with GTK's own file dialog under Xvfb and no
// window manager: the person is asked once with the file's name, size and
// folder, the upload's row is committed before the click, the page's own
// handler receives the file's name, size and contents, and the answer
// quotes the page naming it. A key under ~/.ssh is refused before anyone
// is asked. The home folder is made for the test.
func TestFileUpload(t *testing.T) { uploadThroughGTK(t, false) }

// TestFileUploadUnderAWindowManager is TestFileUpload with openbox managing
// the windows, which puts the dialog in a frame of its own and hands the
// focus on in its own way.
func TestFileUploadUnderAWindowManager(t *testing.T) { uploadThroughGTK(t, true) }

func uploadThroughGTK(t *testing.T, wm bool) {
	// Built before HOME moves: go build keeps its cache under the home
	// folder, and a fresh one would build everything again.
	reinsBinaryFor(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GTK_USE_PORTAL", "0")
	docs := filepath.Join(home, "Documents")
	invoice := filepath.Join(docs, "invoice-2026.txt")
	const text = "Invoice 2026: 3 widgets, 42 EUR\n"
	key := filepath.Join(home, ".ssh", "id_ed25519")
	for p, body := range map[string]string{invoice: text, key: "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	r := reinsOn(t, "1280x800x24", 10*time.Second)
	if wm {
		startWindowManager(t, r.x.Display)
	}
	ctx := context.Background()
	cs := r.controlled("upload", uploadPage)
	asked := r.asked()
	questions := make(chan vocab.Request, 8)
	events, stop := r.rt.Subscribe(64)
	defer stop()
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval && ev.Request.Act.Kind == vocab.Upload {
				questions <- *ev.Request
			}
		}
	}()

	t.Run("a key is refused before anyone is asked", func(t *testing.T) {
		snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
		ref := mcptest.Ref(t, snap, "button", "Invoice file")
		out := mcptest.Refused(t, cs, "browser_file_upload", map[string]any{"ref": ref, "paths": []string{"~/.ssh/id_ed25519"}}, vocab.CodePathRefused)
		if !strings.Contains(out, "SSH keys") {
			t.Errorf("the refusal does not say why: %s", out)
		}
		if n := r.asked() - asked; n != 0 {
			t.Errorf("the person was asked %d times about a key", n)
		}
		rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: string(vocab.Upload), Outcome: vocab.OutcomeRefused})
		if len(rows) != 1 || rows[0].Code != vocab.CodePathRefused {
			t.Errorf("want one refusal row, got %+v", rows)
		}
	})

	t.Run("the page receives the file through GTK's dialog", func(t *testing.T) {
		asked := r.asked()
		snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
		ref := mcptest.Ref(t, snap, "button", "Invoice file")
		focus := watchDialogFocus(t, r.x.Display)
		out := mcptest.MustCall(t, cs, "browser_file_upload", map[string]any{"ref": ref, "paths": []string{invoice}, "element": "the invoice file input"})
		seen, focused, ok := focus()
		if ok {
			t.Logf("window manager %v: the dialog had the keyboard focus %s after its window was first seen mapped", wm, focused-seen)
		} else {
			t.Logf("window manager %v: the dialog's focus was not seen by the test's own poller", wm)
		}
		t.Logf("answer:\n%s", out)
		m := r.wait(ctx, "chosen", func(map[string]any) bool { return true })
		if m["name"] != "invoice-2026.txt" || m["size"] != float64(len(text)) || m["text"] != text {
			t.Errorf("the page received %v, want invoice-2026.txt of %d bytes with its text", m, len(text))
		}
		if want := "Done: Upload “invoice-2026.txt” (32 bytes) from the folder “" + docs + "” through “Invoice file”"; !strings.Contains(out, want) {
			t.Errorf("the answer does not say %q", want)
		}
		if !strings.Contains(out, "Received invoice-2026.txt, 32 bytes") {
			t.Errorf("the answer does not quote the page naming the file")
		}
		if n := r.asked() - asked; n != 1 {
			t.Errorf("the person was asked %d times, want once", n)
		}
		select {
		case q := <-questions:
			if q.Risk == "" || q.Act.File.Path != invoice || !strings.Contains(q.Sentence(), "“invoice-2026.txt” (32 bytes)") {
				t.Errorf("the person was asked %q (warning %q), want the file's name, size and resolved path, with the warning", q.Sentence(), q.Risk)
			}
		default:
			t.Error("the person's question was not seen")
		}
		rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: string(vocab.Upload), Limit: 2})
		if len(rows) != 2 || rows[0].Outcome != vocab.OutcomeDone || rows[1].Phase != audit.PhaseFire {
			t.Errorf("upload rows %+v, want the fire row then done", rows)
		}
	})
	r.assertFiredChecked()
}

// startWindowManager runs openbox on display until the test ends, in its
// own process group, and waits until it manages the screen.
func startWindowManager(t *testing.T, display string) {
	t.Helper()
	bin := testenv.NeedCommand(t, "openbox")
	cmd := exec.Command(bin, "--sm-disable")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { testenv.StopGroup(cmd, 2*time.Second, func() { <-done }) })
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := xproto.Setup(c).DefaultScreen(c).Root
	check, err := xproto.InternAtom(c, false, uint16(len("_NET_SUPPORTING_WM_CHECK")), "_NET_SUPPORTING_WM_CHECK").Reply()
	if err != nil {
		t.Fatal(err)
	}
	testenv.WaitWithin(t, 10*time.Second, "openbox to manage the screen", func() bool {
		p, err := xproto.GetProperty(c, false, root, check.Atom, xproto.AtomWindow, 0, 1).Reply()
		return err == nil && p.ValueLen == 1
	})
}

// watchDialogFocus watches display from now on, on a connection of its
// own, for a new top-level window to be mapped and for the keyboard focus
// to land in it; the returned func stops watching and says when each was
// first seen.
func watchDialogFocus(t *testing.T, display string) func() (seen, focused time.Duration, ok bool) {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	tree, err := xproto.QueryTree(c, root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	before := map[xproto.Window]bool{}
	for _, w := range tree.Children {
		before[w] = true
	}
	start := time.Now()
	quit, done := make(chan struct{}), make(chan struct{})
	var seen, focused time.Duration
	go func() {
		defer close(done)
		var dialog xproto.Window
		for {
			select {
			case <-quit:
				return
			default:
			}
			if dialog == 0 {
				tree, err := xproto.QueryTree(c, root).Reply()
				if err != nil {
					return
				}
				for _, w := range tree.Children {
					if a, err := xproto.GetWindowAttributes(c, w).Reply(); !before[w] && err == nil && a.MapState == xproto.MapStateViewable && a.Class == xproto.WindowClassInputOutput {
						dialog, seen = w, time.Since(start)
						break
					}
				}
			}
			if dialog != 0 {
				f, err := xproto.GetInputFocus(c).Reply()
				if err != nil {
					return
				}
				for w := f.Focus; w != 0 && w != root && w != xproto.Window(xproto.InputFocusPointerRoot); {
					if w == dialog {
						focused = time.Since(start)
						return
					}
					q, err := xproto.QueryTree(c, w).Reply()
					if err != nil {
						break
					}
					w = q.Parent
				}
			}
			time.Sleep(time.Millisecond) // a poller of its own, not a wait on the act
		}
	}()
	return func() (time.Duration, time.Duration, bool) {
		close(quit)
		<-done
		c.Close()
		return seen, focused, focused > 0
	}
}
