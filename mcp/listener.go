package mcp

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/internal/atomicfile"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/vocab"
)

// Files of the agents' listeners in Reins' data folder, all owner-only.
const (
	SocketFile = "mcp.sock"      // the local socket `reins mcp` pipes into
	TokenFile  = "mcp-token"     // the bearer token of the HTTP listener
	HTTPFile   = "mcp-http.json" // where the HTTP listener is: HTTPAddress
)

// HTTPAddress is what HTTPFile holds.
type HTTPAddress struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
}

// Options configures [Start].
type Options struct {
	Agents  agentdoor.Door // required: the agents' door of a running Reins
	DataDir string         // required: Reins' data folder (owner-only)
	// HTTPPort is the HTTP listener's port on 127.0.0.1: 0 picks a free one, a
	// negative value leaves the HTTP listener closed.
	HTTPPort int
	Settle   time.Duration // optional: see ServerOptions
	Logf     func(format string, args ...any)
	// SelfTest runs the self-test `reins selftest` asks for on the socket;
	// nil refuses it.
	SelfTest SelfTestFunc // optional
}

// Listener is where agents connect: the local socket and the HTTP listener.
type Listener struct {
	opts   Options
	sock   *net.UnixListener
	http   *http.Server
	port   int
	token  []byte
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{} // guarded by mu: open socket connections
}

// Start opens the agents' listeners: the socket in the data folder, and the HTTP
// listener on 127.0.0.1 unless opts.HTTPPort is negative. Close stops both.
func Start(ctx context.Context, opts Options) (*Listener, error) {
	if opts.Agents == nil || opts.DataDir == "" {
		return nil, errors.New("mcp.Start needs the engine and the data folder")
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(opts.DataDir, SocketFile)
	// Start runs after core.Start has made sure no other Reins serves this
	// folder, so a socket file left here belongs to a Reins that died.
	os.Remove(path)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("opening the agents' socket %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	d := &Listener{opts: opts, sock: l, conns: map[net.Conn]struct{}{}}
	d.ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if opts.HTTPPort >= 0 {
		if err := d.startHTTP(); err != nil {
			l.Close()
			return nil, err
		}
	}
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

// Port is the HTTP listener's port; 0 when it is closed.
func (d *Listener) Port() int { return d.port }

// Token is the HTTP listener's bearer token.
func (d *Listener) Token() string { return string(d.token) }

// Close stops both listeners and ends every agent's connection.
func (d *Listener) Close() error {
	d.cancel()
	err := d.sock.Close()
	if d.http != nil {
		d.http.Close()
		os.Remove(filepath.Join(d.opts.DataDir, HTTPFile))
	}
	d.mu.Lock()
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
	return err
}

func (d *Listener) accept() {
	defer d.wg.Done()
	for {
		c, err := d.sock.AcceptUnix()
		if err != nil {
			if d.ctx.Err() == nil {
				d.opts.Logf("mcp: the agents' socket stopped: %v", err)
			}
			return
		}
		d.mu.Lock()
		d.conns[c] = struct{}{}
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.serveConn(c)
			d.mu.Lock()
			delete(d.conns, c)
			d.mu.Unlock()
			c.Close()
		}()
	}
}

// hello is the first line `reins mcp` sends: what it says about the program
// that started it. The listener checks it against the OS and trusts the OS.
type hello struct {
	Reins string `json:"reins"` // "mcp/1"
	PPID  int    `json:"ppid"`
	Exe   string `json:"exe"`
	Hand  bool   `json:"hand,omitempty"` // selftest/1: the person will move the mouse when asked
}

// welcome is the listener's one-line answer: OK, or why not.
type welcome struct {
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

const helloVersion = "mcp/1"

func (d *Listener) serveConn(c *net.UnixConn) {
	cred, err := peercred.Of(c)
	if err != nil || cred.UID != os.Geteuid() {
		why := "the agents' socket serves only the user who runs Reins"
		if err != nil {
			why = "the agents' socket could not tell who connected: " + err.Error()
		}
		d.opts.Agents.RefuseConnection(vocab.Agent{Name: "process of user " + strconv.Itoa(cred.UID), PID: cred.PID}, why)
		writeLine(c, welcome{Error: why})
		return
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReaderSize(c, 4096)
	line, err := br.ReadSlice('\n')
	var h hello
	if err != nil || json.Unmarshal(line, &h) != nil || (h.Reins != helloVersion && h.Reins != selfTestHello) {
		writeLine(c, welcome{Error: "this socket speaks only to `reins mcp` of the same version; run the reins binary that is running"})
		return
	}
	c.SetReadDeadline(time.Time{})
	proc := processOfPipe(cred.PID)
	if h.PPID != 0 && h.PPID != proc.PID {
		d.opts.Logf("mcp: reins mcp (pid %d) says it was started by pid %d; the OS says %d, which is what Reins shows", cred.PID, h.PPID, proc.PID)
	}
	if h.Reins == selfTestHello {
		d.serveSelfTest(c, proc, h)
		return
	}
	if err := writeLine(c, welcome{OK: true}); err != nil {
		return
	}
	srv := NewServer(ServerOptions{Agents: d.opts.Agents, Process: proc, Settle: d.opts.Settle, Logf: d.opts.Logf})
	ss, err := srv.Connect(d.ctx, &sdk.IOTransport{Reader: readCloser{br, c}, Writer: c}, nil)
	if err != nil {
		d.opts.Logf("mcp: %v", err)
		return
	}
	ss.Wait()
}

// processOfPipe is the agent behind a `reins mcp` process: the program that
// started it, found from the OS. When that cannot be found, the pipe itself
// is named, which is still the truth about who connected.
func processOfPipe(pid int) Process {
	if pid == 0 {
		return Process{}
	}
	ppid, err := peercred.Parent(pid)
	if err != nil || ppid <= 1 {
		exe, _ := peercred.Exe(pid)
		return Process{PID: pid, Exe: exe}
	}
	exe, _ := peercred.Exe(ppid)
	return Process{PID: ppid, Exe: exe}
}

type readCloser struct {
	io.Reader
	io.Closer
}

func writeLine(w io.Writer, v any) error {
	b, _ := json.Marshal(v)
	_, err := w.Write(append(b, '\n'))
	return err
}

// peerHeader carries the HTTP client's address from the guard to the tools.
// The guard overwrites whatever a client puts there.
const peerHeader = "X-Reins-Peer"

func (d *Listener) startHTTP() error {
	tok, err := loadOrCreateToken(d.opts.DataDir)
	if err != nil {
		return err
	}
	d.token = tok
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(max(d.opts.HTTPPort, 0)))
	if err != nil {
		return fmt.Errorf("opening the agents' HTTP door: %w", err)
	}
	d.port = l.Addr().(*net.TCPAddr).Port
	srv := NewServer(ServerOptions{Agents: d.opts.Agents, Settle: d.opts.Settle, Logf: d.opts.Logf, processOf: processOfHTTP})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		SessionTimeout: 30 * time.Minute,
	})
	d.http = &http.Server{Handler: d.guard(h), ReadHeaderTimeout: 10 * time.Second}
	addr := HTTPAddress{URL: "http://127.0.0.1:" + strconv.Itoa(d.port) + "/mcp", PID: os.Getpid()}
	b, _ := json.Marshal(addr)
	if err := atomicfile.Write(filepath.Join(d.opts.DataDir, HTTPFile), b, 0o600); err != nil {
		l.Close()
		return err
	}
	go d.http.Serve(l)
	return nil
}

// guard lets through only requests a local agent makes: addressed to
// 127.0.0.1 or localhost on our port (a DNS-rebound name is refused), not
// sent by a web page (no Origin, no fetch metadata), and carrying the token.
func (d *Listener) guard(next http.Handler) http.Handler {
	hosts := map[string]bool{
		"127.0.0.1:" + strconv.Itoa(d.port): true,
		"localhost:" + strconv.Itoa(d.port): true,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "Reins answers only requests addressed to 127.0.0.1 or localhost on its port", http.StatusForbidden)
			return
		}
		if r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Sec-Fetch-Mode") != "" {
			http.Error(w, "Reins does not answer requests from web pages", http.StatusForbidden)
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), d.token) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="reins"`)
			http.Error(w, "a valid bearer token is needed: it is in the file "+TokenFile+" in Reins' data folder", http.StatusUnauthorized)
			return
		}
		r.Header.Set(peerHeader, r.RemoteAddr)
		next.ServeHTTP(w, r)
	})
}

// processOfHTTP finds the program behind an HTTP session from the address
// it connects from, where the OS tells.
func processOfHTTP(extra *sdk.RequestExtra) Process {
	if extra == nil || extra.Header == nil {
		return Process{}
	}
	remote, err := net.ResolveTCPAddr("tcp", extra.Header.Get(peerHeader))
	if err != nil {
		return Process{}
	}
	cred, err := peercred.OfTCP(remote)
	if err != nil || cred.PID == 0 {
		return Process{}
	}
	exe, _ := peercred.Exe(cred.PID)
	return Process{PID: cred.PID, Exe: exe}
}

// loadOrCreateToken reads the HTTP listener's token, making one on first use.
func loadOrCreateToken(dir string) ([]byte, error) {
	path := filepath.Join(dir, TokenFile)
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); len(t) >= 32 {
			return []byte(t), nil
		}
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	tok := hex.EncodeToString(raw)
	if err := atomicfile.Write(path, []byte(tok+"\n"), 0o600); err != nil {
		return nil, err
	}
	return []byte(tok), nil
}
