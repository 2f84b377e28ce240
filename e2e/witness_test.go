package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// scaledFrames are the frames of scaledPage: same-origin and cross-origin
// iframes in containers scaled by 0.75 and by 1.5.
var scaledFrames = []string{"s75same", "s75cross", "s150same", "s150cross"}

// scaledPage holds four iframes in CSS-scaled containers, one under a
// rotation, a button that covers itself when pressed (its click lands
// elsewhere), a field and a link to another page.
func scaledPage(cross string) string {
	frame := func(name, origin string) string {
		return fmt.Sprintf(`<iframe src="%s/inner.html?%s" title="%s"></iframe>`, origin, name, name)
	}
	return `<!doctype html>
<html><head><title>Scaled frames</title>
<style>
  body { margin: 0; font: 16px sans-serif; }
  .stage { transform-origin: 0 0; width: 720px; }
  #s75 { transform: scale(0.75); height: 150px; }
  #s150wrap { height: 270px; }
  #s150 { transform: scale(1.5); }
  #tilt { transform: rotate(8deg); transform-origin: 0 0; margin: 10px 60px; width: 340px; }
  iframe { width: 320px; height: 120px; border: 4px solid #888; padding: 6px; margin: 6px; vertical-align: top; }
  button, a, input { margin: 6px; }
  button { width: 150px; height: 40px; }
</style></head>
<body>
<div id="s75" class="stage">` + frame("s75same", "") + frame("s75cross", cross) + `</div>
<div id="s150wrap"><div id="s150" class="stage">` + frame("s150same", "") + frame("s150cross", cross) + `</div></div>
<button id="jumpy">Jumpy button</button>
<input id="notes" aria-label="Notes" style="width:200px">
<a id="next" href="/next.html">Next page</a>
<div id="tilt">` + frame("tilted", "") + `</div>
<script>
` + reportJS + `
watch(document.getElementById('jumpy'), 'top');
// A press on the jumpy button lays a sheet over the page: the release, and
// so the click, land on the sheet's parent, not on the button.
document.getElementById('jumpy').addEventListener('pointerdown', () => {
  const sheet = document.createElement('div');
  sheet.id = 'sheet';
  sheet.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,0.02)';
  document.body.appendChild(sheet);
  addEventListener('click', () => sheet.remove(), {once: true});
  report({type: 'sheet'});
});
document.getElementById('notes').addEventListener('input', (e) => report({type: 'input', id: 'notes', value: e.target.value, trusted: e.isTrusted}));
addEventListener('load', () => report({type: 'loaded', page: 'scaled'}));
</script>
</body></html>`
}

// innerPage is a frame with one button, named after the frame.
func innerPage() string {
	return `<!doctype html><html><head><title>Inner</title>
<style>body{margin:0;font:16px sans-serif} button{margin:30px 0 0 40px;width:150px;height:40px}</style></head>
<body><button id="inner">Inner</button>
<script>` + reportJS + `
const name = location.search.slice(1);
const b = document.getElementById('inner');
b.textContent = 'Inner ' + name;
watch(b, name);
addEventListener('load', () => report({type: 'loaded', page: name}));
</script></body></html>`
}

// setupScaled starts Reins (able to misplace every point while misplace
// is set) and Chromium at device scale dsf on scaledPage, the tab shared
// for control.
func setupScaled(t *testing.T, screen string, dsf float64, misplace *atomic.Bool) *rig {
	t.Helper()
	r := reinsWith(t, screen, 10*time.Second, func(o *core.StartOptions) {
		o.TestOnlyMisplace = func(x, y float64) (float64, float64) {
			if misplace.Load() {
				return x + 400, y
			}
			return x, y
		}
	})
	ctx := context.Background()
	r.scale = dsf
	r.cross = browsertest.Serve(t, r.witness, map[string]string{"/inner.html": innerPage()})
	r.origin = browsertest.Serve(t, r.witness, map[string]string{
		"/scaled.html": scaledPage(r.cross), "/inner.html": innerPage(), "/next.html": nextPage(),
	})
	r.browser = browsertest.Start(t, browsertest.Options{
		X: r.x, DeviceScale: dsf, DataDir: r.data, Reins: reinsBinary.path, URL: r.origin + "/scaled.html", Width: 1200, Height: 780,
	})
	r.assertNoProcessesLeft()
	r.agent = coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e witness agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	r.tab = r.pairedTab(r.origin + "/scaled.html")
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "scaled" })
	for _, f := range append(scaledFrames, "tilted") {
		r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == f })
	}
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	return r
}

// clicksIn is how many trusted clicks the page's handlers reported from
// frame.
func (r *rig) clicksIn(frame string) int {
	n := 0
	for _, m := range r.witness.Events("click") {
		if m["frame"] == frame && m["trusted"] == true {
			n++
		}
	}
	return n
}

// clickScaled clicks each scaled frame's button by ref and checks that its
// own handler saw exactly one trusted click, inside the button, and that
// the answer says the click reached it.
func (r *rig) clickScaled(t *testing.T) {
	ctx := context.Background()
	r.witness.Reset("click")
	for _, f := range scaledFrames {
		s := r.snapshot()
		res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Inner "+f), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
		if err != nil {
			t.Fatalf("click in %s: %v", f, err)
		}
		m := r.wait(ctx, "click", func(m map[string]any) bool { return m["frame"] == f && m["trusted"] == true })
		if dx, dy := m["x"].(float64)-m["cx"].(float64), m["y"].(float64)-m["cy"].(float64); dx*dx+dy*dy > 4 {
			t.Errorf("the click in %s landed at (%v, %v), %.1f, %.1f px from the button's centre", f, m["x"], m["y"], dx, dy)
		}
		if want := "the click reached button “Inner " + f + "”"; res.Effect != want || res.Missed {
			t.Errorf("click in %s: effect %q (missed %v), want %q", f, res.Effect, res.Missed, want)
		}
	}
	for _, f := range scaledFrames {
		if n := r.clicksIn(f); n != 1 {
			t.Errorf("the button in %s was clicked %d times, want exactly once", f, n)
		}
	}
	r.assertFiredChecked()
}

// zoomTo sets the page zoom with the browser's own shortcut, as the person
// would, pressing Control+= until the extension reports zoom.
func (r *rig) zoomTo(t *testing.T, zoom float64, presses int) {
	for range presses {
		if err := r.pressRaw("Control+="); err != nil {
			t.Fatal(err)
		}
	}
	testenv.WaitWithin(t, 10*time.Second, fmt.Sprintf("the extension to report zoom %g", zoom), func() bool { return r.zoom() == zoom })
	// The page reflows at the new zoom; a fresh snapshot sees it settled.
	testenv.WaitWithin(t, 10*time.Second, "the page to report its frames at the new zoom", func() bool {
		s, err := r.agent.Snapshot(context.Background(), r.tab)
		return err == nil && strings.Contains(s.Text, "Inner s150cross")
	})
}

// TestScaledFrames clicks buttons inside iframes whose containers are scaled
// by CSS transforms (0.75 and 1.5, same-origin and cross-origin), at page
// zoom 100 % and 125 %, at device scale 1 and 2: each lands on its button's
// centre, once, and its answer says so. The pointer is checked before each
// press by the frame it lands in: with the mapping deliberately broken, the
// act is refused as unmapped and nothing is clicked. A frame under a
// rotation is refused, not guessed. A press whose click the page itself
// diverts is reported as a miss; typing says the field took the text; a
// link that navigates says where the tab went.
func TestScaledFrames(t *testing.T) {
	for _, c := range []struct {
		screen string
		dsf    float64
	}{{"1280x800x24", 1}, {"2560x1600x24", 2}} {
		t.Run(fmt.Sprintf("device scale %g", c.dsf), func(t *testing.T) {
			misplace := new(atomic.Bool)
			r := setupScaled(t, c.screen, c.dsf, misplace)
			ctx := context.Background()
			t.Run("zoom 100%", func(t *testing.T) { r.clickScaled(t) })

			t.Run("a broken mapping is refused as unmapped", func(t *testing.T) {
				r.witness.Reset("click")
				s := r.snapshot()
				misplace.Store(true)
				_, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Inner s75same"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
				misplace.Store(false)
				if code(err) != vocab.CodeUnmapped || !strings.Contains(err.Error(), "nothing was pressed") {
					t.Fatalf("click with the mapping 400 DIP off: %v, want unmapped saying nothing was pressed", err)
				}
				rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: "click", Limit: 1})
				if len(rows) != 1 || rows[0].Outcome != vocab.OutcomeRefused || rows[0].Code != vocab.CodeUnmapped {
					t.Errorf("the newest click row is %+v, want refused/unmapped", rows)
				}
				// The next act fires; no click of the refused one came before it.
				s = r.snapshot()
				if _, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Inner s75cross"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}}); err != nil {
					t.Fatal(err)
				}
				r.wait(ctx, "click", func(m map[string]any) bool { return m["frame"] == "s75cross" })
				if got := r.witness.Events("click"); len(got) != 1 {
					t.Errorf("the page saw clicks %v, want only the one on s75cross", got)
				}
			})

			t.Run("a rotated frame is refused", func(t *testing.T) {
				r.witness.Reset("click")
				s := r.snapshot()
				_, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Inner tilted"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
				if code(err) != vocab.CodeUnmapped || !strings.Contains(err.Error(), "rotated or skewed") {
					t.Fatalf("click in the rotated frame: %v, want unmapped saying it is rotated or skewed", err)
				}
			})

			t.Run("a click the page diverts is reported as a miss", func(t *testing.T) {
				r.witness.Reset("click")
				r.witness.Reset("sheet")
				s := r.snapshot()
				res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Jumpy button"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
				if err != nil {
					t.Fatal(err)
				}
				r.wait(ctx, "sheet", func(map[string]any) bool { return true })
				if !res.Missed || !strings.Contains(res.Effect, "landed on") || !strings.Contains(res.Effect, "not on button “Jumpy button”") {
					t.Errorf("effect %q (missed %v), want a click said to have landed elsewhere than the button", res.Effect, res.Missed)
				}
				rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: "click", Limit: 1})
				if len(rows) != 1 || rows[0].Outcome != vocab.OutcomeDone || rows[0].Code != vocab.CodeMissed || !strings.Contains(rows[0].Detail, "landed on") {
					t.Errorf("the newest click row is %+v, want done/missed saying where it landed", rows)
				}
				if n := r.clicksIn("top"); n != 0 {
					t.Errorf("the jumpy button's own handler saw %d clicks, want none", n)
				}
			})

			t.Run("typing says the field took the text", func(t *testing.T) {
				s := r.snapshot()
				res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "textbox", "Notes"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Type, Text: "witnessed"}})
				if err != nil {
					t.Fatal(err)
				}
				r.wait(ctx, "input", func(m map[string]any) bool { return m["id"] == "notes" && m["value"] == "witnessed" })
				if res.Effect != "the text went into textbox “Notes”" || res.Missed {
					t.Errorf("typing effect %q (missed %v)", res.Effect, res.Missed)
				}
			})

			t.Run("zoom 125%", func(t *testing.T) {
				r.zoomTo(t, 1.25, 2)
				r.clickScaled(t)
			})

			t.Run("a link that navigates says where the tab went", func(t *testing.T) {
				s := r.snapshot()
				act := vocab.Act{Kind: vocab.Click}
				res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "link", "Next page"), Snapshot: s.ID, Act: act})
				if err != nil {
					t.Fatal(err)
				}
				r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "next" })
				// The new document may come before the old one says where
				// the click landed; either way the answer says the page left.
				reached := strings.HasPrefix(res.Effect, "the click reached link “Next page”") && strings.HasSuffix(res.Effect, "the page then began to leave for another")
				gone := res.Effect == "the element's page went away before where the click landed could be read"
				if !(reached || gone) || !res.Left || res.Missed {
					t.Errorf("effect %q (left %v, missed %v), want the click reaching the link, or the page gone first", res.Effect, res.Left, res.Missed)
				}
				ch, _, err := r.agent.ChangesAfter(ctx, r.tab, act, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if !ch.NewPage || !strings.HasSuffix(ch.URL, "/next.html") {
					t.Errorf("after the link: new page %v at %q, want the new page at /next.html", ch.NewPage, ch.URL)
				}
			})
		})
	}
}
