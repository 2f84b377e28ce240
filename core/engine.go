// Package core is the engine behind both doors. For every request it runs
// share → ground → approve → audit → act → report, and it publishes a stream
// of events (tabs, activity, pending approvals, connection, pause) that the
// person's front ends render. It is the only package that wires the stages.
//
// Front ends never hold the engine: [Engine.AgentDoor] gives the agents'
// door (agentdoor.Door) and [Runtime.PersonDoor] the person's
// (persondoor.Door), each a value that forwards only its own calls. Only
// the mains under app/cmd import core, to start it and hand out the doors.
package core

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/grounding"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// Browser is what core needs of the bridge; *bridge.Server is one.
type Browser interface {
	Call(ctx context.Context, profile, method string, params, out any) error
	Events() <-chan bridge.Event
}

var _ Browser = (*bridge.Server)(nil)

// Options configures [New].
type Options struct {
	Browser  Browser           // required
	Audit    *audit.Log        // required
	Executor executor.Executor // required
	// Reader reads the desktop: native applications' elements, a
	// browser's JavaScript dialog, pictures; nil refuses every read.
	Reader          deskread.Reader  // optional
	ApprovalTimeout time.Duration    // optional: default 30 s
	RememberFor     time.Duration    // optional: "allow on this tab" lasts; default 10 min
	Now             func() time.Time // optional
	Logf            func(format string, args ...any)
	// PersonWait is how long approved input waits for the person to leave
	// the mouse and keyboard alone before it is held and asked about again;
	// default 2 s.
	PersonWait time.Duration // optional
	// Settings keeps the person's setting changes; nil keeps them for this
	// run only. Start gives settings.json in the data folder.
	Settings settings.Store // optional
	// Login is the desktop's login items, where "start at login" takes
	// effect; nil records the choice without touching them.
	Login settings.Login // optional

	// PersonTerminal says the person answers in the terminal that started
	// Reins; see StartOptions.PersonTerminal.
	PersonTerminal bool // optional
	// OwnProcesses are the processes whose windows are Reins' own, which no
	// act may land on: its popup and windows, the terminal running reins
	// serve. Default peercred.Ancestry(): Reins and the processes it
	// descends from.
	OwnProcesses []int // optional
	// Policy is the organisation's policy Reins starts under; the zero
	// State is none. Start reads it from the system and applies each change
	// with ApplyPolicy.
	Policy policy.State // optional
	// Binary is "sha256:…" of the program running, for the audit rows that
	// say which policy is in force; Start gives BinaryHash().
	Binary string // optional
	// TestOnlyMisplace, in tests only, moves every point on screen a
	// browser act aims at, as a wrong mapping from the page to the screen
	// would: for the witness to catch.
	TestOnlyMisplace func(x, y float64) (float64, float64)

	saved settings.Settings // set by Start: what was saved, for the settings the engine does not run on
}

// Engine is the core.
type Engine struct {
	opts   Options
	shares *approvals.Shares
	// programs names who listens where a loopback tab is served; see loopback.go.
	programs programLookup
	broker   *approvals.Broker
	queue    *queue
	paused   atomic.Bool
	// firing ends the acts firing now, for Pause and for a share that no
	// longer gives their agent the tab.
	pauseMu  sync.Mutex
	firing   map[uint64]firingAct // guarded by pauseMu
	firingID uint64               // guarded by pauseMu
	fire     sync.Mutex           // one act reaches the OS at a time
	subs     subscribers
	agents   agentBook // agents seen and allowed, see agents.go
	prefs    prefs     // the person's settings, see settings.go
	nextID   atomic.Uint64
	plans    livePlans // the plans running, by tab
	// handoffBook holds the hand-offs; reach it through handoffs().
	handoffBook handoffBook
	asks        struct {
		mu     sync.Mutex
		issued map[string]bool // guarded by mu: the last asksKept ids given
		order  []string        // guarded by mu: oldest first
	}

	own ownWindows // every Reins' processes; see ownwindows.go

	pol policyBook // the organisation's policy in force; see policy.go

	// deskRefs hands out desktop refs for the life of the engine.
	deskRefs *gdesktop.Refs

	mu       sync.Mutex
	tabs     map[string]*tabState // guarded by mu; by Reins tab id
	byChrome map[chromeTab]string // guarded by mu; open tabs
	closed   closedTabs           // guarded by mu
	// openedBy holds, by agent key, the tabs each agent opened (OpenTab);
	// those still open count against agentdoor.MaxOpenedTabs.
	openedBy map[string][]openedTab // guarded by mu
	// opening counts, by agent key, the OpenTab calls under way, each
	// holding a place among the tabs the agent may have open.
	opening map[string]int // guarded by mu
	// listMu orders the tab lists applied: a browser's own, and the answers
	// to refreshTabs, which may come in after a newer one.
	listMu    sync.Mutex
	tabLists  map[string]uint64 // guarded by listMu; tab lists a browser sent of itself, by profile
	tabSeq    map[string]uint64 // guarded by listMu; the number of the last list applied, by profile
	connected map[string]bool   // guarded by mu; browser profiles
	nextTab   int               // guarded by mu

	// browserRuns is the browser run each profile last connected
	// under; guarded by mu. See browserrun.go.
	browserRuns map[string]string
}

type chromeTab struct {
	profile string
	id      int
}

type tabState struct {
	id      string
	chrome  chromeTab
	info    protocol.Tab
	frames  map[int]grounding.FrameState // last reported generation per frame
	refs    *grounding.Refs
	reader  *grounding.Reader // the frames' last trees
	zoom    float64
	cal     *grounding.Calibrated
	shown   tabShown                       // where the tab's window was last reported
	session map[string]*grounding.Snapshot // latest snapshot per agent session
	byID    map[string]*grounding.Snapshot // recent snapshots by id
	order   []string                       // snapshot ids, oldest first
	churn   []protocol.Churn               // what kept changing on its own in the tab's last settle, from the read after it
}

// closedTabs remembers the last closedKept tabs closed: each one's id, and
// its refs, so that a tab back under its id never gives a ref it gave
// before to another element.
type closedTabs struct {
	tabs  map[chromeTab]closedTab
	order []chromeTab // oldest first
}

type closedTab struct {
	id   string
	refs *grounding.Refs
}

const closedKept = 256

func (c *closedTabs) add(key chromeTab, t closedTab) {
	if c.tabs == nil {
		c.tabs = map[chromeTab]closedTab{}
	}
	if _, ok := c.tabs[key]; !ok {
		c.order = append(c.order, key)
	}
	c.tabs[key] = t
	for len(c.order) > closedKept {
		delete(c.tabs, c.order[0])
		c.order = c.order[1:]
	}
}

func (c *closedTabs) take(key chromeTab) (closedTab, bool) {
	t, ok := c.tabs[key]
	if ok {
		delete(c.tabs, key)
		c.order = slices.DeleteFunc(c.order, func(k chromeTab) bool { return k == key })
	}
	return t, ok
}

// New makes an engine. Call Run to start consuming the browser's events.
func New(opts Options) *Engine {
	if opts.Reader == nil {
		opts.Reader = deskread.NewUnavailable(errNoReader)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PersonWait <= 0 {
		opts.PersonWait = 2 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.OwnProcesses == nil {
		opts.OwnProcesses = peercred.Ancestry()
	}
	e := &Engine{
		opts:      opts,
		shares:    approvals.NewShares(opts.Now),
		programs:  osPrograms,
		tabs:      map[string]*tabState{},
		byChrome:  map[chromeTab]string{},
		tabLists:  map[string]uint64{},
		tabSeq:    map[string]uint64{},
		connected: map[string]bool{},
		deskRefs:  gdesktop.NewRefs(),
	}
	e.queue = newQueue(e)
	e.broker = approvals.NewBroker(approvals.BrokerOptions{
		Answerer: e.queue, Timeout: opts.ApprovalTimeout, Remember: opts.RememberFor, Now: opts.Now,
	})
	e.initPrefs()
	e.initPolicy()
	return e
}

// Run consumes browser events until ctx ends.
func (e *Engine) Run(ctx context.Context) {
	ev := e.opts.Browser.Events()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ev:
			if !ok {
				return
			}
			e.handle(ctx, m)
		}
	}
}

// Close denies everything pending and refuses what follows.
func (e *Engine) Close() {
	e.broker.Close()
	e.subs.close()
}

func (e *Engine) handle(ctx context.Context, m bridge.Event) {
	switch m.Method {
	case bridge.EventConnected:
		// Before anything of the new connection: its tab list must not
		// meet the tabs of a browser that quit.
		e.browserConnected(m.Profile, m.BrowserSession)
		e.mu.Lock()
		e.connected[m.Profile] = true
		e.mu.Unlock()
		e.publish(persondoor.Event{Kind: persondoor.EventConnection, Connected: true, Profile: m.Profile})
		e.listMu.Lock()
		delete(e.tabSeq, m.Profile) // a new connection numbers its lists anew
		e.listMu.Unlock()
		go e.refreshTabs(ctx, m.Profile)
	case bridge.EventDisconnected:
		e.mu.Lock()
		delete(e.connected, m.Profile)
		e.mu.Unlock()
		e.publish(persondoor.Event{Kind: persondoor.EventConnection, Connected: false, Profile: m.Profile})
	case protocol.EventTabs:
		var r protocol.TabsResult
		if json.Unmarshal(m.Params, &r) == nil {
			e.applyTabs(m.Profile, r, true, 0)
		}
	case protocol.EventNavigated:
		var n protocol.Navigated
		if json.Unmarshal(m.Params, &n) == nil {
			e.navigated(m.Profile, n)
		}
	case protocol.EventCalibration:
		var c protocol.Calibration
		if json.Unmarshal(m.Params, &c) == nil && c.Frame == 0 {
			e.mu.Lock()
			if t := e.tabLocked(m.Profile, c.Tab); t != nil {
				cal := grounding.Calibrate(c, t.zoomOr1())
				t.cal = &cal
			}
			e.mu.Unlock()
		}
	case protocol.EventZoom:
		var z protocol.Zoom
		if json.Unmarshal(m.Params, &z) == nil {
			e.mu.Lock()
			if t := e.tabLocked(m.Profile, z.Tab); t != nil {
				t.zoom = z.Zoom
				t.cal = nil
			}
			e.mu.Unlock()
			e.publish(persondoor.Event{Kind: persondoor.EventZoom, Tab: e.tabID(m.Profile, z.Tab), Zoom: z.Zoom})
		}
	}
}

func (t *tabState) zoomOr1() float64 {
	if t.zoom <= 0 {
		return 1
	}
	return t.zoom
}

// refreshTabs asks a browser for its tabs. The answer is dropped when a tab
// list the browser sent of itself came in meanwhile: that one is newer, and
// the answer, read before it, would close a tab just opened.
func (e *Engine) refreshTabs(ctx context.Context, profile string) {
	e.listMu.Lock()
	gen := e.tabLists[profile]
	e.listMu.Unlock()
	var r protocol.TabsResult
	if err := e.opts.Browser.Call(ctx, profile, protocol.MethodTabs, struct{}{}, &r); err == nil {
		e.applyTabs(profile, r, false, gen)
	}
}

// applyTabs applies a tab list unless it is older than one applied: by its
// number when the extension numbers its lists, else (an answer to
// refreshTabs) when a pushed list was applied since the question, gen.
func (e *Engine) applyTabs(profile string, r protocol.TabsResult, pushed bool, gen uint64) {
	e.listMu.Lock()
	defer e.listMu.Unlock()
	switch {
	case r.Seq != 0 && r.Seq <= e.tabSeq[profile]:
		return
	case r.Seq == 0 && !pushed && e.tabLists[profile] != gen:
		return
	}
	if r.Seq != 0 {
		e.tabSeq[profile] = r.Seq
	}
	if pushed {
		e.tabLists[profile]++
	}
	e.updateTabs(profile, r.Tabs)
}

// tabLocked finds the state of a chrome tab; e.mu must be held.
func (e *Engine) tabLocked(profile string, id int) *tabState {
	return e.tabs[e.byChrome[chromeTab{profile, id}]]
}

func (e *Engine) tabID(profile string, id int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.byChrome[chromeTab{profile, id}]
}

func (e *Engine) updateTabs(profile string, tabs []protocol.Tab) {
	var revoked []string
	var spawned []spawn // new tabs a shared tab's page opened
	e.mu.Lock()
	seen := map[string]bool{}
	for _, ct := range tabs {
		key := chromeTab{profile, ct.ID}
		id, ok := e.byChrome[key]
		if !ok {
			back, known := e.closed.take(key)
			refs := back.refs
			id = back.id
			if !known {
				e.nextTab++
				id, refs = strconv.Itoa(e.nextTab), grounding.NewRefs()
				if opener, ok := e.byChrome[chromeTab{profile, ct.Opener}]; ok && ct.Opener != 0 && e.shares.Get(opener).Level > vocab.None {
					spawned = append(spawned, spawn{opener: opener, tab: id, url: ct.URL, title: e.tabs[opener].info.Title, origin: approvals.Origin(e.tabs[opener].info.URL)})
				}
			}
			e.byChrome[key] = id
			e.tabs[id] = &tabState{
				id: id, chrome: key, frames: map[int]grounding.FrameState{}, refs: refs, reader: grounding.NewReader(),
				session: map[string]*grounding.Snapshot{}, byID: map[string]*grounding.Snapshot{},
			}
		}
		t := e.tabs[id]
		t.info = ct
		seen[id] = true
		if e.shares.Observe(id, approvals.Origin(ct.URL)) {
			revoked = append(revoked, id)
		}
	}
	// A tab missing from its profile's list was closed: its state is
	// dropped whole (its share, its refs, its agents' snapshots), so a
	// menu-bar app open for weeks holds only the tabs open now, and a call
	// naming it gets no_tab. Only its number is kept, for a while: a list
	// read before the tab opened may come in after the event that opened
	// it, and the tab then comes back under the id it was known by.
	var closed []string
	for id, t := range e.tabs {
		if t.chrome.profile == profile && !seen[id] {
			delete(e.tabs, id)
			delete(e.byChrome, t.chrome)
			t.refs.Forget(nil) // the counters stay, the tab's elements go
			e.closed.add(t.chrome, closedTab{id: id, refs: t.refs})
			e.shares.Forget(id)
			closed = append(closed, id)
		}
	}
	e.mu.Unlock()
	for _, id := range closed {
		e.broker.ForgetTab(id)
		e.plans.end(id, "the tab was closed")
	}
	e.handoffTabsClosed(closed)
	for _, sp := range spawned {
		e.saySpawned(sp)
	}
	for _, id := range revoked {
		e.broker.ForgetTab(id)
		e.plans.end(id, "the tab left the site it was shared on")
		e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: id, Level: vocab.None, Detail: "the tab left the site it was shared on"})
	}
	e.publish(persondoor.Event{Kind: persondoor.EventTabs})
}

func (e *Engine) navigated(profile string, n protocol.Navigated) {
	e.mu.Lock()
	t := e.tabLocked(profile, n.Tab)
	var revoked bool
	var id string
	if t != nil {
		id = t.id
		t.frames[n.Frame] = grounding.FrameState{Doc: n.Doc, Epoch: n.Epoch}
		if n.Frame == 0 {
			t.info.URL = n.URL
			revoked = e.shares.Observe(t.id, approvals.Origin(n.URL))
			t.cal = nil
		}
	}
	e.mu.Unlock()
	if id != "" && n.Frame == 0 {
		e.plans.end(id, "the tab navigated")
	}
	if revoked {
		e.broker.ForgetTab(id)
		e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: id, Level: vocab.None, Detail: "the tab left the site it was shared on"})
	}
}

// Tabs lists open tabs with their share levels, for the person.
func (e *Engine) Tabs() []vocab.TabInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]vocab.TabInfo, 0, len(e.tabs))
	for id, t := range e.tabs {
		g := e.shares.Get(id)
		out = append(out, vocab.TabInfo{
			ID: id, Title: t.info.Title, URL: t.info.URL, Origin: approvals.Origin(t.info.URL), Active: t.info.Active, Focused: t.info.Focused,
			Level: g.Level, Agent: g.Agent, Share: g.Level.String(), SharedAt: g.Origin, Connected: e.connected[t.chrome.profile],
		})
	}
	sort.Slice(out, func(i, j int) bool { return atoiOr0(out[i].ID) < atoiOr0(out[j].ID) })
	return out
}

func atoiOr0(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// Connected reports whether any browser's extension is connected.
func (e *Engine) Connected() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.connected) > 0
}

// SetShare is the person sharing a tab at a level with every agent they
// allowed. The share is bound to the origin on screen now. Agents have no way
// to call it.
func (e *Engine) SetShare(tab string, level vocab.Level) error {
	return e.ShareWith(tab, level, "")
}

// ShareWith is [Engine.SetShare] with one agent alone, named by its key
// (persondoor.AgentKey); "" is every allowed agent. To any other agent the
// tab is not shared: it is refused as not shared, and listed without its
// title or address. Only the person's door calls it.
func (e *Engine) ShareWith(tab string, level vocab.Level, agent string) error {
	if level == vocab.None {
		agent = ""
	}
	var with string
	if agent != "" {
		if tab == vocab.DesktopKey {
			return fmt.Errorf("the desktop is shared with every allowed agent or none")
		}
		b := e.agentBook()
		b.mu.Lock()
		en := b.agents[agent]
		allowed := en != nil && en.allowed
		if en != nil {
			with = en.last.Label()
		}
		b.mu.Unlock()
		switch {
		case en == nil:
			return fmt.Errorf("no agent %s has connected since Reins started", plain.Quote(agent, plain.NameMax))
		case !allowed:
			return fmt.Errorf("%s is not allowed to use Reins; allow it first, then share the tab with it", with)
		}
	}
	e.mu.Lock()
	t := e.tabs[tab]
	open := t != nil
	var url, title string
	if open {
		url, title = t.info.URL, t.info.Title
	}
	e.mu.Unlock()
	if tab == vocab.DesktopKey {
		// The organisation's policy first: refused, named, before anything.
		if err := e.sharePolicy(tab, "", level); err != nil {
			e.record(context.Background(), audit.Entry{
				Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
				Target:  vocab.Target{Desktop: true, Name: "desktop"},
				Outcome: vocab.OutcomeRefused, Code: vocab.CodePolicy, Detail: "not shared at " + level.String() + ": " + err.(*vocab.Error).Message,
			})
			return err
		}
		// Written and told like a tab's share.
		// The row comes first: the desktop at Control is the widest leave
		// there is, and it is not given unwritten.
		en := audit.Entry{
			Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
			Target: vocab.Target{Desktop: true, Name: "desktop"}, Outcome: vocab.OutcomeDone, Detail: "shared at " + level.String(),
		}
		if _, err := e.opts.Audit.Record(context.Background(), en); err != nil && level > e.shares.Get(tab).Level {
			return fmt.Errorf("the desktop was not shared, because the audit log could not record it: %w", err)
		}
		if err := e.shares.Set(tab, "", level); err != nil {
			return err
		}
		e.stopFiringOn(tab)
		e.publish(persondoor.Event{Kind: persondoor.EventActivity, Activity: activityOf(en, e.opts.Now())})
		e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: tab, Level: level})
		return nil
	}
	if !open {
		return fmt.Errorf("there is no open tab %s", tab)
	}
	origin := approvals.Origin(url)
	if err := e.sharePolicy(tab, origin, level); err != nil {
		e.record(context.Background(), audit.Entry{
			Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
			Target:  vocab.Target{Tab: tab, TabTitle: title, Origin: origin},
			Outcome: vocab.OutcomeRefused, Code: vocab.CodePolicy, Detail: "not shared at " + level.String() + ": " + err.(*vocab.Error).Message,
		})
		return err
	}
	// A loopback tab is pinned to the program serving it; see loopback.go.
	var pin, note string
	if level > vocab.None {
		var err error
		if pin, note, err = e.pinFor(origin); err != nil {
			ce, outcome := classify(err)
			e.record(context.Background(), audit.Entry{
				Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
				Target:  vocab.Target{Tab: tab, TabTitle: title, Origin: origin},
				Outcome: outcome, Code: ce.Code, Detail: "not shared at " + level.String() + ": " + ce.Message,
			})
			return ce
		}
	}
	was := e.shares.Get(tab)
	if err := e.shares.SetFor(tab, origin, pin, agent, level); err != nil {
		return err
	}
	// Acts under way for an agent that no longer has the tab stop here;
	// an act about to fire finds the new share in its last checks.
	e.stopFiringOn(tab)
	// A plan was allowed on the share the person just changed.
	e.plans.end(tab, "the person changed how the tab is shared")
	if level < vocab.Control || was.Agent != agent {
		// Leaves given to an agent that no longer has the tab go with it.
		e.broker.ForgetTab(tab)
	}
	detail := "shared at " + level.String()
	if with != "" {
		detail += " with " + with + " alone"
	}
	if note != "" {
		detail += "; " + note
	}
	e.record(context.Background(), audit.Entry{
		Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
		Target:  vocab.Target{Tab: tab, TabTitle: title, Origin: origin},
		Outcome: vocab.OutcomeDone, Detail: detail,
	})
	e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: tab, Level: level, Detail: note})
	return nil
}

// Zoom returns a tab's page zoom as last reported, and whether it is known.
func (e *Engine) Zoom(tab string) (float64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.tabs[tab]
	if t == nil || t.zoom <= 0 {
		return 0, false
	}
	return t.zoom, true
}

// AuditRows reads the log, newest first, as the person's door gives it.
func (e *Engine) AuditRows(ctx context.Context, f persondoor.AuditFilter) ([]persondoor.AuditRow, error) {
	return ReadAudit(ctx, e.opts.Audit, f)
}

// Share returns a tab's current share level.
func (e *Engine) Share(tab string) vocab.Level { return e.shares.Get(tab).Level }

// Pause refuses every act while on, and stops the acts firing when it comes
// on. Only the person's door calls it.
func (e *Engine) Pause(on bool) {
	changed := e.paused.Swap(on) != on
	if on {
		// After the flag: an act starting to fire now sees one or the
		// other. Each act firing is stopped before Pause returns.
		e.pauseMu.Lock()
		for _, f := range e.firing {
			f.cancel(errStoppedByPause)
		}
		clear(e.firing)
		e.pauseMu.Unlock()
		e.plans.end("", "agents were paused")
	}
	if changed {
		e.publish(persondoor.Event{Kind: persondoor.EventPause, Paused: on})
	}
}

// firingAct is an act between its last checks and its outcome.
type firingAct struct {
	tab, agent string // the agent's key
	cancel     context.CancelCauseFunc
}

// Why an act under way was stopped, as context.Cause gives it.
var (
	errStoppedByPause   = errors.New("the person paused all agents")
	errStoppedByShare   = errors.New("the person changed how the tab is shared")
	errStoppedByHandoff = errors.New("the tab was handed to the person")
)

// untilStopped is ctx, ended also when the person pauses all agents, and
// when a share change takes tab from the agent of key agent; context.Cause
// says which.
func (e *Engine) untilStopped(ctx context.Context, tab, agent string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	e.pauseMu.Lock()
	defer e.pauseMu.Unlock()
	if e.Paused() {
		cancel(errStoppedByPause)
		return ctx, func() {}
	}
	if e.firing == nil {
		e.firing = map[uint64]firingAct{}
	}
	e.firingID++
	id := e.firingID
	e.firing[id] = firingAct{tab: tab, agent: agent, cancel: cancel}
	return ctx, func() {
		e.pauseMu.Lock()
		delete(e.firing, id)
		e.pauseMu.Unlock()
		cancel(context.Canceled)
	}
}

// stopFiringOn stops the acts under way on tab whose agent the tab's share
// no longer gives it at Control.
func (e *Engine) stopFiringOn(tab string) {
	g := e.shares.Get(tab)
	e.pauseMu.Lock()
	defer e.pauseMu.Unlock()
	for id, f := range e.firing {
		if f.tab == tab && g.To(f.agent).Level < vocab.Control {
			f.cancel(errStoppedByShare)
			delete(e.firing, id)
		}
	}
}

// stopAllFiringOn stops every act under way on tab, whoever's, with why
// as the cause: the tab is the person's now.
func (e *Engine) stopAllFiringOn(tab string, why error) {
	e.pauseMu.Lock()
	defer e.pauseMu.Unlock()
	for id, f := range e.firing {
		if f.tab == tab {
			f.cancel(why)
			delete(e.firing, id)
		}
	}
}

// Paused reports whether acts are refused.
func (e *Engine) Paused() bool { return e.paused.Load() }

func (e *Engine) newID(prefix string) string {
	return prefix + strconv.FormatUint(e.nextID.Add(1), 10)
}

// newAskID names a question put to the person (an approval, a first
// connection): prefix and seven random digits, short enough to type in
// `reins serve` and never the next of a series, so that text put on the
// desktop cannot name a question it has not seen.
func (e *Engine) newAskID(prefix string) string {
	e.asks.mu.Lock()
	defer e.asks.mu.Unlock()
	for {
		n, err := rand.Int(rand.Reader, big.NewInt(9_000_000))
		if err != nil {
			panic("core: no randomness for an approval's id: " + err.Error())
		}
		id := prefix + strconv.FormatInt(n.Int64()+1_000_000, 10)
		if e.asks.issued[id] || e.queue.has(id) {
			continue
		}
		// Remembered for a while, so that a late answer to an old question
		// cannot land on a new one that drew the same number.
		if e.asks.issued == nil {
			e.asks.issued = map[string]bool{}
		}
		e.asks.issued[id] = true
		e.asks.order = append(e.asks.order, id)
		if len(e.asks.order) > asksKept {
			delete(e.asks.issued, e.asks.order[0])
			e.asks.order = e.asks.order[1:]
		}
		return id
	}
}

// asksKept is how many question ids are kept from being drawn again.
const asksKept = 4096

// alreadyLogged carries an act's failure whose outcome row is written.
type alreadyLogged struct{ err *vocab.Error }

func (a *alreadyLogged) Error() string { return a.err.Error() }
func (a *alreadyLogged) Unwrap() error { return a.err }

// recordRead writes a read's row and shows it in the activity strip. A read
// whose row cannot be written is not given: the agent gets audit_failed in
// place of the page, and the strip shows the failure.
func (e *Engine) recordRead(ctx context.Context, en audit.Entry) error {
	_, err := e.opts.Audit.Record(context.WithoutCancel(ctx), en)
	if err == nil {
		e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: en.Target.Tab, Activity: activityOf(en, e.opts.Now())})
		return nil
	}
	e.opts.Logf("audit: %v", err)
	ce := &vocab.Error{Code: vocab.CodeAuditFailed, Message: "nothing was read out, because the audit log could not record the read: " + err.Error(), Err: err}
	en.Outcome, en.Code, en.Detail = vocab.OutcomeFailed, ce.Code, ce.Message
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: en.Target.Tab, Activity: activityOf(en, e.opts.Now())})
	return ce
}

// audited is one read for an agent, from its entry to its row: read runs
// with the entry, which it may fill in; a failure is refused (and logged as
// such); a success is logged as a read, with detail's words when detail is
// set, and only once that row is written is it given back and its install
// run (a snapshot becoming the session's latest).
func audited[T any](ctx context.Context, s *Session, en audit.Entry, read func(en *audit.Entry) (T, func(), error), detail func(T) string) (T, error) {
	var none T
	v, install, err := read(&en)
	if err != nil {
		return none, s.refuse(ctx, en, err)
	}
	en.Outcome = vocab.OutcomeRead
	if detail != nil {
		en.Detail = detail(v)
	}
	if err := s.e.recordRead(ctx, en); err != nil {
		return none, err
	}
	if install != nil {
		install()
	}
	return v, nil
}

// record writes a complete attempt row and shows it in the activity strip.
// A refusal that cannot be logged is still refused; it is reported.
func (e *Engine) record(ctx context.Context, en audit.Entry) {
	if _, err := e.opts.Audit.Record(context.WithoutCancel(ctx), en); err != nil {
		e.opts.Logf("audit: %v", err)
	}
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: en.Target.Tab, Activity: activityOf(en, e.opts.Now())})
}

// spawn is a tab a shared tab's page opened.
type spawn struct {
	opener, tab, url, title, origin string
}

// saySpawned tells the person, in both strips and the log, that the page of
// a shared tab opened a new tab, and that the new tab is not shared: a tab
// a page opens, an agent's click on it included, is shared by the person
// alone.
func (e *Engine) saySpawned(sp spawn) {
	en := audit.Entry{
		Agent: vocab.Agent{Name: "the page"}, Act: vocab.Act{Kind: vocab.NewTab, URL: sp.url},
		Target:  vocab.Target{Tab: sp.opener, TabTitle: sp.title, Origin: sp.origin},
		Outcome: vocab.OutcomeDone, Detail: "the page opened tab " + sp.tab + "; it is not shared: share it from the Reins menu if an agent should have it",
	}
	e.record(context.Background(), en) // said in the opener's strip
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: sp.tab, Activity: activityOf(en, e.opts.Now())})
}

// errNoReader: this engine was given no reader of the desktop.
var errNoReader = fmt.Errorf("%w: this Reins reads no desktop", executor.ErrUnsupported)
