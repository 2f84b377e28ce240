package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// The page shared in the browser run test: a button whose clicks the
// page reports.
const sessionPage = `<!doctype html><html><head><title>Session page</title>
<style>body{margin:0;font:16px sans-serif} button{width:200px;height:40px;margin:40px}</style></head>
<body><button id="buy">Buy</button>
<script>
const report = (m) => fetch("/witness", {method: "POST", body: JSON.stringify(m)});
document.getElementById("buy").addEventListener("click", (e) => report({type: "click", trusted: e.isTrusted}));
report({type: "loaded", page: "session"});
</script></body></html>`

// A share lasts while the browser runs. The extension's service worker may
// stop and start again at any time (Chrome stops idle workers): the tab
// keeps its id and its share. When the browser quits and starts again on
// the same profile, the profile is the same but every share is gone,
// though Chrome numbers the new run's tabs from the start again and shows
// the same page.
func TestBrowserRun(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1280x800x24")
	data := filepath.Join(t.TempDir(), "data")
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: data, Display: x.Display, ApprovalTimeout: 20 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	answer := &answerer{policy: "allow"}
	t.Cleanup(answer.run(rt))
	events, unsubscribe := rt.Subscribe(4096)
	t.Cleanup(unsubscribe)
	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{"/session.html": sessionPage})
	url := origin + "/session.html"
	browser := browsertest.Start(t, browsertest.Options{
		X: x, DataDir: data, Reins: reinsBinary.path, URL: url, Width: 1200, Height: 780, DevTools: true,
	})
	agent := coretest.Admitted(t, rt.AgentDoor(), rt.PersonDoor(), vocab.Agent{Name: "e2e agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	tab := connectedTab(t, rt, url)
	if _, err := witness.Wait(ctx, "loaded", nil); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	clickBuy(t, ctx, agent, witness, tab)

	// The worker's own view: its profile and browser run, and a mark
	// in its global scope that only this instance of the worker holds.
	cdp := dialCDP(t, ctx, browser.Profile)
	worker, sw := serviceWorker(t, ctx, cdp)
	var before workerIDs
	evalJSON(t, ctx, cdp, sw, `(globalThis.reinsTestMark = 1, `+readIDs+`)`, &before)
	if before.Profile == "" || before.Session == "" || !before.Marked {
		t.Fatalf("the worker holds %+v before it is stopped", before)
	}

	// (a) The service worker alone stops, as Chrome stops an idle one
	// (closing its target is how Puppeteer's worker.close() stops it), and
	// wakes on the next event of the browser: a tab opened.
	drain(events)
	if err := cdp.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": worker}, nil); err != nil {
		t.Fatalf("stopping the service worker: %v", err)
	}
	waitConnection(t, ctx, events, false)
	if err := cdp.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank", "background": true}, nil); err != nil {
		t.Fatal(err)
	}
	waitConnection(t, ctx, events, true)
	_, sw = serviceWorker(t, ctx, cdp)
	var after workerIDs
	evalJSON(t, ctx, cdp, sw, readIDs, &after)
	if after.Marked {
		t.Fatal("the service worker was not restarted: it still holds the mark")
	}
	if after.Profile != before.Profile || after.Session != before.Session {
		t.Fatalf("a restarted service worker names %+v, before it %+v; want the same profile and browser session", after, before)
	}
	if got := connectedTab(t, rt, url); got != tab {
		t.Fatalf("after the service worker restarted the page is tab %s, was %s", got, tab)
	}
	if l := rt.Share(tab); l != vocab.Control {
		t.Fatalf("after the service worker restarted the tab is shared at %v, want Control", l)
	}
	clickBuy(t, ctx, agent, witness, tab)

	// (b) The browser quits and starts again on the same profile.
	drain(events)
	browser.Restart(t)
	waitConnection(t, ctx, events, true)
	newTab := connectedTab(t, rt, url)
	if newTab == tab {
		t.Fatalf("the restarted browser's page took the old tab's id %s", tab)
	}
	cdp = dialCDP(t, ctx, browser.Profile)
	_, sw = serviceWorker(t, ctx, cdp)
	var restarted workerIDs
	evalJSON(t, ctx, cdp, sw, readIDs, &restarted)
	if restarted.Profile != before.Profile || restarted.Session == before.Session || restarted.Session == "" {
		t.Fatalf("the restarted browser names %+v, the one before %+v; want the same profile in a new browser session", restarted, before)
	}
	for _, ti := range rt.Tabs() {
		if ti.Level != vocab.None {
			t.Errorf("after the browser restarted tab %s (%s) is shared at %v", ti.ID, ti.URL, ti.Level)
		}
		if ti.ID == tab {
			t.Errorf("after the browser restarted the old tab %s is still listed: %+v", tab, ti)
		}
	}
	// Nothing is shared in the new run, so the agent's default tab is
	// none, and never the old run's.
	if got, err := agent.CurrentTab(ctx); code(err) != vocab.CodeShareRequired {
		t.Errorf("the agent's default tab after the browser restarted: %q %v, want %s", got, err, vocab.CodeShareRequired)
	}
	if _, err := agent.Snapshot(ctx, tab); code(err) != vocab.CodeNoTab {
		t.Errorf("a snapshot of the old tab after the browser restarted: %v, want %s", err, vocab.CodeNoTab)
	}
	if _, err := agent.Snapshot(ctx, newTab); code(err) != vocab.CodeShareRequired {
		t.Errorf("a snapshot of the restarted browser's page: %v, want %s", err, vocab.CodeShareRequired)
	}
	rows, err := rt.AuditRows(ctx, persondoor.AuditFilter{Act: string(vocab.Share), Tab: tab})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0].Detail != "Reins ended the share: the browser restarted" || rows[0].AgentName != vocab.PersonName {
		t.Errorf("the newest share row of tab %s: %+v, want Reins ending the share because the browser restarted", tab, rows)
	}
}

// workerIDs is what the service worker holds: the profile id in
// chrome.storage.local, the browser run in chrome.storage.session, and
// whether the test's mark is in its global scope.
type workerIDs struct {
	Profile string `json:"profile"`
	Session string `json:"session"`
	Marked  bool   `json:"marked"`
}

const readIDs = `Promise.all([chrome.storage.local.get("profile"), chrome.storage.session.get("browserSession")]).then(([l, s]) =>
	({profile: l.profile || "", session: s.browserSession || "", marked: globalThis.reinsTestMark === 1}))`

// serviceWorker waits for the extension's service worker and attaches to
// it; it returns the target and the session. A worker that stopped and
// started again keeps its target's id: the mark in its global scope tells
// one instance from the next.
func serviceWorker(t *testing.T, ctx context.Context, c *cdp) (target, session string) {
	t.Helper()
	for {
		var res struct {
			TargetInfos []targetInfo `json:"targetInfos"`
		}
		if err := c.call(ctx, "", "Target.getTargets", map[string]any{}, &res); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.TargetInfos, func(ti targetInfo) bool {
			return ti.Type == "service_worker" && ti.URL == extension.Origin+"/sw.js"
		})
		if i >= 0 {
			target = res.TargetInfos[i].TargetID
			return target, c.attachTo(ctx, target)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no service worker of the extension among %+v", res.TargetInfos)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func evalJSON(t *testing.T, ctx context.Context, c *cdp, session, expr string, out any) {
	t.Helper()
	raw, err := c.eval(ctx, session, expr)
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("evaluating %s: %s: %v", expr, raw, err)
	}
}

// connectedTab waits until Reins lists a tab at url of a connected browser,
// and returns its id.
func connectedTab(t *testing.T, rt *core.Runtime, url string) string {
	t.Helper()
	var id string
	testenv.WaitFor(t, "a connected browser's tab at "+url, func() bool {
		for _, ti := range rt.Tabs() {
			if ti.Connected && strings.HasPrefix(ti.URL, url) {
				id = ti.ID
				return true
			}
		}
		return false
	})
	return id
}

// drain drops the events published so far.
func drain(events <-chan persondoor.Event) {
	for {
		select {
		case <-events:
		default:
			return
		}
	}
}

// waitConnection waits for the engine to tell that a browser connected, or
// that one disconnected.
func waitConnection(t *testing.T, ctx context.Context, events <-chan persondoor.Event, connected bool) {
	t.Helper()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the engine closed its events")
			}
			if ev.Kind == persondoor.EventConnection && ev.Connected == connected {
				return
			}
		case <-ctx.Done():
			t.Fatalf("the engine never told that a browser's connection was %v", map[bool]string{true: "made", false: "lost"}[connected])
		}
	}
}

// clickBuy has the agent snapshot the tab and click its button, and waits
// for the page to report a trusted click.
func clickBuy(t *testing.T, ctx context.Context, agent agentdoor.Session, witness *browsertest.Witness, tab string) {
	t.Helper()
	witness.Reset("click")
	s, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if _, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref(t, s, "button", "Buy"), Snapshot: s.ID, Act: vocab.Act{Kind: vocab.Click}}); err != nil {
		t.Fatalf("click: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := witness.Wait(wctx, "click", func(m map[string]any) bool { return m["trusted"] == true }); err != nil {
		t.Fatal(err)
	}
}
