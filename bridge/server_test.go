package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

func TestCallReachesTheExtensionAndDecodesTheResult(t *testing.T) {
	h := start(t, nil)
	seen := make(chan string, 1)
	h.connect("p", func(method string, params json.RawMessage) (any, *protocol.Error) {
		seen <- method + " " + string(params)
		var sp protocol.SnapshotParams
		if err := json.Unmarshal(params, &sp); err != nil {
			return nil, &protocol.Error{Code: protocol.CodeBadRequest, Message: err.Error()}
		}
		return protocol.SnapshotResult{Tab: sp.Tab, Zoom: 1.25, Frames: []protocol.FrameReport{{Frame: 0, Parent: -1, Root: &protocol.Node{Role: "document"}}}}, nil
	})

	var got protocol.SnapshotResult
	if err := h.s.Call(ctxFor(t, patience), "p", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: 42}, &got); err != nil {
		t.Fatal(err)
	}
	if want := `snapshot {"tab":42}`; <-seen != want {
		t.Errorf("the extension did not receive %s", want)
	}
	if got.Tab != 42 || got.Zoom != 1.25 || len(got.Frames) != 1 || got.Frames[0].Root.Role != "document" {
		t.Errorf("result = %+v", got)
	}
}

func TestCallWithNilOutDiscardsTheResult(t *testing.T) {
	h := start(t, nil)
	h.connect("p", whoAmI("p"))
	if err := h.s.Call(ctxFor(t, patience), "", "who", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCallReturnsTheExtensionsError(t *testing.T) {
	h := start(t, nil)
	h.connect("p", func(method string, params json.RawMessage) (any, *protocol.Error) {
		return nil, &protocol.Error{Code: protocol.CodeNoTab, Message: "No tab with id 9"}
	})
	err := h.s.Call(ctxFor(t, patience), "p", protocol.MethodActivate, protocol.ActivateParams{Tab: 9}, nil)
	var remote *bridge.RemoteError
	if !errors.As(err, &remote) {
		t.Fatalf("err = %v (%T), want a *RemoteError", err, err)
	}
	if remote.Code != protocol.CodeNoTab || remote.Message != "No tab with id 9" {
		t.Errorf("remote error = %+v", remote)
	}
	for _, sentinel := range []error{bridge.ErrNotConnected, bridge.ErrDisconnected, bridge.ErrTimeout} {
		if errors.Is(err, sentinel) {
			t.Errorf("a remote error also reads as %v", sentinel)
		}
	}
}

func TestCallToAMethodTheExtensionLacks(t *testing.T) {
	h := start(t, nil)
	h.connect("p", nil)
	err := h.s.Call(ctxFor(t, patience), "p", "teleport", struct{}{}, nil)
	var remote *protocol.Error
	if !errors.As(err, &remote) || remote.Code != protocol.CodeUnknownMethod {
		t.Fatalf("err = %v, want %s", err, protocol.CodeUnknownMethod)
	}
}

func TestCallReportsAMalformedAnswer(t *testing.T) {
	h := start(t, nil)
	h.connect("p", func(string, json.RawMessage) (any, *protocol.Error) {
		return map[string]any{"tabs": "not a list"}, nil
	})
	var out protocol.TabsResult
	err := h.s.Call(ctxFor(t, patience), "p", protocol.MethodTabs, struct{}{}, &out)
	if err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("err = %v, want a malformed-answer error", err)
	}
	var remote *protocol.Error
	if errors.As(err, &remote) {
		t.Errorf("a malformed answer reads as the extension's own error %+v", remote)
	}
}

func TestCallWithoutExtensionIsNotConnected(t *testing.T) {
	h := start(t, nil)
	if err := h.s.Call(ctxFor(t, patience), "", protocol.MethodTabs, struct{}{}, nil); !errors.Is(err, bridge.ErrNotConnected) {
		t.Errorf("no extension at all: err = %v, want ErrNotConnected", err)
	}
	h.connect("a", whoAmI("a"))
	if err := h.s.Call(ctxFor(t, patience), "b", protocol.MethodTabs, struct{}{}, nil); !errors.Is(err, bridge.ErrNotConnected) {
		t.Errorf("another profile connected: err = %v, want ErrNotConnected", err)
	}
}

func TestCallTimesOutWhenTheExtensionIsSilent(t *testing.T) {
	const timeout = 200 * time.Millisecond
	h := start(t, func(o *bridge.Options) { o.RequestTimeout = timeout })
	b := newBlocker(t)
	h.connect("p", func(method string, params json.RawMessage) (any, *protocol.Error) {
		if method == "who" {
			return whoAmI("p")(method, params)
		}
		return b.handler(method, params)
	})
	began := time.Now()
	err := h.s.Call(context.Background(), "p", "slow", struct{}{}, nil)
	if !errors.Is(err, bridge.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if elapsed := time.Since(began); elapsed < timeout || elapsed > 5*time.Second {
		t.Errorf("timed out after %v, want about %v (the default is 10 s)", elapsed, timeout)
	}
	// One unanswered request does not cost the connection.
	if name, err := callWho(t, h.s, "p"); err != nil || name != "p" {
		t.Errorf("a call after the timeout: %q, %v", name, err)
	}
}

func TestCallEndsWithTheCallersContext(t *testing.T) {
	h := start(t, nil)
	b := newBlocker(t)
	h.connect("p", b.handler)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { errs <- h.s.Call(ctx, "p", "slow", struct{}{}, nil) }()
	b.await(t, 1)
	cancel()
	err := collect(t, errs, 1, patience)[0]
	if !errors.Is(err, context.Canceled) || errors.Is(err, bridge.ErrTimeout) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// An agent giving up on one request gets context.Canceled, and must not cost
// everyone the extension. The cancellations are spread across the moment the
// request is written, where a context tied to the socket write closes the
// socket (coder/websocket closes the connection when a write's context ends).
func TestCancellingCallsDoesNotCostTheConnection(t *testing.T) {
	h := start(t, nil)
	b := newBlocker(t)
	ext := h.connect("p", func(method string, params json.RawMessage) (any, *protocol.Error) {
		if method == "who" {
			return whoAmI("p")(method, params)
		}
		return b.handler(method, params)
	})
	go func() { // the blocked requests must not fill the blocker's queue
		for range b.reached {
		}
	}()
	for i := range 300 {
		ctx, cancel := context.WithCancel(context.Background())
		errs := make(chan error, 1)
		go func() { errs <- h.s.Call(ctx, "p", "slow", struct{}{}, nil) }()
		time.Sleep(time.Duration(i%30) * 10 * time.Microsecond)
		cancel()
		err := collect(t, errs, 1, patience)[0]
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancellation %d: err = %v, want context.Canceled", i, err)
		}
	}
	select {
	case <-ext.Done():
		t.Fatalf("the extension was disconnected: %v", ext.Err())
	default:
	}
	if name, err := callWho(t, h.s, "p"); err != nil || name != "p" {
		t.Fatalf("a call after the cancellations: %q, %v", name, err)
	}
}

// startCalls sends n requests that the extension will hold, and returns
// where their outcomes arrive.
func startCalls(h *harness, profile string, n int) <-chan error {
	errs := make(chan error, n)
	for range n {
		go func() { errs <- h.s.Call(context.Background(), profile, "slow", struct{}{}, nil) }()
	}
	return errs
}

// The request timeout is ten minutes in these tests; every pending call must
// fail as soon as the socket goes, not when its own clock runs out.
func TestPendingCallsFailAtOnceWhenTheSocketDrops(t *testing.T) {
	const n = 5
	const promptly = 10 * time.Second
	long := func(o *bridge.Options) { o.RequestTimeout = 10 * time.Minute }

	t.Run("the extension closes", func(t *testing.T) {
		h := start(t, long)
		b := newBlocker(t)
		ext := h.connect("p", b.handler)
		errs := startCalls(h, "p", n)
		b.await(t, n)
		ext.Close()
		requireAll(t, collect(t, errs, n, promptly), bridge.ErrDisconnected)
		h.waitFor(bridge.EventDisconnected, "p")
		if err := h.s.Call(ctxFor(t, patience), "p", "slow", struct{}{}, nil); !errors.Is(err, bridge.ErrNotConnected) {
			t.Errorf("a call after the drop: err = %v, want ErrNotConnected", err)
		}
	})

	t.Run("the socket is cut without a close frame", func(t *testing.T) {
		h := start(t, long)
		c := h.pairRaw("p")
		errs := startCalls(h, "p", n)
		for range n {
			if m := readMessage(t, c); m.Method != "slow" {
				t.Fatalf("got %+v, want a slow request", m)
			}
		}
		c.CloseNow()
		requireAll(t, collect(t, errs, n, promptly), bridge.ErrDisconnected)
		h.waitFor(bridge.EventDisconnected, "p")
	})

	t.Run("the server closes", func(t *testing.T) {
		h := start(t, long)
		b := newBlocker(t)
		ext := h.connect("p", b.handler)
		errs := startCalls(h, "p", n)
		b.await(t, n)
		h.s.Close()
		requireAll(t, collect(t, errs, n, promptly), bridge.ErrDisconnected)
		select {
		case <-ext.Done():
		case <-time.After(patience):
			t.Fatal("the extension's socket is still open after Close")
		}
		if got := websocket.CloseStatus(ext.Err()); got != websocket.StatusGoingAway {
			t.Errorf("close status %v, want %v", got, websocket.StatusGoingAway)
		}
	})
}

func TestEventsArriveInOrderBetweenConnectAndDisconnect(t *testing.T) {
	h := start(t, nil)
	ext := h.dial("p", nil)
	const n = 50
	for i := range n {
		if err := ext.Emit(ctxFor(t, patience), protocol.EventNavigated, protocol.Navigated{Tab: 1, Epoch: i, Kind: "push"}); err != nil {
			t.Fatal(err)
		}
	}
	ext.Close()

	if ev := h.nextEvent(); ev.Method != bridge.EventConnected || ev.Profile != "p" {
		t.Fatalf("first event %+v, want %s", ev, bridge.EventConnected)
	}
	for i := range n {
		ev := h.nextEvent()
		var nav protocol.Navigated
		if ev.Method != protocol.EventNavigated || ev.Profile != "p" || json.Unmarshal(ev.Params, &nav) != nil {
			t.Fatalf("event %d = %+v, want navigated from p", i, ev)
		}
		if nav.Epoch != i {
			t.Fatalf("event %d carries epoch %d: out of order", i, nav.Epoch)
		}
	}
	if ev := h.nextEvent(); ev.Method != bridge.EventDisconnected || ev.Profile != "p" {
		t.Fatalf("last event %+v, want %s", ev, bridge.EventDisconnected)
	}
}

// sizedEvent returns a valid event of exactly n bytes.
func sizedEvent(n int) []byte {
	const head, tail = `{"method":"zoom","params":{"pad":"`, `"}}`
	b := make([]byte, 0, n)
	b = append(b, head...)
	b = append(b, strings.Repeat("x", n-len(head)-len(tail))...)
	return append(b, tail...)
}

func TestMessageSizeLimit(t *testing.T) {
	t.Run("one byte over closes the connection", func(t *testing.T) {
		h := start(t, nil)
		c := h.pairRaw("big")
		if err := c.Write(ctxFor(t, patience), websocket.MessageText, sizedEvent(protocol.MaxMessageBytes+1)); err != nil {
			t.Fatal(err)
		}
		if got := closeStatus(t, c); got != websocket.StatusMessageTooBig {
			t.Errorf("close status %v, want %v", got, websocket.StatusMessageTooBig)
		}
		h.waitFor(bridge.EventDisconnected, "big")
		if peers := h.s.Peers(); len(peers) != 0 {
			t.Errorf("Peers = %+v", peers)
		}
		// The server itself is unharmed.
		h.connect("big", whoAmI("again"))
		if name, err := callWho(t, h.s, "big"); err != nil || name != "again" {
			t.Errorf("a new connection after the oversized message: %q, %v", name, err)
		}
	})

	// The person reading the log needs to know why the extension dropped.
	t.Run("is logged", func(t *testing.T) {
		h := start(t, nil)
		c := h.pairRaw("big")
		if err := c.Write(ctxFor(t, patience), websocket.MessageText, sizedEvent(protocol.MaxMessageBytes+1)); err != nil {
			t.Fatal(err)
		}
		closeStatus(t, c)
		h.waitFor(bridge.EventDisconnected, "big")
		if !h.logs.contains("sent a message over") {
			t.Error("closing the connection for an oversized message was not logged")
		}
	})

	t.Run("exactly the limit is accepted", func(t *testing.T) {
		h := start(t, nil)
		c := h.pairRaw("big")
		if err := c.Write(ctxFor(t, patience), websocket.MessageText, sizedEvent(protocol.MaxMessageBytes)); err != nil {
			t.Fatal(err)
		}
		ev := h.nextEvent()
		if ev.Method != protocol.EventZoom || len(ev.Params) < protocol.MaxMessageBytes-64 {
			t.Fatalf("got %s with %d bytes of params, want the whole zoom event", ev.Method, len(ev.Params))
		}
		if peers := h.s.Peers(); len(peers) != 1 {
			t.Errorf("Peers = %+v", peers)
		}
	})
}

// answerNext reads until the next request, which must be method, and
// answers it with result.
func answerNext(t *testing.T, c wire, method string, result string) {
	t.Helper()
	m := readMessage(t, c)
	if m.Kind() != protocol.KindRequest || m.Method != method {
		t.Fatalf("got %+v, want a %s request", m, method)
	}
	writeRaw(t, c, `{"id":"`+m.ID+`","result":`+result+`}`)
}

func TestMalformedMessagesAreDroppedAndTheConnectionLives(t *testing.T) {
	h := start(t, nil)
	c := h.pairRaw("p")
	for _, bad := range []string{
		`not JSON at all`,
		`{"id":"a1","result":{},"error":{"code":"internal","message":"both"}}`,
		`{"id":"a1","error":{"message":"no code"}}`,
		`{"method":"zoom","result":{}}`,
		`{"id":"` + strings.Repeat("x", 65) + `","result":{}}`,
		`{"id":"nobody-asked","result":{}}`, // well formed, but answers nothing
	} {
		writeRaw(t, c, bad)
	}
	errs := make(chan error, 1)
	var got protocol.TabsResult
	go func() { errs <- h.s.Call(context.Background(), "p", protocol.MethodTabs, struct{}{}, &got) }()
	answerNext(t, c, protocol.MethodTabs, `{"tabs":[{"id":5,"windowId":1,"url":"https://a.example/","title":"A","active":true,"focused":true,"status":"complete"}]}`)
	if err := collect(t, errs, 1, patience)[0]; err != nil {
		t.Fatalf("a call after malformed messages: %v", err)
	}
	if len(got.Tabs) != 1 || got.Tabs[0].ID != 5 {
		t.Errorf("result = %+v", got)
	}
	if !h.logs.contains("dropped a message") {
		t.Error("the drops were not logged")
	}
	h.noEventPending() // the event carrying a result was not delivered
}

func TestTheAppAnswersTheExtensionsRequests(t *testing.T) {
	h := start(t, nil)
	c := h.pairRaw("p")
	writeRaw(t, c, `{"id":"x1","method":"tabs","params":{}}`)
	m := readMessage(t, c)
	if m.ID != "x1" || m.Error == nil || m.Error.Code != protocol.CodeUnknownMethod {
		t.Fatalf("answer %+v, want an %s error for x1", m, protocol.CodeUnknownMethod)
	}
}

func TestANewConnectionFromTheSameProfileReplacesTheOld(t *testing.T) {
	h := start(t, func(o *bridge.Options) { o.RequestTimeout = time.Minute })
	b := newBlocker(t)
	first := h.connect("p", func(method string, params json.RawMessage) (any, *protocol.Error) {
		if method == "who" {
			return whoAmI("first")(method, params)
		}
		return b.handler(method, params)
	})
	if name, _ := callWho(t, h.s, "p"); name != "first" {
		t.Fatalf("before the replacement the call reached %q", name)
	}
	errs := startCalls(h, "p", 3)
	b.await(t, 3)

	h.connect("p", whoAmI("second"))
	requireAll(t, collect(t, errs, 3, patience), bridge.ErrDisconnected)
	select {
	case <-first.Done():
	case <-time.After(patience):
		t.Fatal("the replaced connection is still open")
	}
	if got := websocket.CloseStatus(first.Err()); got != websocket.StatusNormalClosure {
		t.Errorf("replaced connection closed with %v, want %v", got, websocket.StatusNormalClosure)
	}
	if peers := h.s.Peers(); len(peers) != 1 || peers[0].Profile != "p" {
		t.Errorf("Peers = %+v, want one entry for p", peers)
	}
	if name, err := callWho(t, h.s, "p"); err != nil || name != "second" {
		t.Errorf("after the replacement the call reached %q (%v)", name, err)
	}
}

// A restarted service worker can leave a dead socket behind (a frozen or
// killed renderer): the old connection never answers the close handshake.
// Neither the new connection nor the old one's pending calls may wait for it.
func TestReplacingADeadConnectionDoesNotWaitForIt(t *testing.T) {
	// The library waits 5 s for a close handshake; well under that proves
	// nobody waited for one.
	const promptly = 3 * time.Second
	h := start(t, func(o *bridge.Options) { o.RequestTimeout = time.Minute })
	old := h.pairRaw("p")
	errs := startCalls(h, "p", 3)
	for range 3 {
		if m := readMessage(t, old); m.Method != "slow" {
			t.Fatalf("got %+v, want a slow request", m)
		}
	}
	// From here on nothing reads old, so it will not echo a close frame.

	h.dial("p", whoAmI("second"))
	select {
	case ev := <-h.s.Events():
		if ev.Method != bridge.EventConnected || ev.Profile != "p" {
			t.Fatalf("event %+v, want the new connection's %s", ev, bridge.EventConnected)
		}
	case <-time.After(promptly):
		t.Fatalf("the new connection was not registered within %v: it waits on the old one's close handshake", promptly)
	}
	requireAll(t, collect(t, errs, 3, promptly), bridge.ErrDisconnected)
	var out struct{ Name string }
	if err := h.s.Call(ctxFor(t, promptly), "p", "who", struct{}{}, &out); err != nil || out.Name != "second" {
		t.Fatalf("a call right after the replacement: %q, %v (want an answer within %v)", out.Name, err, promptly)
	}
}

func TestDifferentProfilesCoexist(t *testing.T) {
	h := start(t, nil)
	a := h.connect("a", whoAmI("a"))
	h.connect("b", whoAmI("b"))

	peers := h.s.Peers()
	if len(peers) != 2 || peers[0].Profile != "a" || peers[1].Profile != "b" {
		t.Fatalf("Peers = %+v, want a then b (most recent last)", peers)
	}
	for _, c := range []struct{ profile, want string }{{"a", "a"}, {"b", "b"}, {"", "b"}} {
		if name, err := callWho(t, h.s, c.profile); err != nil || name != c.want {
			t.Errorf("Call(%q) reached %q (%v), want %q", c.profile, name, err, c.want)
		}
	}

	a.Close()
	h.waitFor(bridge.EventDisconnected, "a")
	if peers := h.s.Peers(); len(peers) != 1 || peers[0].Profile != "b" {
		t.Errorf("after a left: Peers = %+v", peers)
	}
	if _, err := callWho(t, h.s, "a"); !errors.Is(err, bridge.ErrNotConnected) {
		t.Errorf("Call(a) after a left: %v, want ErrNotConnected", err)
	}
	if name, err := callWho(t, h.s, ""); err != nil || name != "b" {
		t.Errorf("Call(\"\") after a left reached %q (%v), want b", name, err)
	}
}

func TestKeepalive(t *testing.T) {
	const every = 100 * time.Millisecond

	t.Run("is sent and answered", func(t *testing.T) {
		h := start(t, func(o *bridge.Options) { o.Keepalive = every; o.RequestTimeout = time.Second })
		c := h.pairRaw("p")
		// Three periods fit in the bound many times over, the 15 s default
		// not even once.
		deadline := time.Now().Add(5 * time.Second)
		for range 3 {
			m := readMessage(t, c)
			if time.Now().After(deadline) {
				t.Fatal("keepalives come slower than the configured 100ms")
			}
			if m.Kind() != protocol.KindRequest || m.Method != protocol.MethodKeepalive || string(m.Params) != "{}" {
				t.Fatalf("got %+v, want a keepalive request with {}", m)
			}
			writeRaw(t, c, `{"id":"`+m.ID+`","result":{}}`)
		}
		if peers := h.s.Peers(); len(peers) != 1 {
			t.Errorf("Peers = %+v after answered keepalives", peers)
		}
		if h.logs.contains("missed a keepalive") {
			t.Error("an answered keepalive was counted as missed")
		}
	})

	t.Run("unanswered disconnects", func(t *testing.T) {
		h := start(t, func(o *bridge.Options) { o.Keepalive = every; o.RequestTimeout = 200 * time.Millisecond })
		c := h.pairRaw("p")
		if m := readMessage(t, c); m.Method != protocol.MethodKeepalive {
			t.Fatalf("got %+v, want a keepalive", m)
		}
		// A period plus the request timeout, with room; the defaults take 25 s.
		if got := closeStatusWithin(t, c, 5*time.Second); got != websocket.StatusGoingAway {
			t.Errorf("close status %v, want %v", got, websocket.StatusGoingAway)
		}
		h.waitFor(bridge.EventDisconnected, "p")
		if peers := h.s.Peers(); len(peers) != 0 {
			t.Errorf("Peers = %+v", peers)
		}
		if !h.logs.contains("missed a keepalive") {
			t.Error("the missed keepalive was not logged")
		}
	})

	// The fake extension answers keepalives on its own; over many periods it
	// stays connected. A missed keepalive would close it within one period
	// plus the request timeout, well inside the window.
	t.Run("the fake extension answers them", func(t *testing.T) {
		h := start(t, func(o *bridge.Options) {
			o.Keepalive = 20 * time.Millisecond
			o.RequestTimeout = 200 * time.Millisecond
		})
		ext := h.connect("p", whoAmI("p"))
		select {
		case <-ext.Done():
			t.Fatalf("disconnected: %v", ext.Err())
		case <-time.After(time.Second):
		}
		if h.logs.contains("missed a keepalive") {
			t.Error("a keepalive went unanswered")
		}
		if name, err := callWho(t, h.s, "p"); err != nil || name != "p" {
			t.Errorf("call after many keepalives: %q, %v", name, err)
		}
	})
}

// Events documents that a slow reader loses the oldest events. Whatever is
// lost, the newest state must survive: above all that the extension has gone.
func TestAFullEventQueueKeepsTheNewestEvents(t *testing.T) {
	h := start(t, nil)
	ext := h.connect("p", nil)
	const n = 1100 // more than the queue holds
	for i := range n {
		if err := ext.Emit(ctxFor(t, patience), protocol.EventNavigated, protocol.Navigated{Epoch: i}); err != nil {
			t.Fatal(err)
		}
	}
	ext.Close()
	testenv.WaitFor(t, "the server to let the connection go", func() bool { return len(h.s.Peers()) == 0 })

	var last bridge.Event
	lastEpoch := -1
	for drained := false; !drained; {
		select {
		case ev := <-h.s.Events():
			last = ev
			var nav protocol.Navigated
			if ev.Method == protocol.EventNavigated && json.Unmarshal(ev.Params, &nav) == nil {
				lastEpoch = nav.Epoch
			}
		default:
			drained = true
		}
	}
	if last.Method != bridge.EventDisconnected {
		t.Errorf("the last queued event is %q, not %s: a slow reader never learns the extension left", last.Method, bridge.EventDisconnected)
	}
	if lastEpoch != n-1 {
		t.Errorf("the newest navigation kept is %d, want %d: the newest events were dropped, not the oldest", lastEpoch, n-1)
	}
}

// Close stops the server; a connection still pairing at that moment must
// not end up registered on a stopped server.
func TestCloseAlsoEndsHandshakesInProgress(t *testing.T) {
	// No keepalive may come along and end a stray connection for Close.
	h := start(t, func(o *bridge.Options) { o.Keepalive = time.Hour })
	c := h.rawDial(extension.Origin)
	appNonce := readChallenge(t, c)
	h.s.Close()

	extNonce := strings.Repeat("cd", 32)
	params, _ := json.Marshal(protocol.Hello{
		Version: protocol.Version, Port: h.s.Port(), Profile: "late", BrowserSession: "s", Nonce: extNonce,
		Proof: bridge.ExtensionProof(h.secret, bridge.Transcript{Port: h.s.Port(), AppNonce: appNonce, ExtNonce: extNonce, Profile: "late"}),
	})
	// The write may fail if the server already dropped the socket; that is
	// a pass. A welcome followed by a close is tolerated too: what matters is
	// that nothing stays connected to a stopped server.
	b, _ := json.Marshal(&protocol.Message{ID: "h1", Method: protocol.MethodHello, Params: params})
	c.Write(ctxFor(t, patience), websocket.MessageText, b)
	ctx := ctxFor(t, 10*time.Second)
	for {
		_, _, err := c.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.Errorf("the connection stayed open after Close; Peers = %+v", h.s.Peers())
				return
			}
			break
		}
	}
	if peers := h.s.Peers(); len(peers) != 0 {
		t.Errorf("Peers = %+v after Close", peers)
	}
}
