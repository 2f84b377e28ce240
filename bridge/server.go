// Package bridge is the WebSocket server on 127.0.0.1 that only the Reins
// extension may use. A connection must come from the pinned extension origin
// and prove it knows the per-install secret over the port it dialled; the
// server proves the same before the extension sends anything about tabs, so
// a program that squats on a port, or relays from one, learns nothing. After
// that every message is sealed with a key the handshake derived (see
// [Session]), either side may send requests, and the extension pushes
// events.
//
// Before a connection has paired it is held to little: a handshake
// deadline, messages of at most [protocol.MaxHandshakeBytes], and only a few
// such connections at once.
package bridge

import (
	"context"
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
	HelloTimeout   time.Duration // optional: default 5 s; the whole handshake, from the TCP connection on
	// MaxUnpaired is how many connections may be open at once that have
	// not paired yet (optional: default DefaultMaxUnpaired). More are
	// closed as they come.
	MaxUnpaired int
	Logf        func(format string, args ...any)
}

// DefaultMaxUnpaired is how many connections that have not paired yet the
// bridge holds at once unless told otherwise: a Chrome profile opens one,
// and a few profiles may start together.
const DefaultMaxUnpaired = 8

// Event is something the extension pushed, or a change of connection.
type Event struct {
	Profile string
	Method  string // a protocol event, or EventConnected / EventDisconnected
	Params  json.RawMessage
	// BrowserSession is, on EventConnected, the browser session the
	// extension named in its hello (protocol.Hello.BrowserSession): a
	// profile that connects under another one than before belongs to a
	// browser that restarted. Empty on other events.
	BrowserSession string
}

// Connection events.
const (
	EventConnected    = "bridge.connected"
	EventDisconnected = "bridge.disconnected"
)

// PeerInfo describes a connected browser profile.
type PeerInfo struct {
	Profile        string    `json:"profile"`
	BrowserSession string    `json:"browserSession"` // see protocol.Hello.BrowserSession
	Browser        string    `json:"browser"`
	Extension      string    `json:"extension"`
	Since          time.Time `json:"since"`
}

// Server is the bridge.
type Server struct {
	opts   Options
	ln     net.Listener
	http   *http.Server
	events chan Event
	nextID atomic.Uint64

	handler atomic.Pointer[Handler]                              // extension → app requests; see Handle
	shares  atomic.Pointer[func(string, string) protocol.Shares] // see ShareTable

	mu    sync.Mutex
	peers map[string]*peer // guarded by mu; by profile
	order []string         // guarded by mu; profiles, most recent last
	done  bool             // guarded by mu
	// relays is when a relay on each port was last reported; guarded by mu.
	relays map[int]time.Time
}

type peer struct {
	info    PeerInfo
	conn    *websocket.Conn
	sess    *Session   // Seal under writeMu; Open on the read loop only
	writeMu sync.Mutex // guards the socket's writes and sess.Seal, so numbers go out in order

	sharesMu   sync.Mutex
	sharesSent string // guarded by sharesMu: the last table sent, encoded without Seq
	sharesSeq  uint64 // guarded by sharesMu

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
		opts.HelloTimeout = 5 * time.Second
	}
	if opts.MaxUnpaired <= 0 {
		opts.MaxUnpaired = DefaultMaxUnpaired
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
	gated := &gatedListener{Listener: ln, slots: make(chan struct{}, s.opts.MaxUnpaired), logf: s.opts.Logf}
	s.http = &http.Server{
		Handler: s,
		// A stranger's upgrade request is small and prompt, or it is closed.
		ReadHeaderTimeout: s.opts.HelloTimeout,
		IdleTimeout:       s.opts.HelloTimeout,
		MaxHeaderBytes:    8 << 10,
		// One request a connection: a stranger whose upgrade fails cannot
		// keep its place among the unpaired by asking again.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	s.http.SetKeepAlivesEnabled(false)
	go s.http.Serve(gated)
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
		w.Header().Set("Connection", "close")
		http.Error(w, "only the Reins extension may connect", http.StatusForbidden)
		return
	}
	if r.URL.Path != "/bridge" {
		w.Header().Set("Connection", "close")
		http.NotFound(w, r)
		return
	}
	// The deadline counts from the TCP connection: its wait for the
	// upgrade request's headers is part of it.
	deadline := time.Now().Add(s.opts.HelloTimeout)
	gc, _ := r.Context().Value(connKey{}).(*gatedConn)
	if gc != nil {
		deadline = gc.accepted.Add(s.opts.HelloTimeout)
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	if gc != nil {
		// The socket itself ends at the deadline, whatever is being read
		// or written then: a close that waits for a stranger's answer too.
		gc.Conn.SetDeadline(deadline)
	}
	// The read loop can end on its own (an oversized message); the socket
	// must not outlive it.
	defer conn.CloseNow()
	// Nobody is known yet: a hello is small.
	conn.SetReadLimit(protocol.MaxHandshakeBytes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := s.handshake(ctx, conn, deadline)
	if err != nil {
		s.opts.Logf("bridge: refused a connection: %v", err)
		if errors.Is(err, websocket.ErrMessageTooBig) {
			// The library has sent its close frame; waiting for the
			// answer would read the rest of an oversized message.
			conn.CloseNow()
			return
		}
		conn.Close(websocket.StatusPolicyViolation, "pairing failed")
		return
	}
	if gc != nil {
		gc.paired() // it no longer counts against the strangers' allowance
		gc.Conn.SetDeadline(time.Time{})
	}
	conn.SetReadLimit(protocol.MaxMessageBytes + SealOverhead)
	// The extension counts every tab as not shared until it has a table:
	// it gets one before anything else.
	if err := s.pushShares(ctx, p); err != nil {
		s.opts.Logf("bridge: could not send %s its share table: %v", p.info.Profile, err)
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

func (s *Server) handshake(ctx context.Context, conn *websocket.Conn, deadline time.Time) (*peer, error) {
	hctx, cancel := context.WithDeadline(ctx, deadline)
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
	// The proof covers the port the extension dialled; Reins checks it
	// against the port it listens on, whatever the hello says.
	port := s.Port()
	id, h, tr, err := CheckHello(s.opts.Secret, port, appNonce, data)
	if r, ok := errors.AsType[*Refusal](err); ok {
		if r.Relayed != 0 && s.firstRelayIn(r.Relayed, time.Minute) {
			s.opts.Logf("%s", RelayWarning(r.Relayed, port))
		}
		writeJSON(hctx, conn, &protocol.Message{ID: id, Error: &protocol.Error{Code: protocol.CodeUnauthorized, Message: r.Why}})
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	w, _ := json.Marshal(protocol.Welcome{Version: protocol.Version, Proof: AppProof(s.opts.Secret, tr)})
	if err := writeJSON(hctx, conn, &protocol.Message{ID: id, Result: w}); err != nil {
		return nil, err
	}
	return &peer{
		info:    PeerInfo{Profile: h.Profile, BrowserSession: h.BrowserSession, Browser: h.Browser, Extension: h.Extension, Since: time.Now()},
		conn:    conn,
		sess:    NewSession(SessionKey(s.opts.Secret, tr), AppToExtension),
		pending: map[string]chan *protocol.Message{},
	}, nil
}

// firstRelayIn reports whether no relay on port was reported within the
// last d: the extension tries again every few seconds, and the person needs
// to read it once, not every time.
func (s *Server) firstRelayIn(port int, d time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.relays == nil {
		s.relays = map[int]time.Time{}
	}
	if last, ok := s.relays[port]; ok && time.Since(last) < d {
		return false
	}
	s.relays[port] = time.Now()
	return true
}

// RelayWarning is what Reins tells the person when a pairing failed in the
// one way only a relay explains: the extension's valid proof, made for a
// port where Reins does not listen, arrived at the port where it does.
func RelayWarning(dialled, listening int) string {
	return fmt.Sprintf("Reins refused a relayed connection: Chrome's Reins extension dialled port %d, where Reins does not listen, "+
		"and a program on that port passed its hello on to Reins on port %d. The program got nothing from Reins or from the extension. "+
		"Find it (on Linux: ss -ltnp 'sport = :%d'; on macOS: lsof -i :%d) and stop it; the extension will find Reins again by itself.",
		dialled, listening, dialled, dialled)
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
	s.emit(Event{Profile: p.info.Profile, Method: EventConnected, BrowserSession: p.info.BrowserSession})
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
		_, frame, err := p.conn.Read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				s.opts.Logf("bridge: %s sent a message over %d bytes; connection closed", p.info.Profile, protocol.MaxMessageBytes)
			}
			return
		}
		data, err := p.sess.Open(frame)
		if err != nil {
			// Not the extension's doing: the extension seals every message
			// in order. Whatever is in the path must not get another try.
			s.opts.Logf("bridge: closed the connection of %s: %v. Something between Chrome and Reins changed the traffic; the extension reconnects by itself.", p.info.Profile, err)
			p.conn.Close(websocket.StatusPolicyViolation, "a message failed its check")
			return
		}
		if len(data) > protocol.MaxMessageBytes {
			// The read limit leaves room for the seal's header line; the
			// message inside is held to the protocol's limit all the same.
			s.opts.Logf("bridge: %s sent a message over %d bytes; connection closed", p.info.Profile, protocol.MaxMessageBytes)
			p.conn.Close(websocket.StatusMessageTooBig, "message too big")
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
	s.post(p, reply)
}

// Notify pushes an event to profile's extension (the most recently
// connected one when profile is ""). It fails with ErrNotConnected when that
// profile has no connection, or ErrDisconnected when the write fails.
func (s *Server) Notify(ctx context.Context, profile, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return s.send(ctx, s.peerOf(profile, true), func(p *peer) error {
		return s.post(p, &protocol.Message{Method: method, Params: raw})
	})
}

// peerOf is profile's connection, or nil when it has none; with latest,
// "" names the most recently connected one.
func (s *Server) peerOf(profile string, latest bool) *peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if latest && profile == "" && len(s.order) > 0 {
		profile = s.order[len(s.order)-1]
	}
	return s.peers[profile]
}

// send is the one way an event the app starts reaches an extension:
// ErrNotConnected without a connection, the caller's context deciding only
// whether to start (as in call), and a failed write as ErrDisconnected.
func (s *Server) send(ctx context.Context, p *peer, write func(*peer) error) error {
	if p == nil {
		return ErrNotConnected
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := write(p); err != nil {
		return fmt.Errorf("%w: %v", ErrDisconnected, err)
	}
	return nil
}

// post writes m to p within the request timeout, whatever the caller's
// context: the library closes the connection when a write's context ends
// mid-write, and one caller giving up must not cost every other caller the
// extension.
func (s *Server) post(p *peer, m *protocol.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.RequestTimeout)
	defer cancel()
	return p.write(ctx, m)
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

// write seals m and sends it.
func (p *peer) write(ctx context.Context, m *protocol.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.conn.Write(ctx, websocket.MessageText, p.sess.Seal(b))
}

// ShareTable sets where the bridge reads a browser profile's share table
// (Seq is the bridge's to set). The bridge sends the table to every
// extension that pairs before anything else, and again, when it changed,
// before every request that reads or acts on a tab ([protocol.NeedsShare]):
// the extension refuses those for a tab its latest table does not share.
// f is given the profile and the browser session (protocol.Hello's) of the
// connection, is called without the bridge's locks held and must not call
// the bridge.
func (s *Server) ShareTable(f func(profile, session string) protocol.Shares) { s.shares.Store(&f) }

// SessionOf is the browser session (protocol.Hello's) of profile's
// connection now, and whether it has one.
func (s *Server) SessionOf(profile string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peers[profile]
	if p == nil {
		return "", false
	}
	return p.info.BrowserSession, true
}

// PushShares sends profile's extension its share table when it differs
// from the last one that connection got. It fails with ErrNotConnected
// when the profile has no connection.
func (s *Server) PushShares(ctx context.Context, profile string) error {
	return s.send(ctx, s.peerOf(profile, false), func(p *peer) error { return s.pushShares(ctx, p) })
}

func (s *Server) pushShares(ctx context.Context, p *peer) error {
	f := s.shares.Load()
	if f == nil || *f == nil {
		return nil
	}
	p.sharesMu.Lock()
	defer p.sharesMu.Unlock()
	t := (*f)(p.info.Profile, p.info.BrowserSession)
	if t.Tabs == nil {
		t.Tabs = []protocol.TabShare{}
	}
	t.Seq = 0
	key, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if string(key) == p.sharesSent {
		return nil
	}
	t.Seq = p.sharesSeq + 1
	raw, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if err := s.post(p, &protocol.Message{Method: protocol.EventShares, Params: raw}); err != nil {
		return err
	}
	p.sharesSeq, p.sharesSent = t.Seq, string(key)
	return nil
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
	p := s.peerOf(profile, true)
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
	if protocol.NeedsShare(method) != "" {
		// The extension answers only for tabs its latest table shares:
		// a share the person just gave must reach it first.
		if err := s.pushShares(ctx, p); err != nil {
			forget()
			return fmt.Errorf("%w: %v", ErrDisconnected, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	if err := s.post(p, &protocol.Message{ID: id, Method: method, Params: raw}); err != nil {
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

// connKey finds a request's connection in its context.
type connKey struct{}

// gatedListener admits at most cap(slots) connections that have not paired
// yet and closes the rest as they come, so strangers cannot make Reins hold
// more than a few small buffers. A connection gives its slot back when it
// pairs or closes.
type gatedListener struct {
	net.Listener
	slots   chan struct{}
	logf    func(format string, args ...any)
	refused atomic.Uint64
}

func (l *gatedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &gatedConn{Conn: c, slots: l.slots, accepted: time.Now()}, nil
		default:
			c.Close()
			if n := l.refused.Add(1); n == 1 || n%1000 == 0 {
				l.logf("bridge: closed a connection at once: %d others have not paired yet (%d closed so far). "+
					"If Chrome's extension cannot connect, a program on this computer is flooding Reins' port.", cap(l.slots), n)
			}
		}
	}
}

type gatedConn struct {
	net.Conn
	slots    chan struct{}
	accepted time.Time
	once     sync.Once
}

func (c *gatedConn) paired() { c.once.Do(func() { <-c.slots }) }

func (c *gatedConn) Close() error {
	c.paired()
	return c.Conn.Close()
}
