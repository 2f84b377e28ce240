package e2e

import (
	"context"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// reachPage has a button far below the fold, a button in a box scrolled
// away from it, a box that the page keeps the wheel from, and a box that
// cuts off what overflows it without scrolling.
func reachPage() string {
	return `<!doctype html>
<html><head><title>Reach test page</title>
<style>
  body { margin: 0; font: 16px sans-serif; }
  button { width: 150px; height: 40px; margin: 6px; }
  .box { width: 320px; height: 120px; overflow: auto; border: 1px solid #444; margin: 6px; }
  #cut { overflow: hidden; }
</style></head>
<body>
<h1>Reach</h1>
<button id="top">Top button</button>
<iframe src="/reachframe.html" title="Reach frame" style="width:360px;height:150px;border:2px solid #888;vertical-align:top"></iframe>
<div id="box" class="box"><div style="height:700px">Box spacer</div><button id="inbox">Box button</button><div style="height:300px"></div></div>
<div id="stuck" class="box"><div style="height:700px">Stuck spacer</div><button id="stuckbtn">Stuck button</button></div>
<div id="cut" class="box"><div style="height:700px">Cut spacer</div><button id="cutbtn">Cut button</button></div>
<div style="height:2600px">Page spacer</div>
<button id="below">Below button</button>
<div style="height:600px"></div>
<script>
` + reportJS + `
document.querySelectorAll('button').forEach((b) => watch(b, 'top'));
document.getElementById('stuck').addEventListener('wheel', (e) => e.preventDefault(), {passive: false});
addEventListener('load', () => report({type: 'loaded', page: 'reach'}));
</script>
</body></html>`
}

// reachFramePage is a frame with a box scrolled away from its button.
func reachFramePage() string {
	return `<!doctype html><html><head><style>
  body { margin: 0; font: 16px sans-serif; }
  #fbox { width: 320px; height: 110px; overflow: auto; border: 1px solid #444; margin: 6px; }
  button { width: 150px; height: 40px; margin: 6px; }
</style></head><body>
<div id="fbox"><div style="height:600px">Frame box spacer</div><button id="framebox">Frame box button</button><div style="height:200px"></div></div>
<script>` + reportJS + `watch(document.getElementById('framebox'), 'reachframe');</script>
</body></html>`
}

func setupReach(t *testing.T) *rig {
	t.Helper()
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	rt, data, x := r.rt, r.data, r.x
	ctx := context.Background()
	r.origin = browsertest.Serve(t, r.witness, map[string]string{"/reach.html": reachPage(), "/reachframe.html": reachFramePage()})
	r.browser = browsertest.Start(t, browsertest.Options{
		X: x, DataDir: data, Reins: reinsBinary.path, URL: r.origin + "/reach.html", Width: 1200, Height: 780,
	})
	r.assertNoProcessesLeft()
	r.agent = coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "e2e reach agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	r.tab = r.pairedTab(r.origin + "/reach.html")
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "reach" })
	if err := rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReach clicks, by ref, a button below the fold and a button in a box
// scrolled away from it: each is one act the person is asked about once,
// whose wheel input scrolls the page or the box until the button shows, and
// the page's own handler sees one trusted click on it. A box that keeps the
// wheel to itself, and one that cuts off without scrolling, are refused
// with nothing clicked.
func TestReach(t *testing.T) {
	r := setupReach(t)
	ctx := context.Background()
	s := r.snapshot()
	if !regexp.MustCompile(`- generic \[scroll=0/\d+\] \[ref=e\d+\]`).MatchString(s.Text) {
		t.Errorf("the boxes that scroll have no ref or no position in the snapshot:\n%s", s.Text)
	}

	for _, b := range []struct{ id, name, where string }{
		{"below", "Below button", "below the fold"},
		{"inbox", "Box button", "in a scrolled box"},
		{"framebox", "Frame box button", "in a scrolled box inside a frame"},
	} {
		t.Run(b.where, func(t *testing.T) {
			s := r.snapshot()
			asked := r.asked()
			res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", b.name), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
			if err != nil {
				t.Fatalf("click %s: %v", b.name, err)
			}
			if want := "Scroll to and click “" + b.name + "”"; res.Done != want {
				t.Errorf("done %q, want %q", res.Done, want)
			}
			c := r.wait(ctx, "click", func(m map[string]any) bool { return m["id"] == b.id })
			if c["trusted"] != true {
				t.Errorf("click not trusted: %v", c)
			}
			// At the middle of what shows of the button (150 × 40): a notch
			// scrolls more than the box is tall, so its edge may cut it.
			if dx, dy := c["x"].(float64)-c["cx"].(float64), c["y"].(float64)-c["cy"].(float64); math.Abs(dx) > 1.5 || math.Abs(dy) > 19 {
				t.Errorf("the click landed %.1f, %.1f CSS px from the button's centre, off the button (%v)", dx, dy, c)
			}
			if n := r.asked() - asked; n != 1 {
				t.Errorf("the person was asked %d times, want once", n)
			}
			out := r.outcomeOf(res.Audit)
			if out.Outcome != vocab.OutcomeDone || !strings.Contains(out.Detail, "turned the wheel") {
				t.Errorf("outcome row %s %q, want done, saying how far it scrolled", out.Outcome, out.Detail)
			}
			t.Logf("outcome: %s", out.Detail)
		})
	}

	t.Run("a scroll says where the box stands", func(t *testing.T) {
		s := r.snapshot()
		m := regexp.MustCompile(`- generic \[scroll=(\d+)/(\d+)\] \[ref=(e\d+)\]`).FindStringSubmatch(s.Text)
		if m == nil {
			t.Fatalf("no box in:\n%s", s.Text)
		}
		res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: m[3], Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Scroll, DY: -2}})
		if err != nil {
			t.Fatal(err)
		}
		after := regexp.MustCompile(`now the box \[ref=` + m[3] + `\] is scrolled (\d+) of ` + m[2] + ` px down and the page \d+ px down$`).FindStringSubmatch(res.Done)
		if after == nil {
			t.Fatalf("done %q does not say where box %s stands", res.Done, m[3])
		}
		if after[1] == m[1] {
			t.Errorf("the box is at %s px both before and after the scroll: %q", m[1], res.Done)
		}
		t.Logf("done: %s (the box was at %s)", res.Done, m[1])
	})

	for _, b := range []struct{ name, why string }{
		{"Stuck button", "the page keeps the wheel from the box"},
		{"Cut button", "the box cuts it off and does not scroll"},
	} {
		t.Run(b.why, func(t *testing.T) {
			s := r.snapshot()
			_, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", b.name), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
			if code(err) != vocab.CodeNotVisible {
				t.Fatalf("click %s: %v, want %s", b.name, err, vocab.CodeNotVisible)
			}
			t.Logf("refused: %v", err)
		})
	}
	if n := len(r.clicks("stuckbtn")) + len(r.clicks("cutbtn")); n != 0 {
		t.Errorf("%d clicks on buttons that could not be brought into view", n)
	}
	r.assertFiredChecked()
}

// asked counts the questions put to the person so far.
func (r *rig) asked() int {
	r.answer.mu.Lock()
	defer r.answer.mu.Unlock()
	return r.answer.asked
}

// outcomeOf is the outcome row of the fire row seq.
func (r *rig) outcomeOf(seq int64) persondoor.AuditRow {
	r.t.Helper()
	for _, row := range r.auditRows(persondoor.AuditFilter{Tab: r.tab}) {
		if row.Phase == audit.PhaseOutcome && row.RefSeq == seq {
			return row
		}
	}
	r.t.Fatalf("no outcome row for row %d", seq)
	return persondoor.AuditRow{}
}

// farPage has a button the given number of px down a page, and a line that stays in
// view counting the wheel events the page has had.
func farPage(down int) string {
	return `<!doctype html>
<html><head><title>Far reach test page</title>
<style>body { margin: 0; font: 16px sans-serif; } button { width: 150px; height: 40px; margin: 6px; }
#count { position: fixed; top: 0; right: 0; background: #fff; }</style></head>
<body>
<h1>Far</h1>
<p id="count">Wheel events: 0</p>
<div style="height:` + strconv.Itoa(down) + `px">Far spacer</div>
<button id="far">Far button</button>
<script>
` + reportJS + `
watch(document.getElementById('far'), 'top');
let wheels = 0;
addEventListener('wheel', () => { wheels++; document.getElementById('count').textContent = 'Wheel events: ' + wheels; }, {passive: true});
addEventListener('keydown', (e) => report({type: 'key', key: e.key}));
addEventListener('load', () => report({type: 'loaded', page: 'far'}));
</script>
</body></html>`
}

// farRig is Reins with the real extension in one Chromium showing
// farPage(down), shared at control.
func farRig(t *testing.T, down int) *rig {
	t.Helper()
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	r.origin = browsertest.Serve(t, r.witness, map[string]string{"/far.html": farPage(down)})
	r.browser = browsertest.Start(t, browsertest.Options{
		X: r.x, DataDir: r.data, Reins: reinsBinary.path, URL: r.origin + "/far.html", Width: 1200, Height: 780,
	})
	r.agent = coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e reach agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	r.tab = r.pairedTab(r.origin + "/far.html")
	r.wait(context.Background(), "loaded", func(m map[string]any) bool { return m["page"] == "far" })
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReachAFooterFarDown clicks, by ref, a button 18,500 px down a real
// page, as far down as a long news page's footer links: the bursts bring it
// into view and the page's own handler sees the one click.
func TestReachAFooterFarDown(t *testing.T) {
	r := farRig(t, 18500)
	ctx := context.Background()
	s := r.snapshot()
	t0 := time.Now()
	res, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Far button"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
	if err != nil {
		t.Fatalf("click the button 18,500 px down: %v", err)
	}
	out := r.outcomeOf(res.Audit)
	t.Logf("clicked after %v: %s; %s", time.Since(t0).Round(time.Millisecond), res.Done, out.Detail)
	if out.Outcome != vocab.OutcomeDone || !regexp.MustCompile(`turned the wheel \d+ notches down in \d+ bursts`).MatchString(out.Detail) {
		t.Errorf("outcome row %s %q, want done, saying how the wheel brought the button into view", out.Outcome, out.Detail)
	}
	r.wait(ctx, "click", func(m map[string]any) bool { return m["type"] == "click" && m["id"] == "far" })
	if n := len(r.clicks("far")); n != 1 {
		t.Errorf("the far button saw %d clicks, want 1", n)
	}
	r.assertFiredChecked()
}

// TestReachTooFarSaysWhatToDo clicks, by ref, a button 344,000 px down a
// real page: the reach stops once a burst shows the rest is out of its
// range, and the refusal says how far it got, of how far, and what the
// agent can do instead. The button is never clicked, and the page has no
// input after the refusal: no key, and no wheel event but the bursts'.
func TestReachTooFarSaysWhatToDo(t *testing.T) {
	r := farRig(t, 344000)
	ctx := context.Background()
	s := r.snapshot()
	t0 := time.Now()
	_, err := r.agent.Act(ctx, agentdoor.ActRequest{Tab: r.tab, Ref: ref(t, s, "button", "Far button"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}})
	took := time.Since(t0)
	if code(err) != vocab.CodeNotVisible {
		t.Fatalf("click the far button: %v, want %s", err, vocab.CodeNotVisible)
	}
	msg := err.Error()
	t.Logf("refused after %v: %s", took.Round(time.Millisecond), msg)
	if !regexp.MustCompile(`it scrolled [\d,]+ px of 34\d,\d{3} px down\. To get there: press End or PageDown \(browser_press_key`).MatchString(msg) {
		t.Errorf("the refusal does not say how far it scrolled, of how far, then what to try: %s", msg)
	}
	for _, want := range []string{"browser_find", "browser_handoff", "bursts of the wheel left would scroll at most"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q", want)
		}
	}
	m := regexp.MustCompile(`turned the wheel (\d+) notches down`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the refusal does not say how far the wheel turned: %s", msg)
	}
	turned, _ := strconv.Atoi(m[1])
	wheels := func() int {
		c := regexp.MustCompile(`Wheel events: (\d+)`).FindStringSubmatch(r.snapshot().Text)
		if c == nil {
			t.Fatal("no wheel count in the snapshot")
		}
		n, _ := strconv.Atoi(c[1])
		return n
	}
	first := wheels()
	if then := wheels(); first > turned || then != first {
		t.Errorf("the page had %d wheel events after the refusal and %d a read later, for %d notches the bursts turned: input after the refusal", first, then, turned)
	}
	if n := len(r.clicks("far")) + len(r.witness.Events("key")); n != 0 {
		t.Errorf("%d clicks or keys reached the page", n)
	}
	r.assertFiredChecked()
}
