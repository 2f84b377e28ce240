package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

const pageURL = "https://shop.example.com/cart"

// fakeBrowser plays one tab of a connected extension: a button that, once
// clicked, makes "Order placed" appear, and a search field.
type fakeBrowser struct {
	events  chan bridge.Event
	placed  atomic.Bool
	divert  atomic.Bool   // clicks land on a sheet the page laid over the button
	closed  atomic.Bool   // the extension was asked to close the tab
	stall   atomic.Bool   // snapshot calls wait for unstall and then fail as a dropped socket would
	unstall chan struct{} // closed to release stalled calls
	stalled chan struct{} // receives one value per stalled call
}

func newFakeBrowser() *fakeBrowser {
	return &fakeBrowser{events: make(chan bridge.Event, 64), unstall: make(chan struct{}), stalled: make(chan struct{}, 16)}
}

func (b *fakeBrowser) Events() <-chan bridge.Event { return b.events }

func (b *fakeBrowser) push(method string, v any) {
	raw, _ := json.Marshal(v)
	b.events <- bridge.Event{Profile: "p", Method: method, Params: raw}
}

func (b *fakeBrowser) Call(ctx context.Context, profile, method string, params, out any) error {
	var res any
	switch method {
	case protocol.MethodTabs:
		res = protocol.TabsResult{Tabs: []protocol.Tab{b.tab()}}
	case protocol.MethodSnapshot:
		if b.stall.Load() {
			b.stalled <- struct{}{}
			select {
			case <-b.unstall:
			case <-ctx.Done():
				return ctx.Err()
			}
			return bridge.ErrDisconnected
		}
		res = b.snapshot()
	case protocol.MethodResolve:
		var p protocol.ResolveParams
		raw, _ := json.Marshal(params)
		json.Unmarshal(raw, &p)
		box := boxOf(p.ID)
		res = protocol.ResolveResult{
			Box: box, TopBox: box, Point: protocol.Point{X: box.X + box.W/2, Y: box.Y + box.H/2},
			Viewport: viewport, Window: window, Zoom: 1, Origin: "https://shop.example.com", Editable: p.ID == 2,
		}
	case protocol.MethodCapture:
		img := image.NewRGBA(image.Rect(0, 0, 200, 100))
		var buf bytes.Buffer
		png.Encode(&buf, img)
		res = protocol.CaptureResult{DataURL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}
	case protocol.MethodNavigate, protocol.MethodActivate:
		res = struct{}{}
	case protocol.MethodFocus: // nothing that submits has the focus
		res = protocol.FocusResult{}
	case protocol.MethodCloseTab:
		b.closed.Store(true)
		res = struct{}{}
	case protocol.MethodWatch:
		var p protocol.WatchParams
		raw, _ := json.Marshal(params)
		json.Unmarshal(raw, &p)
		res = protocol.WatchResult{Watch: "w" + strconv.Itoa(p.ID)}
	case protocol.MethodWitness:
		// The fake page sees the pointer arrive on the element.
		var p protocol.WitnessParams
		raw, _ := json.Marshal(params)
		json.Unmarshal(raw, &p)
		res = protocol.WitnessResult{Seen: true, Near: true, At: landedOn(p.Watch), X: p.X, Y: p.Y}
	case protocol.MethodEffects:
		var p protocol.EffectsParams
		raw, _ := json.Marshal(params)
		json.Unmarshal(raw, &p)
		on, click := landedOn(p.Watch), landedOn(p.Watch)
		if b.divert.Load() {
			click = &protocol.Landed{Role: "generic", Tag: "div#sheet"}
		}
		res = protocol.EffectsResult{Down: on, Up: click, Click: click, Wheel: on, Keys: 1, KeysOn: 1, Input: on, Inputs: 1}
	default:
		return &protocol.Error{Code: protocol.CodeUnknownMethod, Message: method}
	}
	if out == nil {
		return nil
	}
	raw, _ := json.Marshal(res)
	return json.Unmarshal(raw, out)
}

var (
	viewport = protocol.Viewport{Width: 1000, Height: 700, InnerWidth: 1000, InnerHeight: 700, ClientWidth: 1000, ClientHeight: 700}
	window   = protocol.Window{ScreenX: 0, ScreenY: 0, OuterWidth: 1000, OuterHeight: 787, DPR: 1}
)

// landedOn is the element a watch of the fake page's watches.
func landedOn(watch string) *protocol.Landed {
	if watch == "w2" {
		return &protocol.Landed{On: true, Role: "textbox", Name: "Search", Tag: "input"}
	}
	return &protocol.Landed{On: true, Role: "button", Name: "Place order", Tag: "button"}
}

func boxOf(id int) protocol.Rect {
	return protocol.Rect{X: 100, Y: float64(60 * id), W: 120, H: 30}
}

func (b *fakeBrowser) tab() protocol.Tab {
	return protocol.Tab{ID: 7, WindowID: 1, URL: pageURL, Title: "Cart — Shop", Active: true, Focused: true, Status: "complete"}
}

func (b *fakeBrowser) snapshot() protocol.SnapshotResult {
	kids := []*protocol.Node{
		{Role: "heading", Name: "Your cart", Level: 1},
		{Role: "button", Name: "Place order", ID: 1, Box: ptr(boxOf(1))},
		{Role: "textbox", Name: "Search", ID: 2, Box: ptr(boxOf(2))},
	}
	if b.placed.Load() {
		kids = append(kids, &protocol.Node{Role: "text", Text: "Order placed"})
	}
	return protocol.SnapshotResult{Tab: 7, Zoom: 1, Frames: []protocol.FrameReport{{
		Frame: 0, Parent: -1, Index: -1, URL: pageURL, Origin: "https://shop.example.com", Doc: "d1",
		Viewport: viewport, Window: window, Root: &protocol.Node{Role: "document", Children: kids},
	}}}
}

func ptr[T any](v T) *T { return &v }

// rig is an engine on the fake browser, a fake executor and a real audit
// file, with a person who answers every request as answer says.
type rig struct {
	t      *testing.T
	e      *core.Engine
	b      *fakeBrowser
	exec   *executor.Fake
	read   *deskread.Fake // reads exec's desktop
	log    *audit.Log
	tab    string
	mu     sync.Mutex
	answer vocab.Decision // guarded by mu
	asked  []string       // guarded by mu: the act kinds the person was asked about
}

func newRig(t *testing.T) *rig {
	t.Helper()
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, b: newFakeBrowser(), exec: &executor.Fake{}, log: log, answer: vocab.AllowOnce}
	r.read = deskread.NewFake(r.exec)
	r.exec.BeforeFire = func(tk audit.Ticket) error {
		if tk.Act().Kind == vocab.Click {
			r.b.placed.Store(true)
		}
		return nil
	}
	r.e = core.New(core.Options{Browser: r.b, Audit: log, Executor: r.exec, Reader: r.read, ApprovalTimeout: 3 * time.Second, Logf: t.Logf})
	ctx, cancel := context.WithCancel(context.Background())
	go r.e.Run(ctx)
	events, stop := r.e.Subscribe(256)
	go func() {
		for ev := range events {
			if ev.Kind != persondoor.EventApproval {
				continue
			}
			r.mu.Lock()
			d := r.answer
			r.asked = append(r.asked, string(ev.Request.Act.Kind))
			r.mu.Unlock()
			if d >= 0 {
				r.e.Answer(ev.Request.ID, d)
			}
		}
	}()
	t.Cleanup(func() {
		stop()
		r.e.Close()
		cancel()
		log.Close()
	})
	r.b.push(bridge.EventConnected, nil)
	r.b.push(protocol.EventTabs, protocol.TabsResult{Tabs: []protocol.Tab{r.b.tab()}})
	testenv.WaitFor(t, "the fake tab to appear", func() bool {
		for _, tab := range r.e.Tabs() {
			if tab.Connected {
				r.tab = tab.ID
			}
		}
		return r.tab != ""
	})
	return r
}

// silent makes the person stop answering.
const silent vocab.Decision = -1

func (r *rig) setAnswer(d vocab.Decision) {
	r.mu.Lock()
	r.answer = d
	r.mu.Unlock()
}

func (r *rig) askedAbout(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, k := range r.asked {
		if k == kind {
			n++
		}
	}
	return n
}

// client connects an MCP client named name over the in-memory transport, to
// a server whose sessions come from the process proc.
func (r *rig) client(name string, proc Process) *sdk.ClientSession {
	r.t.Helper()
	srv := NewServer(ServerOptions{Agents: r.e.AgentDoor(), Process: proc, Settle: 20 * time.Millisecond, Logf: r.t.Logf})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1.2"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

var snapshotID = regexp.MustCompile(`Snapshot (s[\d.]+)`)

func idOf(t *testing.T, text string) string {
	t.Helper()
	m := snapshotID.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no snapshot id in %q", text)
	}
	return m[1]
}

var errTest = errors.New("test")
