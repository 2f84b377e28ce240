package e2e

import (
	"context"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestTabsSelectAndClose brings one of two tabs to the front and closes the
// other through the real reins mcp, each asked about once and in the log;
// Chromium itself shows the result.
func TestTabsSelectAndClose(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	page := `<!doctype html><title>%s</title><h1>%s</h1><script>addEventListener('load', () => fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', page: '%s'})}))</script>`
	r.origin = browsertest.Serve(t, r.witness, map[string]string{
		"/a.html": fmt.Sprintf(page, "Tab A", "A", "a"), "/b.html": fmt.Sprintf(page, "Tab B", "B", "b"),
		"/d.html": fmt.Sprintf(page, "Tab D", "D", "d"),
		"/b2.html": strings.Replace(fmt.Sprintf(page, "Tab B2", "B2", "b2"), "<script>",
			`<button onclick="fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'clicked', page: 'b2', trusted: event.isTrusted})})">Press B2</button><script>`, 1),
		"/opener.html": strings.Replace(fmt.Sprintf(page, "Opener", "Opener", "opener"), "<script>", `<a href="/d.html" target="_blank">Open D</a><script>`, 1),
	})
	r.browser = browsertest.Start(t, browsertest.Options{X: r.x, DataDir: r.data, Reins: reinsBinary.path, URL: r.origin + "/a.html", Width: 1000, Height: 700, DevTools: true})
	r.assertNoProcessesLeft()
	ctx := context.Background()
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "a" })
	// The person opens a second tab.
	r.personOpensTab(r.origin + "/b.html")
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "b" })
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e tabs agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	tabOf := func(path string) vocab.TabInfo {
		for _, tb := range r.rt.Tabs() {
			if tb.Connected && strings.HasPrefix(tb.URL, r.origin+path) {
				return tb
			}
		}
		return vocab.TabInfo{}
	}
	testenv.WaitWithin(t, 30*time.Second, "both tabs to be reported, B in front", func() bool {
		return tabOf("/a.html").ID != "" && tabOf("/b.html").Active
	})
	a, b := tabOf("/a.html").ID, tabOf("/b.html").ID
	for _, id := range []string{a, b} {
		if err := r.rt.SetShare(id, vocab.Control); err != nil {
			t.Fatal(err)
		}
	}
	cs := agentThroughMCP(t, r.rt, r.data, sdk.Implementation{Name: "e2e tabs agent", Version: "1"})

	asked := r.asked()
	mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "select", "tab": a})
	testenv.WaitWithin(t, 10*time.Second, "tab A to come to the front", func() bool { return tabOf("/a.html").Active })
	mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "close", "tab": b})
	testenv.WaitWithin(t, 10*time.Second, "tab B to close", func() bool { return tabOf("/b.html").ID == "" })
	if n := r.asked() - asked; n != 2 {
		t.Errorf("the person was asked %d times, want once for each act", n)
	}
	for _, kind := range []vocab.ActKind{vocab.Activate, vocab.CloseTab} {
		rows := r.auditRows(persondoor.AuditFilter{Act: string(kind), Limit: 2})
		if len(rows) != 2 || rows[0].Outcome != vocab.OutcomeDone || rows[1].Phase != "fire" {
			t.Errorf("%s rows %+v, want the fire row then done", kind, rows)
		}
	}
	if list := mcptest.MustCall(t, cs, "browser_tabs", nil); strings.Contains(list, "Tab B") {
		t.Errorf("the closed tab is still listed:\n%s", list)
	}

	// A new tab on tab A's site is the agent's at control once the person
	// allows it; one on another site is not.
	asked = r.asked()
	out := mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "new", "tab": a, "url": r.origin + "/b2.html"})
	m := regexp.MustCompile(`The new tab is tab (\d+), yours at control`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "in a new tab, shared with the agent at Control like “Tab A”") {
		t.Fatalf("opening a tab on the same site: %s", out)
	}
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "b2" })
	snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": m[1]})
	if !strings.Contains(snap, `heading "B2"`) {
		t.Errorf("the new tab cannot be read:\n%s", snap)
	}
	// And acted on: the page's own handler sees the real click.
	mcptest.MustCall(t, cs, "browser_click", map[string]any{"tab": m[1], "ref": mcptest.Ref(t, snap, "button", "Press B2")})
	if c := r.wait(ctx, "clicked", func(m map[string]any) bool { return m["page"] == "b2" }); c["trusted"] != true {
		t.Errorf("the new tab's page saw the click as %v, want a trusted one", c)
	}
	asked++ // the click
	other := browsertest.Serve(t, r.witness, map[string]string{"/c.html": fmt.Sprintf(page, "Tab C", "C", "c")})
	out = mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "new", "tab": a, "url": other + "/c.html"})
	m = regexp.MustCompile(`The new tab is tab (\d+): .*not shared with you`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "in a new tab, not shared with the agent") {
		t.Fatalf("opening a tab on another site: %s", out)
	}
	mcptest.Refused(t, cs, "browser_snapshot", map[string]any{"tab": m[1]}, vocab.CodeShareRequired)
	if n := r.asked() - asked; n != 2 {
		t.Errorf("the person was asked %d times about two new tabs", n)
	}
	rows := r.auditRows(persondoor.AuditFilter{Act: string(vocab.NewTab), Limit: 4})
	if len(rows) != 4 || rows[0].Outcome != vocab.OutcomeDone || rows[2].Outcome != vocab.OutcomeDone {
		t.Errorf("new tab rows %+v, want two fire rows each followed by done", rows)
	}

	// A tab the page opens from the agent's click is not shared, and the
	// log and the strips say so.
	mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "select", "tab": a})
	testenv.WaitWithin(t, 10*time.Second, "tab A to come to the front", func() bool { return tabOf("/a.html").Active })
	mcptest.MustCall(t, cs, "browser_navigate", map[string]any{"tab": a, "url": r.origin + "/opener.html"})
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "opener" })
	snap = mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": a})
	mcptest.MustCall(t, cs, "browser_click", map[string]any{"tab": a, "ref": mcptest.Ref(t, snap, "link", "Open D")})
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "d" })
	var d vocab.TabInfo
	testenv.WaitWithin(t, 10*time.Second, "the tab the page opened to be reported", func() bool { d = tabOf("/d.html"); return d.ID != "" })
	if d.Level != vocab.None {
		t.Errorf("the tab the page opened is shared at %v", d.Level)
	}
	testenv.WaitWithin(t, 10*time.Second, "the log to say the page opened a tab", func() bool {
		for _, row := range r.auditRows(persondoor.AuditFilter{Act: string(vocab.NewTab), Limit: 2}) {
			if row.AgentName == "the page" && strings.Contains(row.Detail, "the page opened tab "+d.ID+"; it is not shared") {
				return true
			}
		}
		return false
	})
}

// personOpensTab opens url in a new tab in front, as the person would,
// through Chromium's DevTools port (the browser was started with DevTools).
func (r *rig) personOpensTab(url string) {
	r.t.Helper()
	port, err := devToolsPort(r.browser.Profile)
	if err != nil {
		r.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/json/new?%s", port, neturl.QueryEscape(url)), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
}
