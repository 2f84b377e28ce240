package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
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

const noDisplayReason = "Reins can read and share tabs but cannot click or type; start it inside an X11 session to act"

// noDisplayEnv makes this test's Reins one on a machine without a desktop.
func noDisplayEnv(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "")
}

func TestWithoutADisplayTheTrayStillRefusesToStart(t *testing.T) {
	noDisplayEnv(t)
	rt, err := core.Start(context.Background(), core.StartOptions{DataDir: t.TempDir(), Logf: t.Logf})
	if err == nil {
		rt.Close()
		t.Fatal("Reins started without a display although nothing asked it to")
	}
	if !errors.Is(err, executor.ErrNoDisplay) || !strings.Contains(err.Error(), "X11 desktop session") {
		t.Fatalf("the refusal does not say what is missing and what to do: %v", err)
	}
}

// TestWithoutADisplayReadsWorkAndInputIsRefused is `reins serve` on a
// machine without a desktop: the real runtime (bridge, audit file, strip)
// with the executor it picks there, and an extension that pairs over the
// real socket. Reads, screenshots and browser-level acts work; every input
// act is refused through the normal path, after the person allowed it: its
// audit rows, the agent's error and the strip in Chrome all say why.
func TestWithoutADisplayReadsWorkAndInputIsRefused(t *testing.T) {
	noDisplayEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	rt, err := core.Start(ctx, core.StartOptions{DataDir: dir, WithoutDisplay: true, ApprovalTimeout: 10 * time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatalf("Reins did not start without a display: %v", err)
	}
	defer rt.Close()
	if err := rt.InputUnavailable(); err == nil || !errors.Is(err, executor.ErrNoDisplay) || !strings.Contains(err.Error(), noDisplayReason) {
		t.Fatalf("InputUnavailable = %v", err)
	}

	page := coretest.NewBrowser()
	page.Connect()
	page.Open(7, shop())
	secret, err := bridge.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var strip []protocol.Activity // guarded by mu
	ext, err := bridgetest.Dial(ctx, bridgetest.DialOptions{
		URL: fmt.Sprintf("ws://127.0.0.1:%d/bridge", rt.Port()), Origin: extension.Origin, Secret: secret, Profile: coretest.Profile,
		Handler: func(method string, params json.RawMessage) (any, *protocol.Error) {
			var out json.RawMessage
			if err := page.Call(ctx, coretest.Profile, method, params, &out); err != nil {
				var pe *protocol.Error
				if errors.As(err, &pe) {
					return nil, pe
				}
				return nil, &protocol.Error{Code: protocol.CodeInternal, Message: err.Error()}
			}
			return out, nil
		},
		OnEvent: func(method string, params json.RawMessage) {
			var a protocol.Activity
			if method == protocol.EventActivity && json.Unmarshal(params, &a) == nil {
				mu.Lock()
				strip = append(strip, a)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	var tabs protocol.TabsResult
	if err := page.Call(ctx, coretest.Profile, protocol.MethodTabs, nil, &tabs); err != nil {
		t.Fatal(err)
	}
	if err := ext.Emit(ctx, protocol.EventTabs, tabs); err != nil {
		t.Fatal(err)
	}
	var tab string
	testenv.WaitFor(t, "the extension's tab", func() bool {
		for _, ti := range rt.Tabs() {
			if ti.Connected && ti.URL == shopURL {
				tab = ti.ID
			}
		}
		return tab != ""
	})
	if err := rt.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	events, stop := rt.Subscribe(256)
	defer stop()
	var asked []string // acts put to the person; guarded by mu
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval {
				mu.Lock()
				asked = append(asked, string(ev.Request.Act.Kind))
				mu.Unlock()
				rt.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	agent := rt.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})

	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatalf("a snapshot without a display: %v", err)
	}
	if _, err := agent.Screenshot(ctx, tab); err != nil {
		t.Fatalf("a screenshot without a display: %v", err)
	}
	if _, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Act: vocab.Act{Kind: vocab.Navigate, URL: shopURL + "?page=2"}}); err != nil {
		t.Fatalf("navigating, which the browser does itself, without a display: %v", err)
	}
	snap, err = agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := refIn(t, snap.Text, "Place order")
	search := refIn(t, snap.Text, "Search")

	refusedWithReason := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s fired without a display", what)
		}
		if !strings.Contains(err.Error(), "no X display") || !strings.Contains(err.Error(), noDisplayReason) {
			t.Fatalf("%s was refused without saying why and what to do: %v", what, err)
		}
		t.Logf("%s: %v", what, err)
	}
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	refusedWithReason("a click", err)
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: search, Act: vocab.Act{Kind: "type", Text: "shoes"}})
	refusedWithReason("typing", err)
	_, err = agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Act: vocab.Act{Kind: "key", Keys: "Enter"}})
	refusedWithReason("a key press", err)
	_, err = agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 10, Y: 10})
	refusedWithReason("a desktop click", err)
	if _, err := agent.Desktop(ctx); err == nil || !strings.Contains(err.Error(), "no X display") {
		t.Fatalf("observing the desktop without a display: %v", err)
	}

	rows, err := rt.AuditRows(ctx, persondoor.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]int{}
	for _, r := range rows {
		if r.Outcome == vocab.OutcomeRefused && r.Code == vocab.CodeNoDisplay && strings.Contains(r.Detail, noDisplayReason) {
			refused[r.ActKind]++
		}
	}
	for _, kind := range []string{"click", "type", "key"} {
		if refused[kind] == 0 {
			t.Errorf("no audit row says the %s was refused for want of a display: %+v", kind, rows)
		}
	}
	mu.Lock()
	for _, kind := range asked {
		if kind != string(vocab.Navigate) {
			t.Errorf("the person was asked about a %s that could not happen without a display", kind)
		}
	}
	mu.Unlock()
	testenv.WaitFor(t, "the strip to show the refused click", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range strip {
			if strings.Contains(a.Act, "Place order") && strings.Contains(a.Outcome, "no display") {
				t.Logf("the strip: %s: %s", a.Act, a.Outcome)
				return true
			}
		}
		return false
	})
}

func refIn(t *testing.T, text, name string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, `"`+name+`"`) {
			if _, after, ok := strings.Cut(line, "[ref="); ok {
				ref, _, _ := strings.Cut(after, "]")
				return ref
			}
		}
	}
	t.Fatalf("no %q in\n%s", name, text)
	return ""
}
