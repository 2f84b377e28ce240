package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/vocab"
)

func mustParse(t *testing.T, s string) *Policy {
	t.Helper()
	p, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return p
}

// A policy Reins cannot read whole is not honoured in part: each of these
// is an error, and the error names what is wrong.
func TestParseRefusesWhatItCannotHonour(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"sites": {"never": ["*.bank.example"]}`, "not valid JSON"},
		{`[]`, "must be a JSON object"},
		{`{"allowOnTabs": false}`, `the key "allowOnTabs" is not one Reins knows`},
		{`{"sites": {"nevr": []}}`, `"nevr" in sites`},
		{`{"audit": {"syslog": {"address": "a:1", "tsl": {}}}}`, `"tsl" in audit.syslog`},
		{`{"allowOnTab": "no"}`, "allowOnTab must be true or false"},
		{`{"allowOnTab": null}`, "allowOnTab is null"},
		{`{"maxPlanSteps": 0}`, "maxPlanSteps must be from 1 to 30"},
		{`{"maxPlanSteps": 2.5}`, "maxPlanSteps must be a whole number"},
		{`{"sites": {"never": ["https://bank.example/login"]}}`, "without a path"},
		{`{"sites": {"never": ["bank.*.example"]}}`, "* stands only alone"},
		{`{"sites": {"never": ["bänk.example"]}}`, "punycode"},
		{`{"sites": {"only": ["ftp://files.example"]}}`, "only http:// and https://"},
		{`{"sites": {"maxLevel": {"mail.example.com": "write"}}}`, `must be "none", "read" or "control"`},
		{`{"desktop": "full"}`, `desktop must be "none", "read" or "control"`},
		{`{"agents": [{"program": "claude"}]}`, "must be an absolute path"},
		{`{"agents": [{"script": "/x.js"}]}`, `needs "program"`},
		{`{"agents": [{"program": "/usr/bin/node", "args": []}]}`, `"args" in agents[0]`},
		{`{"approvalTimeoutSeconds": {"min": 60, "max": 30}}`, "is more than its max"},
		{`{"approvalTimeoutSeconds": {"max": 3600}}`, "must be from 5 to 300"},
		{`{"audit": {"syslog": {"address": "logs.example.org"}}}`, "not host:port"},
		{`{"audit": {"otlp": {"url": "http://otel.example.org/v1/logs"}}}`, "unencrypted"},
		{`{"audit": {"otlp": {"url": "https://o.example/v1/logs", "tls": {"cert": "/c.pem"}}}}`, `needs both "cert" and "key"`},
		{`{"audit": {"syslog": {"address": "a:1", "tls": {"ca": "ca.pem"}}}}`, "must be an absolute path"},
		{`{"retention": {"megabytes": 5}}`, "at least 16"},
		{`{"heartbeatMinutes": 0}`, "from 1 to 1440"},
		{`{"denyApplications": [""]}`, "empty"},
	} {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v; want an error saying %q", c.in, err, c.want)
		}
	}
}

func TestSitePatterns(t *testing.T) {
	for _, c := range []struct {
		pattern, origin string
		want            bool
	}{
		{"*", "https://anything.example", true},
		{"bank.example", "https://bank.example", true},
		{"bank.example", "http://bank.example:8080", true},
		{"bank.example", "https://www.bank.example", false},
		{"*.bank.example", "https://bank.example", true},
		{"*.bank.example", "https://www.bank.example", true},
		{"*.bank.example", "https://a.b.bank.example:444", true},
		{"*.bank.example", "https://evilbank.example", false},
		{"*.bank.example", "https://bank.example.evil.test", false},
		{"https://bank.example", "http://bank.example", false},
		{"https://bank.example", "https://bank.example", true},
		{"BANK.example", "https://bank.example", true},
		{"mail.example.com:8443", "https://mail.example.com:8443", true},
		{"mail.example.com:8443", "https://mail.example.com", false},
		{"mail.example.com:443", "https://mail.example.com", true},
		{"http://mail.example.com:80", "http://mail.example.com", true},
		{"127.0.0.1", "http://127.0.0.1:5173", true},
		{"[::1]:8080", "http://[::1]:8080", true},
		{"[::1]", "http://[0:0:0:0:0:0:0:1]:9", true},
		{"bank.example", "", false},
		{"*", "", true},
	} {
		s, err := ParseSite(c.pattern)
		if err != nil {
			t.Fatalf("ParseSite(%q): %v", c.pattern, err)
		}
		if got := s.Match(c.origin); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.pattern, c.origin, got, c.want)
		}
	}
}

// Each site rule only narrows; where several name one origin, the lowest
// level counts, and the rule is named.
func TestSiteLimits(t *testing.T) {
	p := mustParse(t, `{"sites": {"never": ["*.bank.example"], "only": ["*.example.com", "*.bank.example", "*.webmail.example"],
		"maxLevel": {"*.example.com": "control", "mail.example.com": "read", "*.webmail.example": "read", "old.mail.example.com": "none"}}}`)
	for origin, want := range map[string]Limit{
		"https://www.bank.example":         {vocab.None, "sites.never lists *.bank.example"},
		"https://shop.example.com":         {vocab.Control, ""},
		"https://mail.example.com":         {vocab.ReadOnly, "sites.maxLevel caps mail.example.com at read"},
		"https://old.mail.example.com":     {vocab.None, "sites.maxLevel caps old.mail.example.com at none"},
		"https://inbox.webmail.example":    {vocab.ReadOnly, "sites.maxLevel caps *.webmail.example at read"},
		"https://elsewhere.example.org":    {vocab.None, "sites.only does not list it"},
		"http://127.0.0.1:8080":            {vocab.None, "sites.only does not list it"},
		"https://www.bank.example.example": {vocab.None, "sites.only does not list it"},
	} {
		if got := p.Site(origin); got != want {
			t.Errorf("Site(%s) = %+v, want %+v", origin, got, want)
		}
	}
	var none *Policy
	if l := none.Site("https://www.bank.example"); l.Level != vocab.Control {
		t.Errorf("no policy limits %v", l)
	}
	if l := mustParse(t, `{"sites": {"only": []}}`).Site("https://a.example"); l.Level != vocab.None || l.Rule != "sites.only lists no site" {
		t.Errorf("an empty only list: %+v", l)
	}
}

func TestTheRestNarrowsOnly(t *testing.T) {
	p := mustParse(t, `{"desktop": "read", "allowOnTab": false, "plans": false, "maxPlanSteps": 4,
		"approvalTimeoutSeconds": {"min": 15, "max": 60}, "denyApplications": ["Signal", "signal", "KeePassXC"], "heartbeatMinutes": 5}`)
	if l := p.Desktop(); l.Level != vocab.ReadOnly || l.Rule != "desktop is read" {
		t.Errorf("Desktop = %+v", l)
	}
	if p.AllowOnTab() || p.Plans() || p.MaxPlanSteps() != 4 || p.Heartbeat() != 5*time.Minute {
		t.Errorf("allowOnTab %v plans %v max %d heartbeat %v", p.AllowOnTab(), p.Plans(), p.MaxPlanSteps(), p.Heartbeat())
	}
	if got := p.DenyApplications(); strings.Join(got, ",") != "Signal,KeePassXC" {
		t.Errorf("DenyApplications = %v", got)
	}
	for in, want := range map[time.Duration]time.Duration{5 * time.Second: 15 * time.Second, 30 * time.Second: 30 * time.Second, 5 * time.Minute: time.Minute} {
		if got := p.ClampTimeout(in); got != want {
			t.Errorf("ClampTimeout(%v) = %v, want %v", in, got, want)
		}
	}
	var none *Policy
	if !none.AllowOnTab() || !none.Plans() || none.ClampTimeout(5*time.Minute) != 5*time.Minute || none.Desktop().Level != vocab.Control || none.AgentsPinned() {
		t.Error("no policy narrowed something")
	}
	if p.Lines() == nil || none.Lines() != nil {
		t.Error("Lines")
	}
}

// A policy that cannot be honoured stands for one that forbids everything,
// and every refusal says why and what to do.
func TestBrokenFailsClosed(t *testing.T) {
	_, err := Parse([]byte(`{"agentz": []}`))
	st := State{Source: LinuxPath, Err: err, Hash: "sha256:x"}
	p := st.Effective()
	if l := p.Site("https://example.org"); l.Level != vocab.None {
		t.Errorf("a broken policy lets a site be shared: %+v", l)
	}
	if p.Desktop().Level != vocab.None || !p.AgentsPinned() || p.AllowOnTab() || p.Plans() {
		t.Error("a broken policy leaves something open")
	}
	if ok, _ := p.AgentAllowed(Program{Exe: "/usr/bin/claude"}); ok {
		t.Error("a broken policy lets an agent connect")
	}
	for _, s := range []string{st.Broken(), st.Refusal("anything")} {
		for _, want := range []string{LinuxPath, `"agentz"`, "Reins shares nothing and lets no act fire", "correct the file"} {
			if !strings.Contains(s, want) {
				t.Errorf("%q does not say %q", s, want)
			}
		}
	}
	if !st.Managed() || (State{}).Managed() || (State{}).Effective() != nil {
		t.Error("Managed")
	}
}

// procs is a process tree: pid → parent, exe, first argument.
type procs map[int]struct {
	parent    int
	exe, arg1 string
}

func (p procs) Parent(pid int) (int, error)  { return p[pid].parent, nil }
func (p procs) Exe(pid int) (string, error)  { return p[pid].exe, nil }
func (p procs) Arg1(pid int) (string, error) { return p[pid].arg1, nil }

func TestIdentifyAndAgentRules(t *testing.T) {
	tree := procs{
		// A terminal's bash runs claude, a node script, which starts reins mcp.
		10: {1, "/usr/bin/xterm", ""},
		11: {10, "/usr/bin/bash", ""},
		12: {11, "/usr/bin/node", "/usr/local/bin/claude"},
		// Cursor starts reins mcp through sh -c.
		20: {1, "/Applications/Cursor.app/Contents/MacOS/Cursor", ""},
		21: {20, "/bin/sh", "-c"},
		// Cursor starts npx, a node script, which starts sh, which starts reins mcp.
		22: {20, "/usr/local/bin/node", "/usr/local/lib/node_modules/npm/bin/npx-cli.js"},
		23: {22, "/bin/sh", "-c"},
		// A node script run with a relative path: its script is not known.
		30: {11, "/usr/bin/node", "evil.js"},
		// codex, directly.
		40: {11, "/usr/local/bin/codex", "mcp"},
	}
	resolve := func(p string) string {
		if p == "/usr/local/bin/claude" {
			return "/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js"
		}
		return p
	}
	for pid, want := range map[int]Program{
		12: {Exe: "/usr/bin/node", Script: "/usr/local/bin/claude", ScriptResolved: "/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js", Launcher: "/usr/bin/xterm"},
		21: {Exe: "/Applications/Cursor.app/Contents/MacOS/Cursor"},
		23: {Exe: "/usr/local/bin/node", Script: "/usr/local/lib/node_modules/npm/bin/npx-cli.js", ScriptResolved: "/usr/local/lib/node_modules/npm/bin/npx-cli.js", Launcher: "/Applications/Cursor.app/Contents/MacOS/Cursor"},
		30: {Exe: "/usr/bin/node", Launcher: "/usr/bin/xterm"},
		40: {Exe: "/usr/local/bin/codex"},
		0:  {},
	} {
		if got := Identify(pid, tree, resolve); got != want {
			t.Errorf("Identify(%d) = %+v, want %+v", pid, got, want)
		}
	}
	p := mustParse(t, `{"agents": [{"program": "/usr/local/bin/codex"},
		{"program": "/usr/bin/node", "script": "/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js"},
		{"program": "/Applications/Cursor.app/"}]}`)
	for pid, want := range map[int]bool{12: true, 21: true, 23: true, 30: false, 40: true, 0: false} {
		if ok, why := p.AgentAllowed(Identify(pid, tree, resolve)); ok != want || (!ok && !strings.HasPrefix(why, "agents does not list")) {
			t.Errorf("pid %d allowed = %v (%s), want %v", pid, ok, why, want)
		}
	}
	// Node itself, named without a script, admits any script: the policy's
	// own choice, said as it is.
	anyNode := mustParse(t, `{"agents": [{"program": "/usr/bin/node"}]}`)
	if ok, _ := anyNode.AgentAllowed(Identify(30, tree, resolve)); !ok {
		t.Error("node named alone does not admit its scripts")
	}
	if ok, why := mustParse(t, `{"agents": []}`).AgentAllowed(Identify(40, tree, resolve)); ok || why != "agents lists no program" {
		t.Errorf("an empty agents list: %v %s", ok, why)
	}
}

// fakeSource answers with each state sent on ch; once stop is closed,
// with the last one again.
type fakeSource struct {
	ch   chan State
	stop chan struct{}
	last State
}

func (f *fakeSource) Read() State {
	select {
	case f.last = <-f.ch:
	case <-f.stop:
	}
	return f.last
}

func TestWatchCallsOnChangeOnly(t *testing.T) {
	stop := make(chan struct{})
	src := &fakeSource{ch: make(chan State), stop: stop}
	got := make(chan State, 4)
	ctx, cancel := contextUntil(stop)
	defer cancel()
	done := make(chan struct{})
	go func() {
		Watch(ctx, src, time.Millisecond, State{}, func(s State) { got <- s })
		close(done)
	}()
	a := State{Source: "/x", Hash: "sha256:a", Policy: &Policy{}}
	src.ch <- State{} // unchanged: nothing
	src.ch <- a
	if s := <-got; !s.Same(a) {
		t.Fatalf("changed(%+v)", s)
	}
	src.ch <- a // the same again: nothing
	b := State{Source: "/x", Hash: "sha256:b", Err: errString("bad")}
	src.ch <- b
	if s := <-got; !s.Same(b) {
		t.Fatalf("changed(%+v)", s)
	}
	close(stop)
	<-done
	if len(got) != 0 {
		t.Fatalf("changed called for an unchanged state: %+v", <-got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
