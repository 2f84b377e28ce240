// Package coretest gives other packages' tests a whole engine on fakes: a
// browser that answers like the extension from pages described in Go, the
// recording executor, and a real audit log in a temporary file. It is for
// unit tests of one front end or stage; the end-to-end tests use the real
// parts.
package coretest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

// Profile is the fake browser's profile id.
const Profile = "test-profile"

// Window is the fake browser window: at the screen's origin, 1000×700 DIP,
// with 87 DIP of browser chrome above a 1000×613 viewport.
var (
	Window   = protocol.Window{ScreenX: 0, ScreenY: 0, OuterWidth: 1000, OuterHeight: 700, DPR: 1}
	Viewport = protocol.Viewport{Width: 1000, Height: 613, InnerWidth: 1000, InnerHeight: 613, ClientWidth: 1000, ClientHeight: 613}
)

// Capture is the picture the fake browser gives of any tab: the viewport,
// white, in its CSS pixels.
func Capture() []byte {
	captureOnce.Do(func() {
		img := image.NewRGBA(image.Rect(0, 0, int(Viewport.InnerWidth), int(Viewport.InnerHeight)))
		draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		var b bytes.Buffer
		png.Encode(&b, img)
		capture = b.Bytes()
	})
	return capture
}

var (
	captureOnce sync.Once
	capture     []byte
)

// Page is a tab's content: its frames, as the extension would report them.
type Page struct {
	URL    string
	Title  string
	Frames []protocol.FrameReport // Frames[0] is the top frame
	// Opener is, for Open, the tab whose page opened this one; 0 for none.
	Opener int
	// Window is where the browser window showing the page is; nil for
	// Window.
	Window *protocol.Window
}

// Browser is a fake extension peer. Its zero value is not usable; use NewBrowser.
type Browser struct {
	events chan bridge.Event

	mu        sync.Mutex
	connected bool           // guarded by mu
	tabs      []protocol.Tab // guarded by mu
	// lists numbers the tab lists the connection sends, pushed or
	// answered, as the extension does, so that Reins applies them in order.
	lists     uint64              // guarded by mu
	pages     map[int]*Page       // guarded by mu
	calls     []string            // guarded by mu
	hold      map[string]chan any // guarded by mu: methods that block until released
	docs      int                 // guarded by mu
	noCapture bool                // guarded by mu
	// watches are the elements watched for acts, by watch; the fake page
	// sees every act's events arrive on them unless witness or effects
	// say otherwise.
	noWatch   bool                                                // guarded by mu
	nextWatch int                                                 // guarded by mu
	watches   map[string]*protocol.Node                           // guarded by mu
	witness   func(protocol.WitnessParams) protocol.WitnessResult // guarded by mu
	// motions are what activating an element sets in motion, by tab and
	// element id; focus is what has the keyboard focus, by tab.
	motions map[[2]int]*protocol.Motion                         // guarded by mu
	focus   map[int]protocol.FocusResult                        // guarded by mu
	effects func(protocol.EffectsParams) protocol.EffectsResult // guarded by mu
}

// SetMotion makes element id of tab's page answer m, when it is resolved,
// for what activating it sets in motion; nil for nothing.
func (b *Browser) SetMotion(tab, id int, m *protocol.Motion) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.motions == nil {
		b.motions = map[[2]int]*protocol.Motion{}
	}
	b.motions[[2]int{tab, id}] = m
}

// SetFocus makes tab answer f for what has the keyboard focus.
func (b *Browser) SetFocus(tab int, f protocol.FocusResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.focus == nil {
		b.focus = map[int]protocol.FocusResult{}
	}
	b.focus[tab] = f
}

// SetWitness makes the fake frames answer witness requests with f, and
// SetEffects effects requests; nil goes back to the pointer and keys
// arriving on the watched element.
func (b *Browser) SetWitness(f func(protocol.WitnessParams) protocol.WitnessResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.witness = f
}

// FailWatch makes the fake frames refuse, or again accept, to watch for an
// act's events, as a frame with no content script does.
func (b *Browser) FailWatch(fail bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.noWatch = fail
}

// SetEffects: see SetWitness.
func (b *Browser) SetEffects(f func(protocol.EffectsParams) protocol.EffectsResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.effects = f
}

var _ core.Browser = (*Browser)(nil)

// NewBrowser makes a disconnected fake browser.
func NewBrowser() *Browser {
	return &Browser{events: make(chan bridge.Event, 256), pages: map[int]*Page{}, hold: map[string]chan any{}}
}

// Events implements core.Browser.
func (b *Browser) Events() <-chan bridge.Event { return b.events }

func (b *Browser) emit(method string, params any) {
	raw, _ := json.Marshal(params)
	b.events <- bridge.Event{Profile: Profile, Method: method, Params: raw}
}

// Connect pairs the fake extension.
func (b *Browser) Connect() {
	b.mu.Lock()
	b.connected = true
	b.lists = 0 // a connection numbers its lists anew
	tabs := b.listLocked()
	b.mu.Unlock()
	b.events <- bridge.Event{Profile: Profile, Method: bridge.EventConnected}
	b.emit(protocol.EventTabs, tabs)
}

// Disconnect drops the fake extension: pending and later calls fail.
func (b *Browser) Disconnect() {
	b.mu.Lock()
	b.connected = false
	for m, ch := range b.hold {
		close(ch)
		delete(b.hold, m)
	}
	b.mu.Unlock()
	b.events <- bridge.Event{Profile: Profile, Method: bridge.EventDisconnected}
}

// Hold makes calls of method block until Release or Disconnect.
func (b *Browser) Hold(method string) {
	b.mu.Lock()
	b.hold[method] = make(chan any)
	b.mu.Unlock()
}

// Release lets held calls of method go on.
func (b *Browser) Release(method string) {
	b.mu.Lock()
	ch := b.hold[method]
	delete(b.hold, method)
	b.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// FailCapture makes every later capture fail, as Chrome's does past its
// quota of captures a second; false undoes it.
func (b *Browser) FailCapture(fail bool) {
	b.mu.Lock()
	b.noCapture = fail
	b.mu.Unlock()
}

// Calls lists the methods called so far.
func (b *Browser) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

// Open adds a tab showing page and reports it. The tab is active in a
// focused window.
func (b *Browser) Open(id int, p Page) {
	b.mu.Lock()
	b.setPageLocked(id, p)
	b.tabs = append(b.tabs, protocol.Tab{ID: id, WindowID: 1, URL: p.URL, Title: p.Title, Active: true, Focused: true, Status: "complete", Opener: p.Opener})
	tabs := b.listLocked()
	b.mu.Unlock()
	b.emit(protocol.EventTabs, tabs)
}

// Close closes a tab and reports the tab list without it.
func (b *Browser) Close(id int) {
	b.mu.Lock()
	b.tabs = slices.DeleteFunc(b.tabs, func(t protocol.Tab) bool { return t.ID == id })
	delete(b.pages, id)
	tabs := b.listLocked()
	b.mu.Unlock()
	b.emit(protocol.EventTabs, tabs)
}

// Load replaces a tab's page, as a full navigation: every frame gets a new
// document, and the tab reports its new address.
func (b *Browser) Load(id int, p Page) {
	b.mu.Lock()
	b.setPageLocked(id, p)
	for i := range b.tabs {
		if b.tabs[i].ID == id {
			b.tabs[i].URL, b.tabs[i].Title = p.URL, p.Title
		}
	}
	tabs := b.listLocked()
	doc := b.pages[id].Frames[0].Doc
	b.mu.Unlock()
	b.emit(protocol.EventNavigated, protocol.Navigated{Tab: id, Frame: 0, URL: p.URL, Doc: doc, Kind: "document"})
	b.emit(protocol.EventTabs, tabs)
}

// Mutate changes a tab's page in place, as a script on the page would: the
// documents stay, so refs stay valid.
func (b *Browser) Mutate(id int, f func(p *Page)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p := b.pages[id]; p != nil {
		f(p)
	}
}

// SetFocused says whether tab's window has the keyboard focus.
func (b *Browser) SetFocused(id int, focused bool) {
	b.updateTab(id, func(t *protocol.Tab) { t.Focused = focused })
}

// SetTitle changes tab's title, as a page setting document.title does.
func (b *Browser) SetTitle(id int, title string) {
	b.updateTab(id, func(t *protocol.Tab) { t.Title = title })
}

// SetStatus sets tab's loading status: "loading" or "complete".
func (b *Browser) SetStatus(id int, status string) {
	b.updateTab(id, func(t *protocol.Tab) { t.Status = status })
}

// SetActive makes tab the active one (or not).
func (b *Browser) SetActive(id int, active bool) {
	b.updateTab(id, func(t *protocol.Tab) { t.Active = active })
}

// updateTab changes a tab and reports the tab list, as the extension does.
func (b *Browser) updateTab(id int, change func(t *protocol.Tab)) {
	b.mu.Lock()
	for i := range b.tabs {
		if b.tabs[i].ID == id {
			change(&b.tabs[i])
		}
	}
	tabs := b.listLocked()
	b.mu.Unlock()
	b.emit(protocol.EventTabs, tabs)
}

// listLocked is the tab list as it stands, numbered after the one before;
// b.mu must be held.
func (b *Browser) listLocked() protocol.TabsResult {
	b.lists++
	return protocol.TabsResult{Seq: b.lists, Tabs: append([]protocol.Tab{}, b.tabs...)}
}

func (b *Browser) setPageLocked(id int, p Page) {
	cp := p
	cp.Frames = append([]protocol.FrameReport(nil), p.Frames...)
	for i := range cp.Frames {
		b.docs++
		f := &cp.Frames[i]
		f.Doc = fmt.Sprintf("doc%d", b.docs)
		if f.Frame == 0 {
			f.Parent = -1
			f.Index = -1
			if f.URL == "" {
				f.URL = p.URL
			}
		}
		if f.Origin == "" {
			f.Origin = originOf(f.URL)
		}
		// A frame's own viewport is kept: a test may report the page
		// scrolled in a snapshot, apart from the viewport resolve gives.
		if f.Viewport == (protocol.Viewport{}) {
			f.Viewport = Viewport
		}
		f.Window = Window
		if p.Window != nil {
			f.Window = *p.Window
		}
	}
	b.pages[id] = &cp
}

func originOf(u string) string {
	for i := len("https://"); i < len(u); i++ {
		if u[i] == '/' {
			return u[:i]
		}
	}
	return u
}

// Call implements core.Browser, answering as the extension would.
func (b *Browser) Call(ctx context.Context, profile, method string, params, out any) error {
	b.mu.Lock()
	b.calls = append(b.calls, method)
	hold := b.hold[method]
	connected := b.connected
	b.mu.Unlock()
	if !connected {
		return bridge.ErrNotConnected
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
		b.mu.Lock()
		connected = b.connected
		b.mu.Unlock()
		if !connected {
			return bridge.ErrDisconnected
		}
	}
	raw, _ := json.Marshal(params)
	if method == protocol.MethodNewTab {
		return b.newTab(raw, out)
	}
	enc, err := b.answer(method, raw)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(enc, out)
}

// newTab opens the address asked for in a new tab, numbered after the
// highest open, showing one button; the tab it opened beside stays active.
func (b *Browser) newTab(raw json.RawMessage, out any) error {
	var p protocol.NewTabParams
	json.Unmarshal(raw, &p)
	b.mu.Lock()
	id := 1
	for _, t := range b.tabs {
		id = max(id, t.ID+1)
	}
	b.mu.Unlock()
	b.Open(id, Page{URL: p.URL, Title: "New tab " + strconv.Itoa(id), Frames: []protocol.FrameReport{Frame(Button(1, "Go", 10, 10))}})
	enc, _ := json.Marshal(protocol.NewTabResult{Tab: id})
	return json.Unmarshal(enc, out)
}

// answer encodes under the lock: pages are shared with Mutate.
func (b *Browser) answer(method string, raw json.RawMessage) (json.RawMessage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	result, err := b.answerLocked(method, raw)
	if err != nil {
		return nil, err
	}
	return json.Marshal(result)
}

func (b *Browser) answerLocked(method string, raw json.RawMessage) (any, error) {
	switch method {
	case protocol.MethodTabs:
		return b.listLocked(), nil
	case protocol.MethodSnapshot:
		var p protocol.SnapshotParams
		json.Unmarshal(raw, &p)
		page := b.pages[p.Tab]
		if page == nil {
			return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: "no tab"}
		}
		return protocol.SnapshotResult{Tab: p.Tab, Zoom: 1, Frames: page.Frames}, nil
	case protocol.MethodResolve:
		var p protocol.ResolveParams
		json.Unmarshal(raw, &p)
		return b.resolveLocked(p)
	case protocol.MethodCapture:
		if b.noCapture {
			return nil, &protocol.Error{Code: protocol.CodeInternal, Message: "This request exceeds the MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND quota."}
		}
		return protocol.CaptureResult{DataURL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(Capture())}, nil
	case protocol.MethodFocus:
		var p protocol.FocusParams
		json.Unmarshal(raw, &p)
		return b.focus[p.Tab], nil
	case protocol.MethodActivate, protocol.MethodNavigate, protocol.MethodKeepalive:
		return struct{}{}, nil
	case protocol.MethodSettle: // the fake pages never change by themselves
		return protocol.SettleResult{Settled: protocol.SettledQuiet}, nil
	case protocol.MethodWatch:
		var p protocol.WatchParams
		json.Unmarshal(raw, &p)
		return b.watchLocked(p)
	case protocol.MethodWitness:
		var p protocol.WitnessParams
		json.Unmarshal(raw, &p)
		n := b.watches[p.Watch]
		if n == nil {
			return nil, &protocol.Error{Code: protocol.CodeStale, Message: "the watch has ended"}
		}
		if b.witness != nil {
			return b.witness(p), nil
		}
		return protocol.WitnessResult{Seen: true, Near: true, At: landed(n), X: p.X, Y: p.Y}, nil
	case protocol.MethodEffects:
		var p protocol.EffectsParams
		json.Unmarshal(raw, &p)
		n := b.watches[p.Watch]
		if n == nil {
			return nil, &protocol.Error{Code: protocol.CodeStale, Message: "the watch has ended"}
		}
		delete(b.watches, p.Watch)
		if b.effects != nil {
			return b.effects(p), nil
		}
		on := landed(n)
		switch vocab.ActKind(p.Kind) {
		case vocab.Type:
			return protocol.EffectsResult{Keys: 1, KeysOn: 1, Input: on, Inputs: 1}, nil
		case vocab.Scroll:
			return protocol.EffectsResult{Wheel: on}, nil
		case vocab.Hover:
			return protocol.EffectsResult{}, nil
		}
		return protocol.EffectsResult{Down: on, Up: on, Click: on}, nil
	}
	return nil, &protocol.Error{Code: protocol.CodeUnknownMethod, Message: method}
}

// watchLocked starts watching the element a watch names, found the way a
// resolve finds it.
func (b *Browser) watchLocked(p protocol.WatchParams) (*protocol.WatchResult, error) {
	if b.noWatch {
		return nil, &protocol.Error{Code: protocol.CodeNoFrame, Message: fmt.Sprintf("frame %d has no Reins content script", p.Frame)}
	}
	page := b.pages[p.Tab]
	if page == nil {
		return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: "no tab"}
	}
	for i := range page.Frames {
		f := &page.Frames[i]
		if f.Frame != p.Frame {
			continue
		}
		if f.Doc != p.Doc || f.Epoch != p.Epoch {
			break
		}
		n := find(f.Root, p.ID)
		if n == nil {
			break
		}
		if b.watches == nil {
			b.watches = map[string]*protocol.Node{}
		}
		b.nextWatch++
		id := fmt.Sprintf("w%d", b.nextWatch)
		b.watches[id] = n
		return &protocol.WatchResult{Watch: id}, nil
	}
	return nil, &protocol.Error{Code: protocol.CodeStale, Message: "the element is no longer on the page"}
}

// landed is the element n as an event that arrived on it names it.
func landed(n *protocol.Node) *protocol.Landed {
	return &protocol.Landed{On: true, Role: n.Role, Name: n.Name, Tag: "button"}
}

func (b *Browser) resolveLocked(p protocol.ResolveParams) (*protocol.ResolveResult, error) {
	page := b.pages[p.Tab]
	if page == nil {
		return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: "no tab"}
	}
	var frame *protocol.FrameReport
	for i := range page.Frames {
		if page.Frames[i].Frame == p.Frame {
			frame = &page.Frames[i]
		}
	}
	if frame == nil || frame.Doc != p.Doc || frame.Epoch != p.Epoch {
		return nil, &protocol.Error{Code: protocol.CodeStale, Message: "the page has navigated since the snapshot"}
	}
	n := find(frame.Root, p.ID)
	if n == nil {
		return nil, &protocol.Error{Code: protocol.CodeStale, Message: "the element is no longer on the page"}
	}
	if n.Role != p.Role || n.Name != p.Name {
		return nil, &protocol.Error{Code: protocol.CodeChanged, Message: fmt.Sprintf("the element is now %s %q", n.Role, n.Name), Now: &protocol.Shown{ID: n.ID, Role: n.Role, Name: n.Name}}
	}
	box := protocol.Rect{}
	if n.Box != nil {
		box = *n.Box
	}
	// Up through each ancestor frame: the iframe element at the hop's index
	// places the child's viewport in its own.
	top := box
	for _, h := range p.Path {
		var parent *protocol.FrameReport
		for i := range page.Frames {
			if page.Frames[i].Frame == h.Frame {
				parent = &page.Frames[i]
			}
		}
		holder := findFrame(parentRoot(parent), h.Index)
		if parent == nil || parent.Doc != h.Doc || holder == nil {
			return nil, &protocol.Error{Code: protocol.CodeStale, Message: "a frame on the way to the top has navigated"}
		}
		top = top.Move(holder.Frame.Content.X, holder.Frame.Content.Y)
	}
	return &protocol.ResolveResult{
		Box: box, TopBox: top, Point: protocol.Point{X: top.X + top.W/2, Y: top.Y + top.H/2},
		Viewport: Viewport, Window: frame.Window, Zoom: 1, Secret: n.Secret, Origin: frame.Origin,
		Motion: b.motions[[2]int{p.Tab, p.ID}],
	}, nil
}

func parentRoot(f *protocol.FrameReport) *protocol.Node {
	if f == nil {
		return nil
	}
	return f.Root
}

// findFrame is the iframe element holding window.frames[index].
func findFrame(n *protocol.Node, index int) *protocol.Node {
	if n == nil {
		return nil
	}
	if n.Frame != nil && n.Frame.Index == index {
		return n
	}
	for _, c := range n.Children {
		if f := findFrame(c, index); f != nil {
			return f
		}
	}
	return nil
}

func find(n *protocol.Node, id int) *protocol.Node {
	if n == nil {
		return nil
	}
	if n.ID == id {
		return n
	}
	for _, c := range n.Children {
		if f := find(c, id); f != nil {
			return f
		}
	}
	return nil
}

// Button is a node for a button at (x, y) in its frame, 100×30.
func Button(id int, name string, x, y float64) *protocol.Node {
	return &protocol.Node{Role: "button", Name: name, ID: id, Box: &protocol.Rect{X: x, Y: y, W: 100, H: 30}}
}

// Field is a text field; secret makes it a password field.
func Field(id int, name string, secret bool, x, y float64) *protocol.Node {
	return &protocol.Node{Role: "textbox", Name: name, ID: id, Secret: secret, Box: &protocol.Rect{X: x, Y: y, W: 200, H: 30}}
}

// Frame is a top frame whose document holds nodes.
func Frame(nodes ...*protocol.Node) protocol.FrameReport {
	return protocol.FrameReport{Frame: 0, Root: &protocol.Node{Role: "document", Children: nodes}}
}

// Options configures [New].
type Options struct {
	ApprovalTimeout time.Duration // optional: default 2 s
	// PersonWait is how long approved input waits for the person to be
	// still before it is held; default 500 ms, to keep tests short.
	PersonWait time.Duration // optional
	// Anchor is the audit log's anchor; default none.
	Anchor *audit.AnchorOptions // optional
	// PersonTerminal and OwnProcesses are core.Options'.
	PersonTerminal bool  // optional
	OwnProcesses   []int // optional
	// Now is core.Options' clock; default the time of day.
	Now func() time.Time // optional
	// Policy is the organisation's policy the engine starts under; default
	// none. Engine.ApplyPolicy changes it.
	Policy policy.State // optional
}

// Engine is a core.Engine on fakes, running until the test ends.
type Engine struct {
	*core.Engine
	Browser *Browser
	Exec    *executor.Fake
	Read    *deskread.Fake // reads Exec's desktop
	Log     *audit.Log
	LogPath string
}

// New starts an engine on a fake browser (connected, with no tabs), the
// recording executor, a reader of its desktop and a temporary audit log.
func New(t testing.TB, opts Options) *Engine {
	t.Helper()
	if opts.ApprovalTimeout == 0 {
		opts.ApprovalTimeout = 2 * time.Second
	}
	if opts.PersonWait == 0 {
		opts.PersonWait = 500 * time.Millisecond
	}
	path := filepath.Join(t.TempDir(), "audit.db")
	log, err := audit.Open(context.Background(), audit.Options{Path: path, Anchor: opts.Anchor})
	if err != nil {
		t.Fatal(err)
	}
	br := NewBrowser()
	ex := &executor.Fake{}
	rd := deskread.NewFake(ex)
	e := core.New(core.Options{Browser: br, Audit: log, Executor: ex, Reader: rd, ApprovalTimeout: opts.ApprovalTimeout, PersonWait: opts.PersonWait, Logf: t.Logf,
		PersonTerminal: opts.PersonTerminal, OwnProcesses: opts.OwnProcesses, Now: opts.Now, Policy: opts.Policy})
	Run(t, e, log)
	br.Connect()
	return &Engine{Engine: e, Browser: br, Exec: ex, Read: rd, Log: log, LogPath: path}
}

// WaitTab waits until the engine knows a tab at url and returns its id.
func (e *Engine) WaitTab(t testing.TB, url string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second) // generous: a loaded machine under -race
	for time.Now().Before(deadline) {
		for _, tab := range e.Tabs() {
			if tab.URL == url && tab.Connected {
				return tab.ID
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the engine never saw a tab at %s", url)
	return ""
}

// Run runs e until the test ends, then closes it and log.
func Run(t testing.TB, e *core.Engine, log *audit.Log) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(ctx)
	}()
	t.Cleanup(func() {
		e.Close()
		cancel()
		<-done
		log.Close()
	})
}

// AnswerAll answers every approval with d until the returned stop is called.
func (e *Engine) AnswerAll(d vocab.Decision) (stop func()) {
	events, unsubscribe := e.Subscribe(64)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				e.Engine.Answer(ev.Request.ID, d)
			}
		}
	}()
	return unsubscribe
}

// Admitted opens a session for a through the agents' door, and has the
// person allow the agent at once, as they would at its first connection;
// the request that asked them is answered by that.
func Admitted(t testing.TB, agents agentdoor.Door, person persondoor.Door, a vocab.Agent) agentdoor.Session {
	t.Helper()
	s := agents.Admit(a)
	if err := person.AllowAgent(persondoor.AgentKey(s.Agent())); err != nil {
		t.Fatalf("allowing %s: %v", s.Agent().Label(), err)
	}
	t.Cleanup(s.Close)
	return s
}
