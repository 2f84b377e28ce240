package core_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// runBrowser is the fake browser whose connections name a browser
// session, as the bridge's connected event does: each Connect takes the
// next run from a queue, so that no event can be stamped with a run
// meant for a later one.
type runBrowser struct {
	*coretest.Browser
	events chan bridge.Event

	mu   sync.Mutex
	runs []string // guarded by mu: for the Connects to come, in order
}

func (b *runBrowser) Events() <-chan bridge.Event { return b.events }

// connect connects the fake extension in the browser run named run.
func (b *runBrowser) connect(run string) {
	b.mu.Lock()
	b.runs = append(b.runs, run)
	b.mu.Unlock()
	b.Connect()
}

var _ core.Browser = (*runBrowser)(nil)

type runRig struct {
	*core.Engine
	browser *runBrowser
	log     *audit.Log
	exec    *executor.Fake
	events  <-chan persondoor.Event
	agent   *core.Session
}

func newRunRig(t *testing.T) *runRig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b := &runBrowser{Browser: coretest.NewBrowser(), events: make(chan bridge.Event, 256)}
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-b.Browser.Events():
				if ev.Method == bridge.EventConnected {
					b.mu.Lock()
					ev.BrowserSession, b.runs = b.runs[0], b.runs[1:]
					b.mu.Unlock()
				}
				select {
				case b.events <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	log, err := audit.Open(ctx, audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	ex := &executor.Fake{}
	e := core.New(core.Options{Browser: b, Audit: log, Executor: ex, ApprovalTimeout: 2 * time.Second, PersonWait: 500 * time.Millisecond, Logf: t.Logf})
	events, unsubscribe := e.Subscribe(1024)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		e.Run(ctx)
	}()
	t.Cleanup(func() {
		unsubscribe()
		e.Close()
		cancel()
		<-ran
		<-forwarded
		log.Close()
	})
	r := &runRig{Engine: e, browser: b, log: log, exec: ex, events: events}
	r.agent = e.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	b.connect("run-1")
	r.waitConnected(t)
	return r
}

// waitConnected waits until the engine has told of a connection, and
// returns the events it published before. By then it has dropped what a
// new browser run drops.
func (r *runRig) waitConnected(t *testing.T) []persondoor.Event {
	t.Helper()
	var seen []persondoor.Event
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-r.events:
			if ev.Kind == persondoor.EventConnection && ev.Connected {
				return seen
			}
			seen = append(seen, ev)
		case <-deadline:
			t.Fatal("the engine never told of the browser's connection")
		}
	}
}

// restart disconnects the fake extension and connects it again in browser
// session session. It returns the events the engine published meanwhile.
func (r *runRig) restart(t *testing.T, run string) []persondoor.Event {
	t.Helper()
	// What was told before the restart is not the restart's: a share set a
	// moment ago may still wait in the subscription.
	for drained := false; !drained; {
		select {
		case <-r.events:
		default:
			drained = true
		}
	}
	r.browser.Disconnect()
	r.browser.connect(run)
	return r.waitConnected(t)
}

// tabAt waits until the engine lists a connected tab at url and returns it.
func (r *runRig) tabAt(t *testing.T, url string) vocab.TabInfo {
	t.Helper()
	var found vocab.TabInfo
	deadline := time.Now().Add(30 * time.Second)
	for {
		i := slices.IndexFunc(r.Tabs(), func(ti vocab.TabInfo) bool { return ti.URL == url && ti.Connected })
		if i >= 0 {
			found = r.Tabs()[i]
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine never listed a connected tab at %s; it lists %+v", url, r.Tabs())
		}
		select {
		case <-r.events:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (r *runRig) shareRows(t *testing.T) []audit.Row {
	t.Helper()
	rows, err := r.log.Rows(context.Background(), audit.Filter{Act: string(vocab.Share)})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A service worker that restarts names the browser run it named
// before: the tab keeps its id and its share, and the agent reads and acts
// on it as before.
func TestSharesSurviveARestartOfTheServiceWorker(t *testing.T) {
	r := newRunRig(t)
	r.browser.Open(7, shop())
	tab := r.tabAt(t, shopURL).ID
	if err := r.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}

	r.restart(t, "run-1")

	if got := r.tabAt(t, shopURL).ID; got != tab {
		t.Fatalf("after the service worker restarted the tab is %s, was %s", got, tab)
	}
	if l := r.Share(tab); l != vocab.Control {
		t.Fatalf("after the service worker restarted the tab is shared at %v, want Control", l)
	}
	go func() {
		for ev := range r.events {
			if ev.Kind == persondoor.EventApproval {
				r.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	s, err := r.agent.Snapshot(context.Background(), tab)
	if err != nil {
		t.Fatalf("a snapshot after the service worker restarted: %v", err)
	}
	ref := refOf(t, s.Text, "Place order")
	if _, err := r.agent.Act(context.Background(), agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}}); err != nil {
		t.Fatalf("a click after the service worker restarted: %v", err)
	}
	if n := len(r.exec.Fired()); n != 1 {
		t.Fatalf("fired %d acts, want 1", n)
	}
	for _, row := range r.shareRows(t) {
		if strings.Contains(row.Detail, "restarted") {
			t.Errorf("a restart of the service worker wrote %+v", row)
		}
	}
}

// A browser that restarts names a new browser run, and numbers its
// tabs from the start again. Every tab of the old run is dropped, and its
// share ends, written and told; the new run's tab under the same number is
// another tab, unshared, under an id of its own. Only the profile that
// restarted loses its tabs.
func TestSharesEndWhenTheBrowserRestarts(t *testing.T) {
	r := newRunRig(t)
	r.browser.Open(7, shop())
	tab := r.tabAt(t, shopURL).ID
	if err := r.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	other := shop()
	other.URL = "https://shop.example.com/unshared"
	r.browser.Open(8, other)
	unshared := r.tabAt(t, other.URL).ID
	closed := shop()
	closed.URL = "https://shop.example.com/closed"
	r.browser.Open(9, closed)
	closedID := r.tabAt(t, closed.URL).ID
	r.browser.Close(9)
	waitGone(t, r, closedID)
	if _, err := r.agent.Snapshot(context.Background(), tab); err != nil {
		t.Fatalf("a snapshot before the restart: %v", err)
	}
	before := len(r.shareRows(t))

	// The fake keeps its tabs: the new run shows the same pages under the
	// same numbers, as Chrome does when it opens the same addresses again.
	var told bool
	for _, ev := range r.restart(t, "run-2") {
		if ev.Kind != persondoor.EventShare {
			continue
		}
		switch ev.Tab {
		case tab:
			if ev.Level != vocab.None || ev.Detail != "the browser restarted" {
				t.Fatalf("share event %+v, want None because the browser restarted", ev)
			}
			told = true
		case unshared:
			t.Errorf("an unshared tab's share was told to end: %+v", ev)
		}
	}
	if !told {
		t.Fatal("the person was not told the share ended")
	}
	now := r.tabAt(t, shopURL)
	if now.ID == tab {
		t.Fatalf("the new run's tab took the old tab's id %s", tab)
	}
	if now.Level != vocab.None || r.Share(now.ID) != vocab.None {
		t.Fatalf("the new run's tab is shared at %v", now.Level)
	}
	if r.Share(tab) != vocab.None {
		t.Fatal("the old tab's share outlived the browser")
	}
	if id := r.tabAt(t, other.URL).ID; id == unshared {
		t.Errorf("the new run's unshared tab took the old one's id %s", id)
	}
	r.browser.Open(9, closed)
	if id := r.tabAt(t, closed.URL).ID; id == closedID {
		t.Errorf("a tab of the new run under a number closed in the old one came back as %s", id)
	}
	for _, ti := range r.Tabs() {
		if ti.ID == tab || ti.ID == unshared || ti.ID == closedID {
			t.Errorf("the old run's tab %s is still listed: %+v", ti.ID, ti)
		}
	}

	if _, err := r.agent.Snapshot(context.Background(), tab); codeOf(err) != vocab.CodeNoTab {
		t.Fatalf("a snapshot of the old tab: %v, want %s", err, vocab.CodeNoTab)
	}
	if _, err := r.agent.Snapshot(context.Background(), now.ID); codeOf(err) != vocab.CodeShareRequired {
		t.Fatalf("a snapshot of the new run's tab: %v, want %s", err, vocab.CodeShareRequired)
	}

	rows := r.shareRows(t)
	if len(rows) != before+1 {
		t.Fatalf("the restart wrote %d share rows, want 1 (the shared tab's): %+v", len(rows)-before, rows)
	}
	row := rows[0] // newest first
	if row.Tab != tab || row.Outcome != vocab.OutcomeDone || row.AgentName != vocab.PersonName ||
		row.Origin != "https://shop.example.com" || row.Detail != "Reins ended the share: the browser restarted" {
		t.Fatalf("the row for the ended share: %+v", row)
	}
}

func waitGone(t *testing.T, r *runRig, id string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for slices.ContainsFunc(r.Tabs(), func(ti vocab.TabInfo) bool { return ti.ID == id }) {
		select {
		case <-r.events:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("tab %s is still listed after it was closed", id)
		}
	}
}

func refOf(t *testing.T, text, name string) string {
	t.Helper()
	i := strings.Index(text, `"`+name+`"`)
	if i < 0 {
		t.Fatalf("no %q in\n%s", name, text)
	}
	line := text[i:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	_, ref, ok := strings.Cut(line, "[ref=")
	if !ok {
		t.Fatalf("no ref for %q in %q", name, line)
	}
	ref, _, _ = strings.Cut(ref, "]")
	return ref
}
