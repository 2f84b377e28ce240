// Package bridge is the WebSocket server on 127.0.0.1 that only the Reins
// extension may use. A connection must come from the pinned extension origin
// and prove it knows the per-install secret; the server proves the same
// before the extension sends anything about tabs. After that either side may
// send requests, and the extension pushes events.
package bridge

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge/protocol"
)

// Errors callers test for with errors.Is.
var (
	ErrNotConnected = errors.New("the Reins Chrome extension is not connected; open Chrome with the extension loaded")
	ErrDisconnected = errors.New("the Chrome extension disconnected before answering; try again")
	ErrTimeout      = errors.New("the Chrome extension did not answer in time")
)

// Options configures [New].
type Options struct {
	Addr           string        // optional: default "127.0.0.1:0"
	Origin         string        // required: the only Origin accepted, "chrome-extension://<id>"
	Secret         []byte        // required: the per-install pairing secret
	RequestTimeout time.Duration // optional: default 10 s
	Keepalive      time.Duration // optional: default 15 s
	HelloTimeout   time.Duration // optional: default 10 s
	Logf           func(format string, args ...any)
}

// Event is something the extension pushed, or a change of connection.
type Event struct {
	Profile string
	Method  string // a protocol event, or EventConnected / EventDisconnected
	Params  json.RawMessage
}

// Connection events.
const (
	EventConnected    = "bridge.connected"
	EventDisconnected = "bridge.disconnected"
)

// PeerInfo describes a connected browser profile.
type PeerInfo struct {
	Profile   string    `json:"profile"`
	Browser   string    `json:"browser"`
	Extension string    `json:"extension"`
	Since     time.Time `json:"since"`
}

// Server is the bridge.
type Server struct {
	opts   Options
	ln     net.Listener
	http   *http.Server
	events chan Event
	nextID atomic.Uint64

	handler atomic.Pointer[Handler] // extension → app requests; see Handle

	mu    sync.Mutex
	peers map[string]*peer // guarded by mu; by profile
	order []string         // guarded by mu; profiles, most recent last
	done  bool             // guarded by mu
}

type peer struct {
	info    PeerInfo
	conn    *websocket.Conn
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan *protocol.Message // guarded by mu
	closed  bool                              // guarded by mu
}

// New makes a server; Start listens.
func New(opts Options) (*Server, error) {
	if opts.Origin == "" || len(opts.Secret) < 16 {
		return nil, errors.New("bridge: Origin and a secret of at least 16 bytes are required")
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.Keepalive <= 0 {
		opts.Keepalive = 15 * time.Second
	}
	if opts.HelloTimeout <= 0 {
		opts.HelloTimeout = 10 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	return &Server{opts: opts, events: make(chan Event, 1024), peers: map[string]*peer{}}, nil
}

// Start listens on the loopback address and serves in the background.
func (s *Server) Start() error {
	host, _, err := net.SplitHostPort(s.opts.Addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("bridge: refusing to listen on %s: only loopback addresses are allowed", s.opts.Addr)
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("bridge: %w (is another Reins running?)", err)
	}
	s.ln = ln
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go s.http.Serve(ln)
	return nil
}

// Port is the port the server listens on.
func (s *Server) Port() int {
	if s.ln == nil {
		return 0
	}
	return s.ln.Addr().(*net.TCPAddr).Port
}

// Events delivers pushed events in order. A reader that falls behind loses
// the oldest events rather than stall the connection, so the newest state
// (a disconnection above all) always arrives.
func (s *Server) Events() <-chan Event { return s.events }

func (s *Server) emit(ev Event) {
	for {
		select {
		case s.events <- ev:
			return
		default:
		}
		select {
		case old := <-s.events:
			s.opts.Logf("bridge: event queue full, dropped the oldest (%s)", old.Method)
		default:
		}
	}
}

// Peers lists connected browser profiles, most recent last.
func (s *Server) Peers() []PeerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]PeerInfo, 0, len(s.order))
	for _, p := range s.order {
		out = append(out, s.peers[p].info)
	}
	return out
}

// Close stops the server, closing every connection; pending requests fail.
func (s *Server) Close() error {
	s.mu.Lock()
	s.done = true
	peers := make([]*peer, 0, len(s.peers))
	for _, p := range s.peers {
		peers = append(peers, p)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range peers {
		p.fail()
		wg.Go(func() { p.conn.Close(websocket.StatusGoingAway, "Reins is stopping") })
	}
	wg.Wait()
	if s.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return s.http.Shutdown(ctx)
	}
	return nil
}

// ServeHTTP accepts the extension's WebSocket.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The library accepts a request with no Origin; a browser page always
	// sends one and only our extension's is allowed, so demand it exactly.
	if r.Header.Get("Origin") != s.opts.Origin {
		http.Error(w, "only the Reins extension may connect", http.StatusForbidden)
		return
	}
	if r.URL.Path != "/bridge" {
		http.NotFound(w, r)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	// The read loop can end on its own (an oversized message); the socket
	// must not outlive it.
	defer conn.CloseNow()
	conn.SetReadLimit(protocol.MaxMessageBytes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := s.handshake(ctx, conn)
	if err != nil {
		s.opts.Logf("bridge: refused a connection: %v", err)
		conn.Close(websocket.StatusPolicyViolation, "pairing failed")
		return
	}
	if !s.register(p) {
		conn.Close(websocket.StatusGoingAway, "Reins is stopping")
		return
	}
	go s.keepalive(ctx, p)
	s.readLoop(ctx, p)
	s.unregister(p)
}

func (s *Server) handshake(ctx context.Context, conn *websocket.Conn) (*peer, error) {
	hctx, cancel := context.WithTimeout(ctx, s.opts.HelloTimeout)
	defer cancel()
	appNonce := newNonce()
	ch, _ := json.Marshal(protocol.Challenge{Nonce: appNonce})
	if err := writeJSON(hctx, conn, &protocol.Message{Method: protocol.MethodChallenge, Params: ch}); err != nil {
		return nil, err
	}
	_, data, err := conn.Read(hctx)
	if err != nil {
		return nil, fmt.Errorf("no hello: %w", err)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		return nil, err
	}
	if m.Kind() != protocol.KindRequest || m.Method != protocol.MethodHello {
		return nil, fmt.Errorf("first message was %q, not hello", m.Method)
	}
	var h protocol.Hello
	if err := json.Unmarshal(m.Params, &h); err != nil {
		return nil, fmt.Errorf("bad hello: %w", err)
	}
	refuse := func(why string) error {
		writeJSON(hctx, conn, &protocol.Message{ID: m.ID, Error: &protocol.Error{Code: protocol.CodeUnauthorized, Message: why}})
		return errors.New(why)
	}
	if h.Version != protocol.Version {
		return nil, refuse(fmt.Sprintf("protocol version %d is not %d; update the Reins extension", h.Version, protocol.Version))
	}
	if _, err := hex.DecodeString(h.Nonce); err != nil || len(h.Nonce) != 64 || h.Profile == "" || len(h.Profile) > 128 {
		return nil, refuse("hello lacks a nonce or profile")
	}
	if !checkProof(h.Proof, ExtensionProof(s.opts.Secret, appNonce, h.Nonce)) {
		return nil, refuse("wrong pairing proof")
	}
	w, _ := json.Marshal(protocol.Welcome{Version: protocol.Version, Proof: AppProof(s.opts.Secret, h.Nonce, appNonce)})
	if err := writeJSON(hctx, conn, &protocol.Message{ID: m.ID, Result: w}); err != nil {
		return nil, err
	}
	return &peer{
		info:    PeerInfo{Profile: h.Profile, Browser: h.Browser, Extension: h.Extension, Since: time.Now()},
		conn:    conn,
		pending: map[string]chan *protocol.Message{},
	}, nil
}

// register makes p the profile's connection, replacing an older one (a
// restarted service worker). It reports false once the server is closed.
func (s *Server) register(p *peer) bool {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return false
	}
	old := s.peers[p.info.Profile]
	s.peers[p.info.Profile] = p
	s.order = append(remove(s.order, p.info.Profile), p.info.Profile)
	s.mu.Unlock()
	if old != nil {
		// The old socket may be dead: its close handshake must not hold up the new one.
		old.fail()
		go old.conn.Close(websocket.StatusNormalClosure, "replaced by a newer connection")
	}
	s.emit(Event{Profile: p.info.Profile, Method: EventConnected})
	return true
}

func (s *Server) unregister(p *peer) {
	p.fail()
	s.mu.Lock()
	current := s.peers[p.info.Profile] == p
	if current {
		delete(s.peers, p.info.Profile)
		s.order = remove(s.order, p.info.Profile)
	}
	s.mu.Unlock()
	if current {
		s.emit(Event{Profile: p.info.Profile, Method: EventDisconnected})
	}
}

func remove(list []string, v string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func (s *Server) readLoop(ctx context.Context, p *peer) {
	for {
		_, data, err := p.conn.Read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				s.opts.Logf("bridge: %s sent a message over %d bytes; connection closed", p.info.Profile, protocol.MaxMessageBytes)
			}
			return
		}
		m, err := protocol.Decode(data)
		if err != nil {
			s.opts.Logf("bridge: dropped a message from %s: %v", p.info.Profile, err)
			continue
		}
		switch m.Kind() {
		case protocol.KindResponse:
			p.mu.Lock()
			ch := p.pending[m.ID]
			delete(p.pending, m.ID)
			p.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case protocol.KindEvent:
			s.emit(Event{Profile: p.info.Profile, Method: m.Method, Params: m.Params})
		case protocol.KindRequest:
			// In its own goroutine: the handler may write the audit log,
			// and responses to the app's own calls must not wait for it.
			go s.serve(ctx, p, m)
		}
	}
}

// Handler answers a request the extension sent. Only methods for which
// protocol.ExtensionMayAsk reports true reach it; params is never nil. An
// error that is a *protocol.Error is sent as it is, any other as
// CodeInternal.
type Handler func(ctx context.Context, profile, method string, params json.RawMessage) (any, error)

// Handle sets the handler of the extension's requests, replacing any before.
// Until it is called, every request is answered with CodeUnknownMethod.
func (s *Server) Handle(h Handler) { s.handler.Store(&h) }

func (s *Server) serve(ctx context.Context, p *peer, m *protocol.Message) {
	reply := &protocol.Message{ID: m.ID}
	h := s.handler.Load()
	switch {
	case !protocol.ExtensionMayAsk(m.Method):
		// Nothing the extension sends may give power: only the person's
		// door shares, resumes or answers.
		reply.Error = &protocol.Error{Code: protocol.CodeUnknownMethod, Message: fmt.Sprintf(
			"the extension may ask Reins only to %s or %s; %q is not one of them", protocol.MethodStopSharing, protocol.MethodPauseAll, m.Method)}
	case h == nil || *h == nil:
		reply.Error = &protocol.Error{Code: protocol.CodeUnknownMethod, Message: "this Reins serves no " + m.Method + " yet; try again once it has started"}
	default:
		params := m.Params
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage("{}")
		}
		result, err := (*h)(ctx, p.info.Profile, m.Method, params)
		var perr *protocol.Error
		switch {
		case errors.As(err, &perr):
			reply.Error = perr
		case err != nil:
			reply.Error = &protocol.Error{Code: protocol.CodeInternal, Message: err.Error()}
		default:
			raw, err := json.Marshal(result)
			if err != nil || string(raw) == "null" {
				raw = json.RawMessage("{}")
			}
			reply.Result = raw
		}
	}
	wctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	p.write(wctx, reply)
}

// Notify pushes an event to profile's extension (the most recently
// connected one when profile is ""). It fails with ErrNotConnected when that
// profile has no connection, or ErrDisconnected when the write fails.
func (s *Server) Notify(ctx context.Context, profile, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if profile == "" && len(s.order) > 0 {
		profile = s.order[len(s.order)-1]
	}
	p := s.peers[profile]
	s.mu.Unlock()
	if p == nil {
		return ErrNotConnected
	}
	// As in call: a write cut short by its context closes the connection,
	// so the caller's context only decides whether to start.
	if err := ctx.Err(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	if err := p.write(wctx, &protocol.Message{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%w: %v", ErrDisconnected, err)
	}
	return nil
}

func (s *Server) keepalive(ctx context.Context, p *peer) {
	t := time.NewTicker(s.opts.Keepalive)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.call(ctx, p, protocol.MethodKeepalive, struct{}{}, nil); err != nil {
				s.opts.Logf("bridge: %s missed a keepalive (%v); closing", p.info.Profile, err)
				p.conn.Close(websocket.StatusGoingAway, "keepalive missed")
				return
			}
		}
	}
}

// fail ends every pending request at once.
func (p *peer) fail() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for id, ch := range p.pending {
		close(ch)
		delete(p.pending, id)
	}
}

func (p *peer) write(ctx context.Context, m *protocol.Message) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return writeJSON(ctx, p.conn, m)
}

func writeJSON(ctx context.Context, c *websocket.Conn, m *protocol.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, b)
}

// RemoteError is a failure the extension reported.
type RemoteError = protocol.Error

// Call sends a request to profile's extension (the most recently connected
// one when profile is "") and decodes the result into out (which may be nil).
// It fails with ErrNotConnected, ErrTimeout, ErrDisconnected or a
// *RemoteError.
func (s *Server) Call(ctx context.Context, profile, method string, params, out any) error {
	s.mu.Lock()
	if profile == "" && len(s.order) > 0 {
		profile = s.order[len(s.order)-1]
	}
	p := s.peers[profile]
	s.mu.Unlock()
	if p == nil {
		return ErrNotConnected
	}
	return s.call(ctx, p, method, params, out)
}

func (s *Server) call(ctx context.Context, p *peer, method string, params, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	id := "a" + strconv.FormatUint(s.nextID.Add(1), 10)
	ch := make(chan *protocol.Message, 1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrDisconnected
	}
	p.pending[id] = ch
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}
	if err := ctx.Err(); err != nil {
		forget()
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	// The library closes the connection when a write's context ends mid-write;
	// one caller giving up must not cost every other caller the extension.
	wctx, wcancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	err = p.write(wctx, &protocol.Message{ID: id, Method: method, Params: raw})
	wcancel()
	if err != nil {
		forget()
		return fmt.Errorf("%w: %v", ErrDisconnected, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return ErrDisconnected
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				return fmt.Errorf("the extension's answer to %s was malformed: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		forget()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w (%s)", ErrTimeout, method)
		}
		return ctx.Err()
	}
}
