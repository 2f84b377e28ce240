package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
)

type pushed struct {
	mu     sync.Mutex
	events []string
	signal chan struct{}
}

func (p *pushed) record(method string, params json.RawMessage) {
	p.mu.Lock()
	p.events = append(p.events, method+" "+string(params))
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

func TestNotifyPushesAnEventToTheProfilesExtension(t *testing.T) {
	h := start(t, nil)
	got := map[string]*pushed{}
	for _, profile := range []string{"a", "b"} {
		p := &pushed{signal: make(chan struct{}, 1)}
		got[profile] = p
		ext, err := bridgetest.Dial(ctxFor(t, patience), bridgetest.DialOptions{
			URL: h.url, Origin: extension.Origin, Secret: h.secret, Profile: profile, OnEvent: p.record,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ext.Close() })
		h.waitFor(bridge.EventConnected, profile)
	}
	table := protocol.Shares{Seq: 1, Tabs: []protocol.TabShare{{Tab: 5, Level: protocol.LevelRead, Origin: "https://a.example"}}}
	if err := h.s.Notify(ctxFor(t, patience), "a", protocol.EventShares, table); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got["a"].signal:
	case <-ctxFor(t, patience).Done():
		t.Fatal("profile a never received the table")
	}
	want := `shares {"seq":1,"paused":false,"tabs":[{"tab":5,"level":"read","origin":"https://a.example"}]}`
	got["a"].mu.Lock()
	if len(got["a"].events) != 1 || got["a"].events[0] != want {
		t.Errorf("profile a received %q, want %q", got["a"].events, want)
	}
	got["a"].mu.Unlock()
	// Profile b is another browser: its tab 5 is another tab.
	if err := h.s.Notify(ctxFor(t, patience), "b", protocol.EventTabState, protocol.TabState{Tab: 1, State: protocol.StateIdle}); err != nil {
		t.Fatal(err)
	}
	<-got["b"].signal
	got["b"].mu.Lock()
	defer got["b"].mu.Unlock()
	if len(got["b"].events) != 1 || got["b"].events[0] != `tab.state {"tab":1,"state":"idle"}` {
		t.Errorf("profile b received %q", got["b"].events)
	}
	if err := h.s.Notify(context.Background(), "nobody", protocol.EventShares, table); !errors.Is(err, bridge.ErrNotConnected) {
		t.Errorf("Notify to an unknown profile: %v, want ErrNotConnected", err)
	}
}

// The extension may only take power away: the two requests the side panel
// sends reach the handler, and every other request is refused by the bridge
// before any handler sees it, whatever it is named or carries.
func TestTheExtensionMayOnlyAskToTakePowerAway(t *testing.T) {
	h := start(t, nil)
	var mu sync.Mutex
	var served []string
	h.s.Handle(func(ctx context.Context, profile, method string, params json.RawMessage) (any, error) {
		mu.Lock()
		served = append(served, profile+" "+method+" "+string(params))
		mu.Unlock()
		return nil, nil
	})
	ext := h.connect("p", nil)
	ctx := ctxFor(t, patience)
	for _, m := range []string{
		"share", "set_share", "resume", "pause", "approve", "answer", "allow", "allow_agent", "handoff_done",
		protocol.MethodHello, protocol.MethodTabs, protocol.MethodKeepalive, protocol.EventShares, "Stop_Sharing",
	} {
		err := ext.Call(ctx, m, map[string]any{"tab": 5, "level": "control", "on": false, "decision": "allow"}, nil)
		var perr *protocol.Error
		if !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownMethod {
			t.Errorf("request %q: %v, want unknown_method", m, err)
		}
	}
	if err := ext.Call(ctx, protocol.MethodStopSharing, protocol.StopSharing{Tab: 5}, nil); err != nil {
		t.Fatal(err)
	}
	if err := ext.Call(ctx, protocol.MethodPauseAll, nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{`p stop_sharing {"tab":5}`, `p pause_all {}`}
	if len(served) != 2 || served[0] != want[0] || served[1] != want[1] {
		t.Errorf("the handler served %q, want %q", served, want)
	}
}

func TestHandlerErrorsReachTheExtension(t *testing.T) {
	h := start(t, nil)
	ext := h.connect("p", nil)
	ctx := ctxFor(t, patience)
	var perr *protocol.Error
	if err := ext.Call(ctx, protocol.MethodPauseAll, nil, nil); !errors.As(err, &perr) || perr.Code != protocol.CodeUnknownMethod {
		t.Errorf("with no handler: %v, want unknown_method", err)
	}
	h.s.Handle(func(ctx context.Context, profile, method string, params json.RawMessage) (any, error) {
		if method == protocol.MethodStopSharing {
			return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: "Reins knows no tab 9"}
		}
		return nil, errors.New("the audit log is full")
	})
	if err := ext.Call(ctx, protocol.MethodStopSharing, protocol.StopSharing{Tab: 9}, nil); !errors.As(err, &perr) || perr.Code != protocol.CodeNoTab {
		t.Errorf("stop_sharing: %v, want no_tab", err)
	}
	if err := ext.Call(ctx, protocol.MethodPauseAll, nil, nil); !errors.As(err, &perr) || perr.Code != protocol.CodeInternal || perr.Message != "the audit log is full" {
		t.Errorf("pause_all: %v, want internal with the handler's words", err)
	}
}
