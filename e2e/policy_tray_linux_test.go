package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/policy"
)

// TestTrayHostMenuUnderPolicy runs the real tray, on a real tray host,
// under an organisation's policy that forbids *.bank.example and caps a
// webmail at Read, with real Chromium showing both: the menu Reins hands
// the host (read from the bus, as the host reads it) shows their Control,
// and the bank's Read, as not allowed by the organisation, and offers
// neither. A broken policy file leaves only "Not shared" on offer.
func TestTrayHostMenuUnderPolicy(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	testenv.Need(t, os.Geteuid() == 0, "root, to keep the policy file root's as Reins requires")
	d := startDesktop(t)
	d.startPanel(t)
	bin := buildTestOnlyReins(t)
	pol := newOrgPolicy(t)
	pol.write(orgV1)
	d.env = append(d.env, "REINS_TEST_POLICY_FILE="+pol.path)
	data := filepath.Join(t.TempDir(), "data")
	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{
		"/bank.html": `<!doctype html><title>Accounts — Bank</title><button>Transfer</button>`,
		"/mail.html": `<!doctype html><title>Inbox — Mail</title><button>Archive</button>`,
	})
	port := strings.TrimPrefix(origin, "http://127.0.0.1:")
	bank, mail := "http://www.bank.example:"+port, "http://mail.example:"+port

	tray := d.startReins(t, bin, data)
	tray.waitLine(t, "the tray to start", 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "Reins is running.") })
	item := d.waitItem(t, tray, true)
	browser := browsertest.Start(t, browsertest.Options{X: d.x, DataDir: data, Reins: bin, URL: bank + "/bank.html", DevTools: true, Width: 1000, Height: 700,
		Args: []string{
			"--host-resolver-rules=MAP *.bank.example 127.0.0.1,MAP mail.example 127.0.0.1",
		}})
	testenv.WaitWithin(t, 30*time.Second, "the bank's tab in the menu", func() bool {
		_, ok := d.menuLayout(t, item).find("Tabs", "Accounts — Bank")
		return ok
	})
	devToolsOpen(t, browser.Profile, mail+"/mail.html")
	testenv.WaitWithin(t, 30*time.Second, "the webmail's tab in the menu", func() bool {
		_, ok := d.menuLayout(t, item).find("Tabs", "Inbox — Mail")
		return ok
	})

	menu := d.menuLayout(t, item)
	if _, ok := menu.find(ui.ManagedLine(policy.State{Policy: &policy.Policy{}})); !ok {
		t.Fatalf("the menu does not say it is managed: %s", menu.labels())
	}
	for _, c := range []struct {
		tab, choice string
		offered     bool
	}{
		{"Accounts — Bank", "Not shared", true},
		{"Accounts — Bank", "Read", false},
		{"Accounts — Bank", "Control", false},
		{"Inbox — Mail", "Not shared", true},
		{"Inbox — Mail", "Read", true},
		{"Inbox — Mail", "Control", false},
	} {
		e, ok := menu.find("Tabs", c.tab, c.choice)
		if !ok {
			tabs, _ := menu.find("Tabs")
			t.Fatalf("no %q for %s in: %s", c.choice, c.tab, tabs.labels())
		}
		if e.selectable() != c.offered || (!c.offered && e.label != c.choice+ui.ManagedMark) {
			t.Errorf("%s › %q: offered %v, want %v", c.tab, e.label, e.selectable(), c.offered)
		}
	}

	// Broken: nothing but "Not shared" is offered, and the menu says why.
	pol.write(`{"sites": `)
	testenv.WaitWithin(t, 10*time.Second, "the menu to say the policy cannot be read", func() bool {
		m := d.menuLayout(t, item)
		return len(m.children) > 1 && strings.Contains(m.children[1].label, "cannot be read")
	})
	menu = d.menuLayout(t, item)
	for _, tab := range []string{"Accounts — Bank", "Inbox — Mail"} {
		for _, choice := range []string{"Read", "Control"} {
			if e, ok := menu.find("Tabs", tab, choice); !ok || e.selectable() {
				t.Errorf("under a broken policy, %s › %q is offered", tab, e.label)
			}
		}
	}
	desk, _ := menu.find("Desktop")
	for _, e := range desk.children {
		if e.selectable() && e.label != "Not shared" {
			t.Errorf("under a broken policy, the desktop offers %q", e.label)
		}
	}
}
