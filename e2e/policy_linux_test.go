package e2e

// The organisation's policy end to end: the real `reins serve` (a
// reinstest build, which reads its policy from a file the test makes, with
// the same root-only checks as /etc/reins/policy.json), real Chromium with
// the real extension on pages of a bank, a webmail and a shop, and agents
// through the real `reins mcp`.

import (
	"context"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// orgPolicy is a policy file as an administrator keeps it: root's, in a
// folder of root's that no one else may write.
type orgPolicy struct {
	t    *testing.T
	path string
}

func newOrgPolicy(t *testing.T) *orgPolicy {
	dir := filepath.Join(t.TempDir(), "etc-reins")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &orgPolicy{t: t, path: filepath.Join(dir, "policy.json")}
}

// write replaces the policy whole, as an administrator's tool would: a new
// file renamed over the old one.
func (p *orgPolicy) write(body string) {
	p.t.Helper()
	tmp := p.path + ".new"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		p.t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		p.t.Fatal(err)
	}
	if err := os.Rename(tmp, p.path); err != nil {
		p.t.Fatal(err)
	}
}

const (
	sitesRules = `"sites": {"never": ["*.bank.example"], "maxLevel": {"mail.example": "read"}}`
	orgV1      = `{` + sitesRules + `}`
)

func TestOrganisationPolicyEndToEnd(t *testing.T) {
	if _, ok := browsertest.Chromium(); !ok {
		browsertest.Start(t, browsertest.Options{}) // skips on a laptop, fails under CI
	}
	testenv.Need(t, os.Geteuid() == 0, "root, to keep the policy file root's as Reins requires")
	cgo, _ := exec.Command("go", "env", "CGO_ENABLED").Output()
	testenv.Need(t, strings.TrimSpace(string(cgo)) == "1", "cgo (a C compiler) to build reins with the reinstest tag")
	t0 := time.Now()
	bin := buildTestOnlyReins(t)
	t.Logf("built reins -tags reinstest: %v", time.Since(t0))

	pol := newOrgPolicy(t)
	pol.write(orgV1)
	x := xvfb.StartT(t, "1280x800x24")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := append(os.Environ(), "REINS_DATA_DIR="+data, "DISPLAY="+x.Display, "REINS_TEST_POLICY_FILE="+pol.path)

	witness := browsertest.NewWitness()
	origin := browsertest.Serve(t, witness, map[string]string{
		"/keys.html": keysPage(),
		"/bank.html": `<!doctype html><title>Accounts — Bank</title><button>Transfer</button>`,
		"/mail.html": `<!doctype html><title>Inbox — Mail</title><button>Archive</button>`,
	})
	port := strings.TrimPrefix(origin, "http://127.0.0.1:")
	shop, bank, mail := "http://shop.example:"+port, "http://www.bank.example:"+port, "http://mail.example:"+port

	reins := startServe(t, bin, env, dir)
	reins.waitText(10*time.Second, "the policy's banner", 0, "Your organisation's policy is in force (from "+pol.path+")")
	browser := browsertest.Start(t, browsertest.Options{X: x, DataDir: data, Reins: bin, URL: shop + "/keys.html", DevTools: true,
		Args: []string{
			// Plain http on names other than this computer's: pages Reins
			// reads outside a secure context.
			"--host-resolver-rules=MAP shop.example 127.0.0.1,MAP *.bank.example 127.0.0.1,MAP mail.example 127.0.0.1",
		}})
	reins.waitText(testenv.Patience, "the extension", 0, "\nChrome extension connected.")
	// The person opens the bank and the webmail beside the shop.
	for _, u := range []string{bank + "/bank.html", mail + "/mail.html"} {
		devToolsOpen(t, browser.Profile, u)
	}

	// The terminal marks what the policy limits, and refuses what it
	// forbids, naming it, before anything is shared.
	ids := reins.tabIDs(t, shop, bank, mail)
	shopTab, bankTab, mailTab := ids[0], ids[1], ids[2]
	listed := reins.shown(0)
	for _, want := range []string{bank + ")  [organisation: never shared]", mail + ")  [organisation: read at most]"} {
		if !strings.Contains(listed, want) {
			t.Fatalf("the tab list does not say %q:\n%s", want, listed)
		}
	}
	from := reins.typeIn("share " + bankTab + " read")
	reins.waitText(10*time.Second, "the bank's share refused", from, "does not allow that: "+bank+" may not be shared (sites.never lists *.bank.example)")
	from = reins.typeIn("share " + mailTab + " control")
	reins.waitText(10*time.Second, "the mail at control refused", from, "may be shared at Read at most (sites.maxLevel caps mail.example at read)")
	from = reins.typeIn("share " + mailTab + " read")
	reins.waitText(10*time.Second, "the mail at read", from, "Tab "+mailTab+" is now shared: read")
	from = reins.typeIn("share " + shopTab + " control")
	reins.waitText(10*time.Second, "the shop at control", from, "Tab "+shopTab+" is now shared: control")

	// An agent's requests on them are refused, the policy named.
	ctx := context.Background()
	cs := agent(t, bin, env)
	refusedByPolicy := func(what, tool string, args map[string]any, says ...string) {
		t.Helper()
		text, isErr := mcptest.Call(t, cs, tool, args)
		if !isErr || !strings.HasPrefix(text, vocab.CodePolicy+": ") {
			t.Fatalf("%s: want a %s refusal, got (error %v) %q", what, vocab.CodePolicy, isErr, text)
		}
		for _, s := range append([]string{pol.path}, says...) {
			if !strings.Contains(text, s) {
				t.Fatalf("%s: %q does not say %q", what, text, s)
			}
		}
	}
	refusedByPolicy("reading the bank", "browser_snapshot", map[string]any{"tab": bankTab}, "agents may not use this tab's site")
	snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": mailTab})
	refusedByPolicy("clicking in the mail", "browser_click", map[string]any{"tab": mailTab, "ref": mcptest.Ref(t, snap, "button", "Archive"), "element": "Archive"},
		"may read this tab's site but not act in it")

	// settings.json, edited while Reins runs and while it is stopped,
	// loosens none of it.
	settingsFile := filepath.Join(data, "settings.json")
	loosen := func() {
		if err := os.WriteFile(settingsFile, []byte(`{"approvalTimeoutSeconds": 300, "sites": {"never": []}, "policy": null, "auditAnchor": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	loosen()
	from = reins.typeIn("share " + bankTab + " read")
	reins.waitText(10*time.Second, "the bank's share refused, settings.json edited", from, "sites.never lists *.bank.example")
	cs.Close()
	syscall.Kill(reins.pid, syscall.SIGTERM)
	waitExit(t, reins.pid, 20*time.Second)
	loosen()
	reins = startServe(t, bin, env, dir)
	reins.waitText(10*time.Second, "the policy's banner again", 0, "Your organisation's policy is in force")
	reins.waitText(testenv.Patience, "the extension again", 0, "\nChrome extension connected.")
	ids = reins.tabIDs(t, shop, bank, mail)
	shopTab, bankTab, mailTab = ids[0], ids[1], ids[2]
	from = reins.typeIn("share " + bankTab + " read")
	reins.waitText(10*time.Second, "the bank's share refused after a restart", from, "sites.never lists *.bank.example")
	from = reins.typeIn("share " + mailTab + " control")
	reins.waitText(10*time.Second, "the mail at control refused after a restart", from, "may be shared at Read at most")
	from = reins.typeIn("share " + mailTab + " read")
	reins.waitText(10*time.Second, "the mail at read after a restart", from, "Tab "+mailTab+" is now shared: read")

	// A policy change mid-act stops the act: the shop comes onto the
	// never list while an agent types there.
	from = reins.typeIn("share " + shopTab + " control")
	reins.waitText(10*time.Second, "the shop at control", from, "Tab "+shopTab+" is now shared: control")
	cs = agent(t, bin, env)
	mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "select", "tab": shopTab})
	snap = mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": shopTab})
	field := mcptest.Ref(t, snap, "textbox", "Notes")
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 20)[:800]
	witness.Reset("keys")
	typing := mcptest.Go(ctx, cs, "browser_type", map[string]any{"tab": shopTab, "ref": field, "text": text})
	var early *mcptest.Result
	testenv.WaitWithin(t, 30*time.Second, "the page to see the agent's keys", func() bool {
		select {
		case r := <-typing:
			early = &r
			return true
		default:
		}
		events, _ := pageKeys(witness)
		return len(events) >= 20
	})
	if early != nil {
		t.Fatalf("the typing ended before the policy changed: %s\n%s", early.Reply(), reins.shown(0))
	}
	changed := time.Now()
	from = len(reins.shown(0))
	pol.write(`{"sites": {"never": ["*.bank.example", "shop.example"], "maxLevel": {"mail.example": "read"}}}`)
	r := mcptest.Await(t, "the typing", typing, nil)
	if !r.IsErr || !strings.HasPrefix(r.Text, vocab.CodePolicy+": ") || !strings.Contains(r.Text, "changed while this act was under way") {
		t.Fatalf("the typing under a policy that changed: (error %v) %q", r.IsErr, r.Text)
	}
	t.Logf("the act stopped %v after the policy file changed", time.Since(changed).Round(time.Millisecond))
	letGo(t, witness, changed)
	events, held := pageKeys(witness)
	if presses := countAfter(events, time.Time{}).presses; presses >= len(text) || held != 0 {
		t.Fatalf("the page saw %d key presses of %d, and holds %d keys", presses, len(text), held)
	}
	reins.waitText(10*time.Second, "the change said", from, "The organisation's policy changed")
	reins.waitText(10*time.Second, "the shop's share ended", from, "Tab "+shopTab+" is now shared: none")

	// A policy pinning agents refuses an unlisted MCP client before the
	// person is asked.
	from = len(reins.shown(0))
	pol.write(`{` + sitesRules + `, "agents": [{"program": "/usr/local/bin/codex"}]}`)
	reins.waitText(10*time.Second, "the pinning said", from, "The organisation's policy changed")
	approvalsBefore := strings.Count(reins.shown(0), "APPROVAL ")
	refusedByPolicy("the allowed agent, now unlisted", "browser_tabs", nil, "agents does not list")
	newcomer := agent(t, bin, env)
	text2, isErr := mcptest.Call(t, newcomer, "browser_tabs", nil)
	if !isErr || !strings.HasPrefix(text2, vocab.CodePolicy+": ") || !strings.Contains(text2, "the person was not asked") || !strings.Contains(text2, pol.path) {
		t.Fatalf("an unlisted agent's first call: (error %v) %q", isErr, text2)
	}
	if n := strings.Count(reins.shown(0), "APPROVAL "); n != approvalsBefore {
		t.Fatalf("the person was asked about an unlisted agent:\n%s", reins.shown(0))
	}
	// Listed, the test's own program is asked about as ever.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	from = len(reins.shown(0))
	pol.write(`{` + sitesRules + `, "agents": [{"program": "` + self + `"}]}`)
	reins.waitText(10*time.Second, "the listing said", from, "The organisation's policy changed")
	listedAgent := agent(t, bin, env)
	mcptest.MustCall(t, listedAgent, "browser_tabs", nil)

	// A broken policy file refuses every act and share, with a sentence
	// naming the file and the fix, and ends the shares there were.
	from = len(reins.shown(0))
	pol.write(`{` + sitesRules + `, "agents": [}`)
	reins.waitText(10*time.Second, "the broken policy said", from, "cannot be honoured")
	reins.waitText(10*time.Second, "the mail's share ended", from, "Tab "+mailTab+" is now shared: none")
	from = reins.typeIn("share " + shopTab + " read")
	reins.waitText(10*time.Second, "a share under a broken policy", from, "Reins shares nothing and lets no act fire: the organisation's policy ("+pol.path+") cannot be honoured")
	text3, isErr := mcptest.Call(t, listedAgent, "browser_snapshot", map[string]any{"tab": mailTab})
	if !isErr || !strings.Contains(text3, "cannot be honoured") || !strings.Contains(text3, pol.path) || !strings.Contains(text3, "correct the file") {
		t.Fatalf("an agent's read under a broken policy: (error %v) %q", isErr, text3)
	}

	// The log holds the policy in force at each start and change, with
	// the binary's hash, and its chain is whole.
	listedAgent.Close()
	newcomer.Close()
	cs.Close()
	syscall.Kill(reins.pid, syscall.SIGTERM)
	waitExit(t, reins.pid, 20*time.Second)
	log, err := audit.Open(ctx, audit.Options{Path: filepath.Join(data, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if n, err := log.Verify(ctx); err != nil {
		t.Fatalf("the chain breaks after %d rows: %v", n, err)
	}
	rows, err := core.ReadAudit(ctx, log, persondoor.AuditFilter{Act: string(vocab.Policy)})
	if err != nil {
		t.Fatal(err)
	}
	var starts, changes, brokenRows int
	hash := regexp.MustCompile(`binary sha256:[0-9a-f]{64}`)
	for _, row := range rows {
		if !hash.MatchString(row.Detail) {
			t.Errorf("a policy row without the binary's hash: %s", persondoor.FormatAuditRow(row))
		}
		switch {
		case strings.HasPrefix(row.Detail, "Reins started: policy sha256:"):
			starts++
		case strings.HasPrefix(row.Detail, "the policy changed: policy sha256:") && row.Code == vocab.CodePolicy:
			brokenRows++
		case strings.HasPrefix(row.Detail, "the policy changed: policy sha256:"):
			changes++
		}
	}
	if starts != 2 || changes != 3 || brokenRows != 1 {
		var all []string
		for _, row := range rows {
			all = append(all, persondoor.FormatAuditRow(row))
		}
		t.Fatalf("policy rows: %d starts, %d changes, %d broken; want 2, 3, 1:\n%s", starts, changes, brokenRows, strings.Join(all, "\n"))
	}
}

// devToolsOpen opens url in a new tab, as the person would, through the
// browser's DevTools port.
func devToolsOpen(t *testing.T, profile, url string) {
	t.Helper()
	port, err := devToolsPort(profile)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/json/new?%s", port, neturl.QueryEscape(url)), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// tabIDs lists the tabs in the terminal until each origin shows, and
// returns their ids in the order of origins.
func (s *serveProc) tabIDs(t *testing.T, origins ...string) []string {
	t.Helper()
	ids := make([]string, len(origins))
	if !testenv.Eventually(testenv.Patience, func() bool {
		from := s.typeIn("tabs")
		out, _ := s.textWithin(time.Second, from, origins[len(origins)-1])
		found := 0
		for i, o := range origins {
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "("+o+")") {
					ids[i] = strings.Fields(strings.TrimPrefix(line, "*"))[0]
					found++
					break
				}
			}
		}
		return found == len(origins)
	}) {
		t.Fatalf("the tabs on %v are not all in reins serve's list; the terminal showed:\n%s", origins, s.shown(0))
	}
	return ids
}
