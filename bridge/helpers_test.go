package bridge_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
)

// patience bounds every wait for something that should happen promptly; a
// test that reaches it has failed, it does not pass by waiting. It is
// generous because 16 MiB messages under -race on a busy machine are slow;
// where timing is the point, tests use their own, tighter bound.
const patience = 30 * time.Second

// logs collects the server's log lines. Server goroutines outlive a test
// (Close does not wait for them), and t.Logf after the test has ended
// panics, so lines go here and are shown only if the test fails.
type logs struct {
	mu     sync.Mutex
	lines  []string // guarded by mu
	closed bool     // guarded by mu
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.lines = append(l.lines, fmt.Sprintf(format, args...))
	}
}

// contains reports whether a logged line holds s.
func (l *logs) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

type harness struct {
	t      testing.TB
	s      *bridge.Server
	url    string
	secret []byte
	logs   *logs
}

func newSecret(t testing.TB) []byte {
	t.Helper()
	s := make([]byte, 32)
	if _, err := rand.Read(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// start runs a real bridge on 127.0.0.1:0 for the length of the test.
func start(t testing.TB, tweak func(*bridge.Options)) *harness {
	t.Helper()
	h := &harness{t: t, secret: newSecret(t), logs: &logs{}}
	t.Cleanup(func() {
		h.logs.mu.Lock()
		defer h.logs.mu.Unlock()
		if t.Failed() {
			lines := h.logs.lines
			if len(lines) > 20 {
				t.Logf("server: (%d earlier lines)", len(lines)-20)
				lines = lines[len(lines)-20:]
			}
			for _, l := range lines {
				t.Log("server: " + l)
			}
		}
		h.logs.closed = true
	})
	opts := bridge.Options{Origin: extension.Origin, Secret: h.secret, Logf: h.logs.logf}
	if tweak != nil {
		tweak(&opts)
	}
	s, err := bridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	h.s = s
	h.url = fmt.Sprintf("ws://127.0.0.1:%d/bridge", s.Port())
	return h
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// dial pairs a fake extension without waiting for the server to register it.
func (h *harness) dial(profile string, handler bridgetest.Handler) *bridgetest.Extension {
	h.t.Helper()
	ext, err := bridgetest.Dial(ctxFor(h.t, patience), bridgetest.DialOptions{
		URL: h.url, Origin: extension.Origin, Secret: h.secret, Profile: profile, Handler: handler,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ext.Close() })
	return ext
}

// connect pairs a fake extension and waits until the server has registered
// it: Dial returns on the Welcome, a moment before registration.
func (h *harness) connect(profile string, handler bridgetest.Handler) *bridgetest.Extension {
	h.t.Helper()
	ext := h.dial(profile, handler)
	h.waitFor(bridge.EventConnected, profile)
	return ext
}

// rawDial opens a WebSocket with the given Origin ("" sends none).
func (h *harness) rawDial(origin string) *websocket.Conn {
	h.t.Helper()
	opts := &websocket.DialOptions{}
	if origin != "" {
		opts.HTTPHeader = map[string][]string{"Origin": {origin}}
	}
	c, _, err := websocket.Dial(ctxFor(h.t, patience), h.url, opts)
	if err != nil {
		h.t.Fatal(err)
	}
	c.SetReadLimit(protocol.MaxMessageBytes)
	h.t.Cleanup(func() { c.CloseNow() })
	return c
}

// pairRaw pairs a connection the test drives by hand, to misbehave in ways
// the fake extension will not. Its reads and writes are sealed.
func (h *harness) pairRaw(profile string) *bridgetest.Sealed {
	h.t.Helper()
	c := h.rawDial(extension.Origin)
	sc, err := bridgetest.Pair(ctxFor(h.t, patience), c, h.secret, profile, h.s.Port())
	if err != nil {
		h.t.Fatal(err)
	}
	h.waitFor(bridge.EventConnected, profile)
	return sc
}

// wire is a connection as the tests read and write it: plain before
// pairing (*websocket.Conn), sealed after (*bridgetest.Sealed).
type wire interface {
	Read(context.Context) (websocket.MessageType, []byte, error)
	Write(context.Context, websocket.MessageType, []byte) error
}

// nextEvent returns the very next event, failing if none comes.
func (h *harness) nextEvent() bridge.Event {
	h.t.Helper()
	select {
	case ev := <-h.s.Events():
		return ev
	case <-time.After(patience):
		h.t.Fatal("no event arrived")
		return bridge.Event{}
	}
}

// waitFor skips events until method arrives for profile.
func (h *harness) waitFor(method, profile string) bridge.Event {
	h.t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case ev := <-h.s.Events():
			if ev.Method == method && ev.Profile == profile {
				return ev
			}
		case <-deadline:
			h.t.Fatalf("no %s event for %q", method, profile)
			return bridge.Event{}
		}
	}
}

// noEventPending fails if an event is already queued.
func (h *harness) noEventPending() {
	h.t.Helper()
	select {
	case ev := <-h.s.Events():
		h.t.Errorf("unexpected event %+v", ev)
	default:
	}
}

func readMessage(t testing.TB, c wire) *protocol.Message {
	t.Helper()
	_, data, err := c.Read(ctxFor(t, patience))
	if err != nil {
		t.Fatalf("reading from the bridge: %v", err)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		t.Fatalf("the bridge sent a malformed message: %v", err)
	}
	return m
}

func writeRaw(t testing.TB, c wire, s string) {
	t.Helper()
	if err := c.Write(ctxFor(t, patience), websocket.MessageText, []byte(s)); err != nil {
		t.Fatal(err)
	}
}

func writeMessage(t testing.TB, c wire, m *protocol.Message) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, c, string(b))
}

// closeStatus reads until the bridge closes c and returns the status it used.
func closeStatus(t testing.TB, c wire) websocket.StatusCode {
	t.Helper()
	return closeStatusWithin(t, c, patience)
}

// closeStatusWithin is closeStatus for when the close is due within d.
func closeStatusWithin(t testing.TB, c wire, d time.Duration) websocket.StatusCode {
	t.Helper()
	ctx := ctxFor(t, d)
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			t.Fatalf("the bridge did not close the connection within %v", d)
		}
		return websocket.CloseStatus(err)
	}
}

// whoAmI answers "who" with name, so a test can tell which connection a
// call reached.
func whoAmI(name string) bridgetest.Handler {
	return func(method string, params json.RawMessage) (any, *protocol.Error) {
		if method == "who" {
			return map[string]string{"name": name}, nil
		}
		return nil, &protocol.Error{Code: protocol.CodeUnknownMethod, Message: method}
	}
}

func callWho(t testing.TB, s *bridge.Server, profile string) (string, error) {
	t.Helper()
	var out struct{ Name string }
	err := s.Call(ctxFor(t, patience), profile, "who", struct{}{}, &out)
	return out.Name, err
}

// blocker answers "slow" only once released, telling the test each time a
// request has reached it.
type blocker struct {
	reached chan string
	release chan struct{}
}

func newBlocker(t testing.TB) *blocker {
	b := &blocker{reached: make(chan string, 64), release: make(chan struct{})}
	t.Cleanup(func() { close(b.release) })
	return b
}

func (b *blocker) handler(method string, params json.RawMessage) (any, *protocol.Error) {
	b.reached <- method
	<-b.release
	return struct{}{}, nil
}

// await waits until n requests have reached the handler.
func (b *blocker) await(t testing.TB, n int) {
	t.Helper()
	deadline := time.After(patience)
	for range n {
		select {
		case <-b.reached:
		case <-deadline:
			t.Fatalf("only some of %d requests reached the extension", n)
		}
	}
}

// collect gathers n results from errs, failing if they take longer than
// within.
func collect(t testing.TB, errs <-chan error, n int, within time.Duration) []error {
	t.Helper()
	deadline := time.After(within)
	var out []error
	for range n {
		select {
		case err := <-errs:
			out = append(out, err)
		case <-deadline:
			t.Fatalf("%d of %d calls still pending after %v", n-len(out), n, within)
		}
	}
	return out
}

func requireAll(t testing.TB, errs []error, want error) {
	t.Helper()
	for i, err := range errs {
		if !errors.Is(err, want) {
			t.Errorf("call %d: err = %v, want %v", i, err, want)
		}
	}
}
