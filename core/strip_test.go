package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// fakeLink is the bridge as the strip sees it: it records what would be
// pushed to the extension and holds the handler of its requests and the
// share table's source. Like the bridge, it sends a table only when it
// differs from the last one sent (the bridge counts per connection; the
// fake, per profile).
type fakeLink struct {
	mu      sync.Mutex
	sent    []notice // guarded by mu
	handler bridge.Handler
	table   func(string, string) protocol.Shares
	last    map[string]string // guarded by mu: by profile, the last table without Seq
	seq     uint64            // guarded by mu
}

type notice struct {
	profile, method string
	params          json.RawMessage
}

func (l *fakeLink) Notify(ctx context.Context, profile, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.sent = append(l.sent, notice{profile, method, raw})
	l.mu.Unlock()
	return nil
}

func (l *fakeLink) ShareTable(f func(string, string) protocol.Shares) {
	l.mu.Lock()
	l.table = f
	l.mu.Unlock()
}

func (l *fakeLink) PushShares(ctx context.Context, profile string) error {
	l.mu.Lock()
	f := l.table
	l.mu.Unlock()
	t := f(profile, "")
	key, _ := json.Marshal(t)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[string]string{}
	}
	if l.last[profile] == string(key) {
		return nil
	}
	l.last[profile] = string(key)
	l.seq++
	t.Seq = l.seq
	raw, _ := json.Marshal(t)
	l.sent = append(l.sent, notice{profile, protocol.EventShares, raw})
	return nil
}

func (l *fakeLink) Handle(h bridge.Handler) {
	l.mu.Lock()
	l.handler = h
	l.mu.Unlock()
}

func (l *fakeLink) notices(method string) []notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []notice
	for _, n := range l.sent {
		if n.method == method {
			out = append(out, n)
		}
	}
	return out
}

// ask sends a request as the extension would.
func (l *fakeLink) ask(method string, params any) error {
	raw, _ := json.Marshal(params)
	l.mu.Lock()
	h := l.handler
	l.mu.Unlock()
	_, err := h(context.Background(), coretest.Profile, method, raw)
	return err
}

func lastShares(t *testing.T, l *fakeLink) (protocol.Shares, bool) {
	t.Helper()
	ns := l.notices(protocol.EventShares)
	if len(ns) == 0 {
		return protocol.Shares{}, false
	}
	var s protocol.Shares
	if err := json.Unmarshal(ns[len(ns)-1].params, &s); err != nil {
		t.Fatal(err)
	}
	return s, true
}

func stripFixture(t *testing.T, timeout time.Duration) (*fixture, *fakeLink) {
	f := newFixture(t, timeout)
	l := &fakeLink{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.ServeStrip(ctx, l)
	return f, l
}

func TestStripSendsTheShareTableOnConnectAndOnEveryChange(t *testing.T) {
	f, l := stripFixture(t, 2*time.Second)
	levelIs := func(level, origin string, paused bool) func() bool {
		return func() bool {
			s, ok := lastShares(t, l)
			return ok && len(s.Tabs) == 1 && s.Tabs[0].Tab == 7 && s.Tabs[0].Level == level && s.Tabs[0].Origin == origin && s.Paused == paused
		}
	}
	testenv.WaitFor(t, "the first table: tab 7 not shared", levelIs(protocol.LevelNone, "", false))
	if err := f.SetShare(f.tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "tab 7 at read", levelIs(protocol.LevelRead, "https://shop.example.com", false))
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "tab 7 at control", levelIs(protocol.LevelControl, "https://shop.example.com", false))
	f.Pause(true)
	testenv.WaitFor(t, "the table to say paused", levelIs(protocol.LevelControl, "https://shop.example.com", true))
	f.Pause(false)
	testenv.WaitFor(t, "the table to say resumed", levelIs(protocol.LevelControl, "https://shop.example.com", false))

	// A tab list that changes nothing the table holds sends no table.
	n := len(l.notices(protocol.EventShares))
	f.Browser.SetFocused(7, false)
	f.Browser.Open(8, coretest.Page{URL: "https://mail.example.com/", Title: "Mail", Frames: shop().Frames})
	testenv.WaitFor(t, "the new tab in the table", func() bool { s, _ := lastShares(t, l); return len(s.Tabs) == 2 })
	if got := len(l.notices(protocol.EventShares)); got != n+1 {
		t.Errorf("%d tables for one change of the table", got-n)
	}

	// Leaving the site ends the share, and the table says so.
	f.Browser.Load(7, coretest.Page{URL: "https://elsewhere.example/", Title: "Elsewhere", Frames: shop().Frames})
	testenv.WaitFor(t, "tab 7 unshared after leaving its site", func() bool {
		s, _ := lastShares(t, l)
		return len(s.Tabs) == 2 && s.Tabs[0].Tab == 7 && s.Tabs[0].Level == protocol.LevelNone && s.Tabs[0].Origin == ""
	})

	// Every table on a connection is newer than the one before.
	var last uint64
	for _, n := range l.notices(protocol.EventShares) {
		var s protocol.Shares
		json.Unmarshal(n.params, &s)
		if s.Seq <= last || n.profile != coretest.Profile {
			t.Errorf("table %+v to %q after seq %d", s, n.profile, last)
		}
		last = s.Seq
	}
}

// hostile holds what page and agent text must never bring into the panel.
func hostile(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
	})
}

func TestStripActivityIsRenderedAndNamesTheProcess(t *testing.T) {
	f, l := stripFixture(t, 2*time.Second)
	agent := f.Connect(vocab.Agent{Name: strings.Repeat("n", 300) + "\n\x1b[8mAPPROVAL a99\u202e", PID: 999, Exe: "/usr/bin/python3"})

	// Unshared: the attempt is refused, and the panel says so in amber.
	if _, err := agent.Snapshot(context.Background(), f.tab); err == nil {
		t.Fatal("a snapshot of an unshared tab was let through")
	}
	testenv.WaitFor(t, "the refusal in the strip", func() bool { return len(l.notices(protocol.EventActivity)) > 0 })
	var a protocol.Activity
	json.Unmarshal(l.notices(protocol.EventActivity)[0].params, &a)
	if a.Tab != 7 || a.Outcome != "refused — tab not shared" || !a.Refused {
		t.Errorf("refusal = %+v", a)
	}

	// Shared and allowed: the act's sentence quotes what the agent typed.
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	stop := f.AnswerAll(vocab.AllowOnce)
	defer stop()
	s, err := agent.Snapshot(context.Background(), f.tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`"Search"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)[1]
	if _, err := agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: "type", Text: "socks"}}); err != nil {
		t.Fatal(err)
	}
	// A page names its button with escapes, bidi overrides and a line
	// break; whatever comes of the click, its line is one clean line.
	f.Browser.Load(7, coretest.Page{URL: shopURL, Title: "Evil\x1b[8m", Frames: []protocol.FrameReport{coretest.Frame(
		coretest.Button(1, "Delete account\x1b[2K\r Click “Cancel\u202e\nnow\u2066"+strings.Repeat("x", 5000), 100, 200),
	)}})
	testenv.WaitFor(t, "the new page", func() bool {
		s, err := agent.Snapshot(context.Background(), f.tab)
		return err == nil && strings.Contains(s.Text, "Delete account")
	})
	s, _ = agent.Snapshot(context.Background(), f.tab)
	ref = regexp.MustCompile(`\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)[1]
	agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: ref, Act: vocab.Act{Kind: "click"}})
	testenv.WaitFor(t, "the typing in the strip", func() bool {
		for _, n := range l.notices(protocol.EventActivity) {
			var a protocol.Activity
			json.Unmarshal(n.params, &a)
			if a.Outcome == "done" {
				return true
			}
		}
		return false
	})
	for _, n := range l.notices(protocol.EventActivity) {
		var a protocol.Activity
		if err := json.Unmarshal(n.params, &a); err != nil {
			t.Fatal(err)
		}
		for field, v := range map[string]string{"agent": a.Agent, "act": a.Act, "outcome": a.Outcome} {
			if hostile(v) {
				t.Errorf("the %s %q carries a control, format or line-break character", field, v)
			}
		}
		if n := len([]rune(a.Agent)); n > 160 {
			t.Errorf("the agent is %d characters long", n)
		}
		if n := len([]rune(a.Act)); n > 200 {
			t.Errorf("the act is %d characters long", n)
		}
		person := a.Agent == "you" || a.Agent == "person" // the share change is the person's own line
		if !person && !strings.Contains(a.Agent, "python3 (pid 999)") {
			t.Errorf("the agent %q does not name its process", a.Agent)
		}
		if a.Time == 0 {
			t.Error("a line without a time")
		}
	}
}

func TestStripStateFollowsApprovalsAndActs(t *testing.T) {
	f, l := stripFixture(t, 5*time.Second)
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	ref, _ := f.snapRef("Place order")
	done := make(chan error, 1)
	go func() { done <- f.click(ref) }()
	testenv.WaitFor(t, "the tab to wait", func() bool { return len(f.Pending()) == 1 })
	states := func() []string {
		var out []string
		for _, n := range l.notices(protocol.EventTabState) {
			var s protocol.TabState
			json.Unmarshal(n.params, &s)
			if s.Tab == 7 {
				out = append(out, s.State)
			}
		}
		return out
	}
	testenv.WaitFor(t, "state waiting", func() bool { s := states(); return len(s) > 0 && s[len(s)-1] == protocol.StateWaiting })
	if err := f.Answer(f.Pending()[0].ID, vocab.AllowOnce); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "state idle after the act", func() bool { s := states(); return len(s) >= 4 && s[len(s)-1] == protocol.StateIdle })
	want := []string{protocol.StateWaiting, protocol.StateIdle, protocol.StateFiring, protocol.StateIdle}
	if got := states(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("states %v, want %v", got, want)
	}
	// The line "firing" is the state's, not a line of activity.
	for _, n := range l.notices(protocol.EventActivity) {
		if strings.Contains(string(n.params), `"firing"`) {
			t.Errorf("a firing line was sent: %s", n.params)
		}
	}
}

func TestStripGreetsAReconnectedExtensionWithEverything(t *testing.T) {
	f, l := stripFixture(t, 2*time.Second)
	agent := f.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	agent.Snapshot(context.Background(), f.tab) // refused: not shared
	if err := f.SetShare(f.tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Snapshot(context.Background(), f.tab); err != nil {
		t.Fatal(err)
	}
	// The refusal, the person's share and the read.
	testenv.WaitFor(t, "three lines", func() bool { return len(l.notices(protocol.EventActivity)) == 3 })
	f.Browser.Disconnect()
	f.Browser.Connect()
	testenv.WaitFor(t, "the lines again", func() bool { return len(l.notices(protocol.EventActivity)) == 6 })
	ns := l.notices(protocol.EventActivity)
	for i := range 3 {
		if string(ns[3+i].params) != string(ns[i].params) {
			t.Errorf("line %d of the backlog differs from what was sent:\n%s\n%s", i, ns[3+i].params, ns[i].params)
		}
	}
	s, _ := lastShares(t, l)
	if len(s.Tabs) != 1 || s.Tabs[0].Level != protocol.LevelRead {
		t.Errorf("the table after reconnecting: %+v", s)
	}
}

func TestStripButtonsTakePowerAwayThroughThePersonsPath(t *testing.T) {
	f, l := stripFixture(t, 2*time.Second)
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	// A field the request does not have asks for nothing.
	if err := l.ask(protocol.MethodStopSharing, map[string]any{"tab": 7, "level": "control"}); err != nil {
		t.Fatal(err)
	}
	if got := f.Share(f.tab); got != vocab.None {
		t.Fatalf("after stop_sharing the tab is at %v", got)
	}
	rows, err := f.AuditRows(context.Background(), persondoor.AuditFilter{Tab: f.tab})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0].AgentName != "person" || rows[0].ActKind != "share" || !strings.Contains(rows[0].Detail, "none") {
		t.Errorf("the stop was not audited as the person's share change: %+v", rows)
	}
	var perr *protocol.Error
	if err := l.ask(protocol.MethodStopSharing, protocol.StopSharing{Tab: 999}); !errors.As(err, &perr) || perr.Code != protocol.CodeNoTab {
		t.Errorf("stop_sharing of an unknown tab: %v", err)
	}
	if err := l.ask(protocol.MethodPauseAll, map[string]any{"on": false}); err != nil {
		t.Fatal(err)
	}
	if !f.Paused() {
		t.Fatal("pause_all did not pause")
	}
	for _, m := range []string{"share", "resume", "answer", "approve", "allow_agent"} {
		if err := l.ask(m, map[string]any{"tab": 7, "level": "control", "on": false}); !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownMethod {
			t.Errorf("%s: %v, want unknown_method", m, err)
		}
	}
	if !f.Paused() || f.Share(f.tab) != vocab.None {
		t.Fatal("a request from the extension gave power back")
	}
}

// The whole way from a real socket: whatever the extension sends, requests
// and events alike, no share is raised, no pause lifted and no approval
// answered; only stop_sharing and pause_all do anything, and they take away.
func TestNothingFromTheExtensionGivesPower(t *testing.T) {
	ctx, br, e, secret := engineOnARealBridge(t)

	var mu sync.Mutex
	var tables []protocol.Shares
	ext, err := bridgetest.Dial(ctx, bridgetest.DialOptions{
		URL: fmt.Sprintf("ws://127.0.0.1:%d/bridge", br.Port()), Origin: extension.Origin, Secret: secret, Profile: "p",
		Handler: func(method string, params json.RawMessage) (any, *protocol.Error) {
			if method == protocol.MethodTabs {
				return protocol.TabsResult{Tabs: []protocol.Tab{{ID: 3, URL: "https://bank.example/", Title: "Bank", Active: true}}}, nil
			}
			return struct{}{}, nil
		},
		OnEvent: func(method string, params json.RawMessage) {
			if method == protocol.EventShares {
				var s protocol.Shares
				json.Unmarshal(params, &s)
				mu.Lock()
				tables = append(tables, s)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	var tab string
	testenv.WaitFor(t, "the tab", func() bool {
		for _, ti := range e.Tabs() {
			tab = ti.ID
			return true
		}
		return false
	})
	testenv.WaitFor(t, "the first table", func() bool { mu.Lock(); defer mu.Unlock(); return len(tables) > 0 })
	if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}

	// An act waits for the person: nothing from the extension may answer it.
	agent := e.Connect(vocab.Agent{Name: "a", PID: 1, Exe: "/bin/a"})
	e.SetShare(vocab.DesktopKey, vocab.Control)
	asked := make(chan error, 1)
	go func() {
		_, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: "click"}, X: 1, Y: 1})
		asked <- err
	}()
	testenv.WaitFor(t, "the approval", func() bool { return len(e.Pending()) == 1 })
	id := e.Pending()[0].ID

	attempts := []struct {
		method string
		params any
	}{
		{"share", map[string]any{"tab": 3, "level": "control"}},
		{"set_share", map[string]any{"tab": 3, "level": "control"}},
		{"shares", protocol.Shares{Seq: 99, Tabs: []protocol.TabShare{{Tab: 3, Level: protocol.LevelControl}}}},
		{"resume", map[string]any{}},
		{"pause", map[string]any{"on": false}},
		{"answer", map[string]any{"id": id, "decision": "allow"}},
		{"approve", map[string]any{"id": id}},
		{"allow", map[string]any{"id": id}},
		{"allow_agent", map[string]any{"key": "a · /bin/a"}},
		{"handoff_done", map[string]any{"tab": 3}},
		{protocol.MethodStopSharing, map[string]any{"tab": 3, "level": "control"}},
	}
	for _, a := range attempts {
		err := ext.Call(ctx, a.method, a.params, nil)
		if a.method == protocol.MethodStopSharing {
			if err != nil {
				t.Fatalf("stop_sharing: %v", err)
			}
			continue
		}
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownMethod {
			t.Errorf("request %s: %v, want unknown_method", a.method, err)
		}
		// The same as events, which the extension may push unasked.
		if err := ext.Emit(ctx, a.method, a.params); err != nil {
			t.Fatal(err)
		}
	}
	if err := ext.Call(ctx, protocol.MethodPauseAll, map[string]any{"on": false}, nil); err != nil {
		t.Fatal(err)
	}
	// The events above went through the engine before this request was
	// served: the socket is read in order.
	if got := e.Share(tab); got != vocab.None {
		t.Errorf("the tab is at %v", got)
	}
	if !e.Paused() {
		t.Error("pause_all did not pause")
	}
	// Pause refuses the waiting act only once it is answered; it is still
	// the person's to answer.
	if p := e.Pending(); len(p) != 1 || p[0].ID != id {
		t.Errorf("the approval was answered or withdrawn: %+v", p)
	}
	if err := e.Answer(id, vocab.Deny); err != nil {
		t.Fatal(err)
	}
	if err := <-asked; err == nil {
		t.Error("the act went through")
	}
	testenv.WaitFor(t, "the table to say paused and unshared", func() bool {
		mu.Lock()
		defer mu.Unlock()
		last := tables[len(tables)-1]
		return last.Paused && len(last.Tabs) == 1 && last.Tabs[0].Level == protocol.LevelNone
	})
}

// The extension refuses a snapshot of a tab its latest table does not
// share, so a share the person just gave must reach it before the
// snapshot does: the bridge sends the table first, on the same socket.
func TestASnapshotRightAfterSharingFindsTheTableThere(t *testing.T) {
	ctx, br, e, secret := engineOnARealBridge(t)

	// The fake extension answers as sw.js does: only for a tab its latest
	// table shares at read.
	var mu sync.Mutex
	level := map[int]string{} // guarded by mu
	refused := 0              // guarded by mu
	ext, err := bridgetest.Dial(ctx, bridgetest.DialOptions{
		URL: fmt.Sprintf("ws://127.0.0.1:%d/bridge", br.Port()), Origin: extension.Origin, Secret: secret, Profile: "p",
		Handler: func(method string, params json.RawMessage) (any, *protocol.Error) {
			switch method {
			case protocol.MethodTabs:
				return protocol.TabsResult{Tabs: []protocol.Tab{{ID: 3, URL: shopURL, Title: "Cart — Shop", Active: true, Status: "complete"}}}, nil
			case protocol.MethodSnapshot:
				mu.Lock()
				defer mu.Unlock()
				if level[3] != protocol.LevelRead && level[3] != protocol.LevelControl {
					refused++
					return nil, &protocol.Error{Code: protocol.CodeNotShared, Message: "tab 3 is not shared in the extension's latest share table"}
				}
				f := shop().Frames[0]
				f.Parent, f.URL, f.Origin, f.Doc = -1, shopURL, "https://shop.example.com", "d1"
				return protocol.SnapshotResult{Tab: 3, Zoom: 1, Frames: []protocol.FrameReport{f}}, nil
			}
			return struct{}{}, nil
		},
		OnEvent: func(method string, params json.RawMessage) {
			if method != protocol.EventShares {
				return
			}
			var s protocol.Shares
			json.Unmarshal(params, &s)
			mu.Lock()
			level = map[int]string{}
			for _, ts := range s.Tabs {
				level[ts.Tab] = ts.Level
			}
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	var tab string
	testenv.WaitFor(t, "the tab", func() bool {
		for _, ti := range e.Tabs() {
			tab = ti.ID
			return true
		}
		return false
	})
	agent := e.Connect(vocab.Agent{Name: "a", PID: 1, Exe: "/bin/a"})
	for i := range 20 {
		if err := e.SetShare(tab, vocab.ReadOnly); err != nil {
			t.Fatal(err)
		}
		if _, err := agent.Snapshot(ctx, tab); err != nil {
			t.Fatalf("snapshot %d right after sharing: %v", i, err)
		}
		if err := e.SetShare(tab, vocab.None); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if refused != 0 {
		t.Errorf("the extension refused %d snapshots: the table came after them", refused)
	}
}

// engineOnARealBridge is an engine serving the strip over a real bridge on
// loopback, for a fake extension that dials it with secret; both stop when
// the test ends, and so does ctx.
func engineOnARealBridge(t *testing.T) (ctx context.Context, br *bridge.Server, e *core.Engine, secret []byte) {
	t.Helper()
	secret = []byte("0123456789abcdef0123456789abcdef")
	br, err := bridge.New(bridge.Options{Origin: extension.Origin, Secret: secret, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := br.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	e = core.New(core.Options{Browser: br, Audit: log, Executor: &executor.Fake{}, ApprovalTimeout: 3 * time.Second, Logf: t.Logf})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e.ServeStrip(ctx, br)
	go e.Run(ctx)
	t.Cleanup(func() { e.Close() })
	return ctx, br, e, secret
}

func TestANewBrowserRunGetsNoSharesBeforeReinsHasTakenItIn(t *testing.T) {
	f, l := stripFixture(t, 2*time.Second)
	if err := f.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	table := l.table
	l.mu.Unlock()
	if s := table(coretest.Profile, ""); len(s.Tabs) != 1 || s.Tabs[0].Level != protocol.LevelControl {
		t.Fatalf("the run Reins knows: %+v", s)
	}
	// A connection of another run, before its connected event: the tab
	// numbers Reins knows may be that run's other tabs.
	if s := table(coretest.Profile, "a run Reins has not heard of"); len(s.Tabs) != 0 {
		t.Fatalf("a new run's table shares %+v", s.Tabs)
	}
}

// The strip names the one agent a tab is shared with, in the table the
// extension shows and in the tab's activity; and a tab that a shared tab's
// page opens gets a line of its own saying it is not shared.
func TestStripNamesTheAgentOfAShareAndTheTabsAPageOpened(t *testing.T) {
	f, l := stripFixture(t, 2*time.Second)
	alice := coretest.Admitted(t, f.AgentDoor(), f.PersonDoor(), vocab.Agent{Name: "Alice", PID: 4121, Exe: "/usr/bin/claude"})
	if err := f.PersonDoor().ShareWith(f.tab, vocab.Control, persondoor.AgentKey(alice.Agent())); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the table to name Alice", func() bool {
		s, ok := lastShares(t, l)
		return ok && len(s.Tabs) == 1 && s.Tabs[0].Level == protocol.LevelControl && strings.Contains(s.Tabs[0].Agent, "Alice") && strings.Contains(s.Tabs[0].Agent, "claude")
	})
	activity := func(tab int, words ...string) func() bool {
		return func() bool {
			for _, n := range l.notices(protocol.EventActivity) {
				var a protocol.Activity
				json.Unmarshal(n.params, &a)
				line := a.Agent + " " + a.Act + " " + a.Outcome
				if a.Tab == tab && !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(line, w) }) {
					return true
				}
			}
			return false
		}
	}
	testenv.WaitFor(t, "the share's line to name Alice", activity(7, "Alice", "alone"))

	// The shop's page opens a tab (a link to a new tab, window.open).
	f.Browser.Open(9, coretest.Page{URL: shopURL + "receipt", Title: "Receipt", Frames: shop().Frames, Opener: 7})
	testenv.WaitFor(t, "the new tab's line to say it is not shared", activity(9, "the page", "not shared"))
	testenv.WaitFor(t, "the table to hold the new tab, not shared", func() bool {
		s, _ := lastShares(t, l)
		return len(s.Tabs) == 2 && s.Tabs[1].Tab == 9 && s.Tabs[1].Level == protocol.LevelNone
	})
}
