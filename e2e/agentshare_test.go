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
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestTabsOfOneAgent gives each of two agents, each its own reins mcp, one
// tab of its own at Control. Each reads and clicks in its own; every way one
// tries to reach the other's tab is refused as an unshared tab's would be,
// and nothing of that tab (its title, address or text) is in any answer it
// gets. The page's own handler counts the clicks.
func TestTabsOfOneAgent(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	page := `<!doctype html><title>%[1]s</title><h1>%[2]s</h1>
<button id="b" onclick="fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'click', id: '%[3]s'})})">Press %[3]s</button>
<script>addEventListener('load', () => fetch('/witness', {method: 'POST', body: JSON.stringify({type: 'loaded', page: '%[3]s'})}))</script>`
	r.origin = browsertest.Serve(t, r.witness, map[string]string{
		"/one.html": fmt.Sprintf(page, "Tab of Ada", "Ada's ledger", "ada"),
		"/two.html": fmt.Sprintf(page, "Tab of Bea", "Bea's diary", "bea"),
	})
	r.browser = browsertest.Start(t, browsertest.Options{X: r.x, DataDir: r.data, Reins: reinsBinary.path, URL: r.origin + "/one.html", Width: 1000, Height: 700, DevTools: true})
	r.assertNoProcessesLeft()
	ctx := context.Background()
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "ada" })
	r.personOpensTab(r.origin + "/two.html")
	r.wait(ctx, "loaded", func(m map[string]any) bool { return m["page"] == "bea" })
	one, two := r.pairedTab(r.origin+"/one.html"), r.pairedTab(r.origin+"/two.html")

	// Both agents are allowed, as at their first connection; the person
	// then shares one tab with each, from the person's door.
	ada := vocab.Agent{Name: "e2e agent Ada", Version: "1", PID: os.Getpid(), Exe: os.Args[0]}
	bea := vocab.Agent{Name: "e2e agent Bea", Version: "1", PID: os.Getpid(), Exe: os.Args[0]}
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), ada)
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), bea)
	if err := r.rt.PersonDoor().ShareWith(one, vocab.Control, persondoor.AgentKey(ada)); err != nil {
		t.Fatal(err)
	}
	if err := r.rt.PersonDoor().ShareWith(two, vocab.Control, persondoor.AgentKey(bea)); err != nil {
		t.Fatal(err)
	}
	cs := agentsThroughMCP(t, r.rt, r.data, sdk.Implementation{Name: ada.Name, Version: "1"}, sdk.Implementation{Name: bea.Name, Version: "1"})
	adaMCP, beaMCP := cs[0], cs[1]

	// Every answer Ada gets is kept, to look for Bea's tab in.
	var heard []string
	call := func(tool string, args map[string]any) (string, bool) {
		text, isErr := mcptest.Call(t, adaMCP, tool, args)
		heard = append(heard, text)
		return text, isErr
	}
	list, _ := call("browser_tabs", nil)
	if !strings.Contains(list, "Tab of Ada") {
		t.Fatalf("Ada's list lacks her own tab:\n%s", list)
	}
	snap, isErr := call("browser_snapshot", nil)
	if isErr || !strings.Contains(snap, "Ada's ledger") {
		t.Fatalf("Ada's snapshot of the tab meant: %s", snap)
	}
	// Bea's tab opened last, in front: Ada brings hers forward.
	asked := r.asked()
	if out, isErr := call("browser_tabs", map[string]any{"action": "select", "tab": one}); isErr {
		t.Fatalf("Ada selecting her own tab: %s", out)
	}
	testenv.WaitWithin(t, 10*time.Second, "Ada's tab to come to the front", func() bool {
		for _, tb := range r.rt.Tabs() {
			if tb.ID == one {
				return tb.Active
			}
		}
		return false
	})
	if out, isErr := call("browser_click", map[string]any{"ref": mcptest.Ref(t, snap, "button", "Press ada")}); isErr {
		t.Fatalf("Ada's click on her own tab: %s", out)
	}
	r.wait(ctx, "click", func(m map[string]any) bool { return m["id"] == "ada" })

	// Bea reads her tab, and takes a ref Ada might try to use.
	beaSnap := mcptest.MustCall(t, beaMCP, "browser_snapshot", map[string]any{"tab": two})
	beaRef := mcptest.Ref(t, beaSnap, "button", "Press bea")
	if beaList := mcptest.MustCall(t, beaMCP, "browser_tabs", nil); strings.Contains(beaList, "Tab of Ada") {
		t.Errorf("Bea's list names Ada's tab:\n%s", beaList)
	}

	// Ada tries Bea's tab every way a tool offers.
	for _, try := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_snapshot", map[string]any{"tab": two}},
		{"browser_find", map[string]any{"tab": two, "text": "diary"}},
		{"browser_screenshot", map[string]any{"tab": two}},
		{"browser_click", map[string]any{"tab": two, "ref": beaRef}},
		{"browser_type", map[string]any{"tab": two, "ref": beaRef, "text": "x"}},
		{"browser_navigate", map[string]any{"tab": two, "url": r.origin + "/one.html"}},
		{"browser_wait_for", map[string]any{"tab": two, "text": "diary", "time": 1}},
		{"browser_tabs", map[string]any{"action": "select", "tab": two}},
		{"browser_tabs", map[string]any{"action": "close", "tab": two}},
		{"browser_tabs", map[string]any{"action": "new", "tab": two, "url": r.origin + "/two.html"}},
	} {
		text, isErr := call(try.tool, try.args)
		if !isErr || !strings.HasPrefix(text, vocab.CodeShareRequired+": ") {
			t.Errorf("Ada's %s %v on Bea's tab: %s; want %s", try.tool, try.args, text, vocab.CodeShareRequired)
		}
	}
	if n := r.asked() - asked; n != 2 {
		t.Errorf("the person was asked %d times, want twice, for Ada's own select and click", n)
	}
	if n := len(r.clicks("bea")); n != 0 {
		t.Errorf("Bea's button saw %d clicks", n)
	}
	if n := len(r.clicks("ada")); n != 1 {
		t.Errorf("Ada's button saw %d clicks, want 1", n)
	}
	for _, text := range heard {
		for _, secret := range []string{"Tab of Bea", "Bea's diary", "/two.html", "e2e agent Bea"} {
			if strings.Contains(text, secret) {
				t.Errorf("an answer to Ada holds %q:\n%s", secret, text)
			}
		}
	}

	// The person's list, the log and the strip say whom each tab is for.
	for _, tb := range r.rt.Tabs() {
		if want := map[string]string{one: persondoor.AgentKey(ada), two: persondoor.AgentKey(bea)}[tb.ID]; tb.Agent != want {
			t.Errorf("tab %s shared with %q, want %q", tb.ID, tb.Agent, want)
		}
	}
	rows := r.auditRows(persondoor.AuditFilter{Tab: two, Act: string(vocab.Share)})
	if len(rows) == 0 || !strings.Contains(rows[0].Detail, "e2e agent Bea") || !strings.Contains(rows[0].Detail, " alone") {
		t.Errorf("the share row of Bea's tab: %+v", rows)
	}
	refused := r.auditRows(persondoor.AuditFilter{Tab: two, Outcome: vocab.OutcomeRefused})
	if len(refused) < 8 {
		t.Errorf("%d refusals on Bea's tab were logged, want each of Ada's tries", len(refused))
	}
	for _, row := range refused {
		if row.TabTitle != "" {
			t.Errorf("a refusal of Ada's try keeps the tab's title: %+v", row)
		}
	}

	// Shared with every allowed agent again, Ada reads it.
	if err := r.rt.PersonDoor().SetShare(two, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	testenv.WaitWithin(t, 10*time.Second, "Ada to read the tab shared with every agent", func() bool {
		text, isErr := mcptest.Call(t, adaMCP, "browser_snapshot", map[string]any{"tab": two})
		return !isErr && strings.Contains(text, "Bea's diary")
	})
}
