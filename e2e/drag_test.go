package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// dragPage has a card dragged with pointer events and a ticket dragged with
// HTML drag and drop, each with a place to drop it; the page's own handlers
// say where each was dropped.
const dragPage = `<!doctype html>
<html><head><title>Drag test page</title>
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
let dragging = false, moves = 0;
card.addEventListener('pointerdown', (e) => { dragging = e.isTrusted; moves = 0; card.setPointerCapture(e.pointerId); });
card.addEventListener('pointermove', () => { if (dragging) moves++; });
card.addEventListener('pointerup', (e) => {
  if (!dragging) return;
  dragging = false;
  const under = document.elementsFromPoint(e.clientX, e.clientY).map((n) => n.id);
  report({type: 'dropped', how: 'pointer', on: under.includes('done') ? 'done' : under[0] || '', moves, trusted: e.isTrusted});
});
const ticket = document.getElementById('ticket'), archive = document.getElementById('archive');
ticket.addEventListener('dragstart', (e) => { e.dataTransfer.setData('text/plain', 'ticket'); report({type: 'dragstart', trusted: e.isTrusted}); });
archive.addEventListener('dragover', (e) => e.preventDefault());
archive.addEventListener('drop', (e) => {
  e.preventDefault();
  report({type: 'dropped', how: 'html5', on: 'archive', data: e.dataTransfer.getData('text/plain'), trusted: e.isTrusted});
});
addEventListener('load', () => report({type: 'loaded', page: 'drag'}));
</script>
</body></html>`

// TestDrag drags, through the real reins mcp, a card made draggable with
// pointer events onto its column and a ticket made draggable with HTML drag
// and drop onto the archive: the person is asked once for each, with both
// ends named, each act's row is committed before it fires, and the page's
// own handlers see the drop where it was meant.
func TestDrag(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	ctx := context.Background()
	cs := r.controlled("drag", dragPage)

	for _, c := range []struct {
		what, from, to, how, on string
		by                      []int // dx, dy in screen points, instead of dropping on to
	}{
		{what: "pointer events", from: "Card", to: "Done column", how: "pointer", on: "done"},
		{what: "HTML drag and drop", from: "Ticket", to: "Archive", how: "html5", on: "archive"},
		// From the card's centre (110, 130) into the column (420–644 × 60–224).
		{what: "pointer events by an offset", from: "Card", to: "Done column", how: "pointer", on: "done", by: []int{420, 10}},
	} {
		t.Run(c.what, func(t *testing.T) {
			asked := r.asked()
			snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
			args := map[string]any{"ref": mcptest.Ref(t, snap, "button", c.from), "to": mcptest.Ref(t, snap, "button", c.to)}
			want := "Done: Drag “" + c.from + "” onto “" + c.to + "”"
			if c.by != nil {
				delete(args, "to")
				args["dx"], args["dy"] = c.by[0], c.by[1]
				want = fmt.Sprintf("Done: Drag “%s” down %d, right %d points", c.from, c.by[1], c.by[0])
			}
			out := mcptest.MustCall(t, cs, "browser_drag", args)
			if !strings.Contains(out, want) {
				t.Errorf("the drag's answer does not say %q:\n%s", want, out)
			}
			if !strings.Contains(out, "The drag began on button “"+c.from+"” and was let go over button “"+c.to+"”") {
				t.Errorf("the drag's answer does not say where it began and ended:\n%s", out)
			}
			m := r.wait(ctx, "dropped", func(m map[string]any) bool { return m["how"] == c.how })
			if m["on"] != c.on || m["trusted"] != true {
				t.Errorf("the page saw the %s drop %v, want it trusted on %s", c.how, m, c.on)
			}
			if c.how == "pointer" {
				if n, _ := m["moves"].(float64); n < 3 {
					t.Errorf("the page saw %v pointer moves between press and release, want a drag's steps", m["moves"])
				}
			}
			if n := r.asked() - asked; n != 1 {
				t.Errorf("the person was asked %d times, want once", n)
			}
			rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: string(vocab.Drag), Limit: 2})
			if len(rows) != 2 || rows[0].Outcome != vocab.OutcomeDone || rows[1].Phase != "fire" {
				t.Errorf("drag rows %+v, want the fire row then done", rows)
			}
			t.Logf("answer:\n%s", out)
		})
	}
	// A drag whose end would leave the page is refused before anyone is
	// asked, and nothing moves.
	asked := r.asked()
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	out := mcptest.Refused(t, cs, "browser_drag", map[string]any{"ref": mcptest.Ref(t, snap, "button", "Card"), "dx": 5000, "dy": 0}, vocab.CodeNotVisible)
	if !strings.Contains(out, "outside what the tab shows") {
		t.Errorf("the refusal of a drag off the page does not say why: %s", out)
	}
	if n := r.asked() - asked; n != 0 {
		t.Errorf("the person was asked %d times about a drag off the page", n)
	}
	r.assertFiredChecked()
}

// controlled serves page at /name.html, opens it in Chromium, allows an
// agent named "e2e name agent" and shares the tab with it at Control once
// the page has loaded (the page posts {type: "loaded", page: name}), and
// connects that agent through the real reins mcp.
func (r *rig) controlled(name, page string) *sdk.ClientSession {
	r.t.Helper()
	path := "/" + name + ".html"
	r.origin = browsertest.Serve(r.t, r.witness, map[string]string{path: page})
	r.browser = browsertest.Start(r.t, browsertest.Options{X: r.x, DataDir: r.data, Reins: reinsBinary.path, URL: r.origin + path, Width: 1200, Height: 780})
	r.assertNoProcessesLeft()
	who := "e2e " + name + " agent"
	coretest.Admitted(r.t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: who, Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	r.tab = r.pairedTab(r.origin + path)
	r.wait(context.Background(), "loaded", func(m map[string]any) bool { return m["page"] == name })
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		r.t.Fatal(err)
	}
	return agentThroughMCP(r.t, r.rt, r.data, sdk.Implementation{Name: who, Version: "1"})
}
