// Package bridgetest is a fake Reins extension for tests: it pairs with a
// bridge the way extension/sw.js does, then answers the app's requests from a
// Go function and pushes events, so packages above the bridge can be tested
// without Chrome.
//
// It follows sw.js on purpose, including what sw.js leaves out: it does not
// check the Welcome's version, and it never sends anything about tabs before
// the app has proved it knows the secret over the port it dialled. After
// the handshake every message is sealed, as sw.js seals them. Unlike sw.js
// it does not refuse requests for tabs its share table does not share: the
// Handler decides, so tests above the bridge can reach any tab.
package bridgetest

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
)

// StatusAppUnproven is the close status sw.js uses when the app fails to
// prove itself during the handshake.
const StatusAppUnproven websocket.StatusCode = 4001

// Handler answers one request from the app. A nil result is sent as {}, as
// sw.js does.
type Handler func(method string, params json.RawMessage) (any, *protocol.Error)

// DialOptions configures [Dial].
type DialOptions struct {
	URL     string // required: ws://127.0.0.1:<port>/bridge
	Origin  string // required: sent as the Origin header; extension.Origin to be let in
	Secret  []byte // required: the pairing secret
	Profile string // optional: default "bridgetest"
	// BrowserSession is the browser session the hello names (optional:
	// default DefaultBrowserSession). Dial again with the same one to act
	// out a restarted service worker, with another for a restarted browser.
	BrowserSession string
	Handler        Handler // optional: nil answers every method but keepalive with unknown_method
	// OnEvent is called, in order and on the read loop, with each event the
	// app pushes (the share table, activity, tab states).
	OnEvent func(method string, params json.RawMessage) // optional
}

// DefaultBrowserSession is the browser session a hello names unless told
// otherwise: every connection of the fake extension comes from one browser.
const DefaultBrowserSession = "bridgetest-session"

// Extension is one paired connection.
type Extension struct {
	conn    *Sealed
	handler Handler
	onEvent func(method string, params json.RawMessage)
	cancel  context.CancelFunc
	done    chan struct{}
	err     error // set before done is closed

	mu      sync.Mutex
	nextID  int                               // guarded by mu
	pending map[string]chan *protocol.Message // guarded by mu: the extension's own requests
}

// Dial connects to the bridge at opts.URL and pairs. It fails if the bridge
// refuses the connection or if the app's proof is wrong; in the latter case
// it closes the socket with [StatusAppUnproven] first, as sw.js does.
func Dial(ctx context.Context, opts DialOptions) (*Extension, error) {
	if opts.Profile == "" {
		opts.Profile = "bridgetest"
	}
	if opts.BrowserSession == "" {
		opts.BrowserSession = DefaultBrowserSession
	}
	h := http.Header{}
	if opts.Origin != "" {
		h.Set("Origin", opts.Origin)
	}
	conn, resp, err := websocket.Dial(ctx, opts.URL, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("bridgetest: the bridge refused the connection with HTTP %d: %w", resp.StatusCode, err)
		}
		return nil, fmt.Errorf("bridgetest: %w", err)
	}
	// Snapshot results and their requests may be as large as the protocol allows.
	conn.SetReadLimit(protocol.MaxMessageBytes)
	port, err := portOf(opts.URL)
	if err != nil {
		conn.CloseNow()
		return nil, err
	}
	sealed, err := pair(ctx, conn, opts.Secret, opts.Profile, opts.BrowserSession, port)
	if err != nil {
		conn.Close(StatusAppUnproven, "the app did not prove itself")
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	e := &Extension{conn: sealed, handler: opts.Handler, onEvent: opts.OnEvent, cancel: cancel, done: make(chan struct{}), pending: map[string]chan *protocol.Message{}}
	go e.readLoop(rctx)
	return e, nil
}

func portOf(raw string) (int, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return 0, fmt.Errorf("bridgetest: %w", err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return 0, fmt.Errorf("bridgetest: the bridge's address %s names no port", raw)
	}
	return port, nil
}

var hexNonce = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Sealed is a paired connection whose Read and Write open and seal each
// message with the session's key, as sw.js does; Conn is the socket under
// it, for tests that write what no extension would.
type Sealed struct {
	Conn    *websocket.Conn
	Session *bridge.Session

	readMu, writeMu sync.Mutex
}

// Read returns the next message the app sent, checked and opened.
func (s *Sealed) Read(ctx context.Context) (websocket.MessageType, []byte, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	typ, frame, err := s.Conn.Read(ctx)
	if err != nil {
		return typ, nil, err
	}
	body, err := s.Session.Open(frame)
	if err != nil {
		s.Conn.Close(websocket.StatusPolicyViolation, "a message failed its check")
		return typ, nil, err
	}
	return typ, body, nil
}

// Write seals b as the next message and sends it.
func (s *Sealed) Write(ctx context.Context, typ websocket.MessageType, b []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.Conn.Write(ctx, typ, s.Session.Seal(b))
}

// Close closes the socket.
func (s *Sealed) Close(code websocket.StatusCode, reason string) error {
	return s.Conn.Close(code, reason)
}

// CloseNow closes the socket without a close handshake.
func (s *Sealed) CloseNow() error { return s.Conn.CloseNow() }

// Pair runs the extension's side of the handshake on an open connection to
// port, for tests that need to misbehave after pairing, and returns the
// sealed connection. It leaves c open whatever happens; on an error the
// caller closes it. The hello names DefaultBrowserSession.
func Pair(ctx context.Context, c *websocket.Conn, secret []byte, profile string, port int) (*Sealed, error) {
	return pair(ctx, c, secret, profile, DefaultBrowserSession, port)
}

func pair(ctx context.Context, c *websocket.Conn, secret []byte, profile, browserSession string, port int) (*Sealed, error) {
	nonce := make([]byte, 32)
	rand.Read(nonce)
	myNonce := hex.EncodeToString(nonce)
	helloID := "h" + myNonce[:8]

	var appNonce string
	for appNonce == "" { // one round: anything but a challenge ends the handshake
		m, err := readMessage(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("bridgetest: waiting for the challenge: %w", err)
		}
		if m == nil {
			return nil, errors.New("bridgetest: the app's first message was not JSON") // sw.js closes the socket on it
		}
		var ch protocol.Challenge
		if m.Method != protocol.MethodChallenge || m.ID != "" || json.Unmarshal(m.Params, &ch) != nil || !hexNonce.MatchString(ch.Nonce) {
			return nil, fmt.Errorf("bridgetest: the app's first message was not a challenge: %+v", m)
		}
		appNonce = ch.Nonce
	}

	tr := bridge.Transcript{Port: port, AppNonce: appNonce, ExtNonce: myNonce, Profile: profile}
	params, _ := json.Marshal(protocol.Hello{
		Version:        protocol.Version,
		Port:           port,
		Extension:      extensionVersion(),
		Browser:        "Reins bridgetest",
		Profile:        profile,
		BrowserSession: browserSession,
		Nonce:          myNonce,
		Proof:          bridge.ExtensionProof(secret, tr),
	})
	if err := writeMessage(ctx, c, &protocol.Message{ID: helloID, Method: protocol.MethodHello, Params: params}); err != nil {
		return nil, fmt.Errorf("bridgetest: sending hello: %w", err)
	}

	for {
		m, err := readMessage(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("bridgetest: waiting for the welcome: %w", err)
		}
		if m == nil {
			return nil, errors.New("bridgetest: the app answered hello with something that is not JSON")
		}
		if m.ID != helloID {
			return nil, fmt.Errorf("bridgetest: the app answered hello with %+v", m)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("bridgetest: the app refused the hello: %w", m.Error)
		}
		var w protocol.Welcome
		if m.Result == nil || json.Unmarshal(m.Result, &w) != nil {
			return nil, fmt.Errorf("bridgetest: the app's welcome is malformed: %s", m.Result)
		}
		want := bridge.AppProof(secret, tr)
		if !hmac.Equal([]byte(w.Proof), []byte(want)) {
			return nil, errors.New("bridgetest: the app's welcome proof is wrong: it does not know the pairing secret, or it listens on another port than the one dialled")
		}
		c.SetReadLimit(protocol.MaxMessageBytes + bridge.SealOverhead)
		return &Sealed{Conn: c, Session: bridge.NewSession(bridge.SessionKey(secret, tr), bridge.ExtensionToApp)}, nil
	}
}

func extensionVersion() string {
	b, err := fs.ReadFile(extension.Files(), "manifest.json")
	if err != nil {
		return "unknown"
	}
	var m struct {
		Version string `json:"version"`
	}
	json.Unmarshal(b, &m)
	return m.Version
}

// readMessage returns nil, nil for a text that is not JSON, which sw.js
// skips.
func readMessage(ctx context.Context, c interface {
	Read(context.Context) (websocket.MessageType, []byte, error)
}) (*protocol.Message, error) {
	_, data, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m protocol.Message
	if json.Unmarshal(data, &m) != nil {
		return nil, nil
	}
	return &m, nil
}

func writeMessage(ctx context.Context, c *websocket.Conn, m *protocol.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, b)
}

func (e *Extension) readLoop(ctx context.Context) {
	defer close(e.done)
	defer func() {
		e.mu.Lock()
		for id, ch := range e.pending {
			close(ch)
			delete(e.pending, id)
		}
		e.pending = nil
		e.mu.Unlock()
	}()
	for {
		m, err := readMessage(ctx, e.conn)
		if err != nil {
			e.err = err
			return
		}
		switch {
		case m == nil:
		case m.ID != "" && m.Method != "":
			// Like sw.js, answer each request in its own goroutine so a
			// slow answer does not hold up the socket, including the close
			// handshake.
			go e.answer(ctx, m)
		case m.ID != "":
			e.mu.Lock()
			ch := e.pending[m.ID]
			delete(e.pending, m.ID)
			e.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.Method != "" && e.onEvent != nil:
			e.onEvent(m.Method, m.Params)
		}
	}
}

// Call sends a request to the app, as the side panel's buttons do through
// sw.js, and decodes the result into out (which may be nil). The app's
// refusal comes back as a *protocol.Error.
func (e *Extension) Call(ctx context.Context, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan *protocol.Message, 1)
	e.mu.Lock()
	if e.pending == nil {
		e.mu.Unlock()
		return errors.New("bridgetest: the connection has ended")
	}
	e.nextID++
	id := fmt.Sprintf("x%d", e.nextID)
	e.pending[id] = ch
	e.mu.Unlock()
	b, err := json.Marshal(&protocol.Message{ID: id, Method: method, Params: raw})
	if err != nil {
		return err
	}
	if err := e.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errors.New("bridgetest: the connection ended before the app answered")
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		e.mu.Lock()
		delete(e.pending, id)
		e.mu.Unlock()
		return ctx.Err()
	}
}

func (e *Extension) answer(ctx context.Context, m *protocol.Message) {
	var result any
	var perr *protocol.Error
	switch {
	case m.Method == protocol.MethodKeepalive:
		result = struct{}{}
	case e.handler == nil:
		perr = &protocol.Error{Code: protocol.CodeUnknownMethod, Message: "unknown method " + m.Method}
	default:
		params := m.Params
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage("{}")
		}
		result, perr = e.handler(m.Method, params)
	}
	reply := &protocol.Message{ID: m.ID}
	if perr != nil {
		reply.Error = perr
	} else {
		raw, err := json.Marshal(result)
		switch {
		case err != nil:
			reply.Error = &protocol.Error{Code: protocol.CodeInternal, Message: err.Error()}
		case string(raw) == "null":
			reply.Result = json.RawMessage("{}")
		default:
			reply.Result = raw
		}
	}
	b, err := json.Marshal(reply)
	if err == nil && len(b) > protocol.MaxMessageBytes {
		b, err = json.Marshal(&protocol.Message{ID: m.ID, Error: &protocol.Error{Code: protocol.CodeTooLarge, Message: "the answer is over 16 MiB"}})
	}
	if err != nil {
		return
	}
	// A failed write means the socket is gone; the read loop reports that.
	e.conn.Write(ctx, websocket.MessageText, b)
}

// Emit pushes an event to the app. Unlike sw.js, which drops an event over
// the size limit silently, it reports it.
func (e *Extension) Emit(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	b, err := json.Marshal(&protocol.Message{Method: method, Params: raw})
	if err != nil {
		return err
	}
	if len(b) > protocol.MaxMessageBytes {
		return fmt.Errorf("bridgetest: event %s is %d bytes, over the %d byte limit", method, len(b), protocol.MaxMessageBytes)
	}
	return e.conn.Write(ctx, websocket.MessageText, b)
}

// Done is closed when the connection has ended, for whatever reason.
func (e *Extension) Done() <-chan struct{} { return e.done }

// Err reports why the connection ended once Done is closed; nil before. When
// the app closed it, websocket.CloseStatus(Err()) is the app's status.
func (e *Extension) Err() error {
	select {
	case <-e.done:
		return e.err
	default:
		return nil
	}
}

// Close closes the socket the way a stopping service worker does and waits
// for the read loop to end. Handlers still running are not waited for.
func (e *Extension) Close() error {
	err := e.conn.Close(websocket.StatusNormalClosure, "")
	e.cancel()
	<-e.done
	if errors.Is(err, net.ErrClosed) {
		return nil // the app closed it first
	}
	return err
}
