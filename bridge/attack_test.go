package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// The attacks on the bridge that need no browser. Each counts its tries and
// what got through; SECURITY.md quotes the figures these tests log.

// handHello pairs c by hand and returns the hello it sent, as bytes.
func handHello(t *testing.T, h *harness, c *websocket.Conn, profile string) []byte {
	t.Helper()
	appNonce := readChallenge(t, c)
	nonce := make([]byte, 32)
	rand.Read(nonce)
	extNonce := fmt.Sprintf("%x", nonce)
	tr := bridge.Transcript{Port: h.s.Port(), AppNonce: appNonce, ExtNonce: extNonce, Profile: profile}
	params, _ := json.Marshal(protocol.Hello{Version: protocol.Version, Port: tr.Port, Profile: profile, BrowserSession: "s", Nonce: extNonce, Proof: bridge.ExtensionProof(h.secret, tr)})
	b, _ := json.Marshal(&protocol.Message{ID: "h1", Method: protocol.MethodHello, Params: params})
	writeRaw(t, c, string(b))
	return b
}

// A hello recorded on one connection is worth nothing on the next: the
// app's nonce is new each time.
func TestAReplayedHelloIsRefused(t *testing.T) {
	h := start(t, nil)
	first := h.rawDial(extension.Origin)
	hello := handHello(t, h, first, "p")
	if m := readMessage(t, first); m.Error != nil {
		t.Fatalf("the genuine hello was refused: %v", m.Error)
	}
	h.waitFor(bridge.EventConnected, "p")
	const tries = 20
	through := 0
	for range tries {
		c := h.rawDial(extension.Origin)
		readChallenge(t, c)
		writeRaw(t, c, string(hello))
		m := readMessage(t, c)
		if m.Error == nil || m.Error.Code != protocol.CodeUnauthorized {
			through++
		}
		closeStatus(t, c)
	}
	t.Logf("replayed hello: %d tries, %d paired", tries, through)
	if through != 0 {
		t.Errorf("%d of %d replayed hellos paired", through, tries)
	}
	if peers := h.s.Peers(); len(peers) != 1 {
		t.Errorf("Peers = %+v, want only the genuine connection", peers)
	}
}

// relay listens on a port of its own and passes every byte both ways to
// the bridge, keeping what it saw.
type relay struct {
	ln  net.Listener
	mu  sync.Mutex
	saw bytes.Buffer // guarded by mu
}

func startRelay(t *testing.T, to int) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(to))
			if err != nil {
				in.Close()
				continue
			}
			pipe := func(dst, src net.Conn) {
				defer dst.Close()
				defer src.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						r.mu.Lock()
						r.saw.Write(buf[:n])
						r.mu.Unlock()
						dst.Write(buf[:n])
					}
					if err != nil {
						return
					}
				}
			}
			go pipe(out, in)
			go pipe(in, out)
		}
	}()
	return r
}

func (r *relay) port() int { return r.ln.Addr().(*net.TCPAddr).Port }

// A relay on another port passes the extension's handshake on to Reins:
// both sides refuse, and Reins says in plain words what happened.
func TestARelayedHandshakeFailsOnBothSides(t *testing.T) {
	h := start(t, nil)
	r := startRelay(t, h.s.Port())
	const tries = 10
	through := 0
	for range tries {
		ext, err := bridgetest.Dial(ctxFor(t, patience), bridgetest.DialOptions{
			URL: fmt.Sprintf("ws://127.0.0.1:%d/bridge", r.port()), Origin: extension.Origin, Secret: h.secret, Profile: "p",
		})
		if err == nil {
			through++
			ext.Close()
			continue
		}
		if !strings.Contains(err.Error(), "relayed") {
			t.Errorf("the extension's side of a relayed handshake failed with %v, not the app's refusal", err)
		}
	}
	t.Logf("relay on port %d in front of %d: %d tries, %d paired", r.port(), h.s.Port(), tries, through)
	if through != 0 {
		t.Errorf("%d of %d relayed handshakes paired", through, tries)
	}
	if len(h.s.Peers()) != 0 {
		t.Errorf("Peers = %+v", h.s.Peers())
	}
	h.noEventPending()
	if !h.logs.contains(bridge.RelayWarning(r.port(), h.s.Port())) {
		t.Error("Reins did not tell the person about the relay")
	}
	// The words for the person name both ports and what to do.
	w := bridge.RelayWarning(r.port(), h.s.Port())
	for _, part := range []string{strconv.Itoa(r.port()), strconv.Itoa(h.s.Port()), "stop it"} {
		if !strings.Contains(w, part) {
			t.Errorf("the warning %q lacks %q", w, part)
		}
	}
	// Nothing but the handshake crossed the relay.
	r.mu.Lock()
	saw := r.saw.String()
	r.mu.Unlock()
	if strings.Contains(saw, `"shares"`) || strings.Contains(saw, "tabs") {
		t.Errorf("the relay saw more than the handshake:\n%s", saw)
	}
}

// After pairing, a changed or replayed message ends the connection and
// reaches nobody.
func TestATamperedOrReplayedMessageEndsTheConnection(t *testing.T) {
	event := func(i int) []byte {
		b, _ := json.Marshal(&protocol.Message{Method: protocol.EventZoom, Params: json.RawMessage(`{"tab":` + strconv.Itoa(i) + `,"zoom":1.5}`)})
		return b
	}
	cases := map[string]func(c *bridgetest.Sealed) [][]byte{
		"a byte changed": func(c *bridgetest.Sealed) [][]byte {
			f := c.Session.Seal(event(1))
			f[len(f)-4] = '9'
			return [][]byte{f}
		},
		"replayed": func(c *bridgetest.Sealed) [][]byte {
			f := c.Session.Seal(event(1))
			return [][]byte{f, f}
		},
		"reordered": func(c *bridgetest.Sealed) [][]byte {
			a, b := c.Session.Seal(event(1)), c.Session.Seal(event(2))
			return [][]byte{b, a}
		},
		"unsealed": func(c *bridgetest.Sealed) [][]byte { return [][]byte{event(1)} },
		"sealed with another key": func(c *bridgetest.Sealed) [][]byte {
			return [][]byte{bridge.NewSession(make([]byte, 32), bridge.ExtensionToApp).Seal(event(1))}
		},
	}
	tries, through := 0, 0
	for name, frames := range cases {
		t.Run(name, func(t *testing.T) {
			h := start(t, nil)
			c := h.pairRaw("p")
			fs := frames(c)
			for _, f := range fs {
				c.Conn.Write(ctxFor(t, patience), websocket.MessageText, f)
			}
			if got := closeStatus(t, c.Conn); got != websocket.StatusPolicyViolation {
				t.Errorf("close status %v, want %v", got, websocket.StatusPolicyViolation)
			}
			// A genuine first message is delivered; nothing after the bad one.
			delivered := 0
			for ev := h.nextEvent(); ev.Method != bridge.EventDisconnected; ev = h.nextEvent() {
				if ev.Method == protocol.EventZoom {
					delivered++
				}
			}
			genuine := 0
			if name == "replayed" {
				genuine = 1
			}
			tries++
			if delivered != genuine {
				through++
				t.Errorf("%d events delivered, want %d", delivered, genuine)
			}
			if !h.logs.contains("failed its check") && !h.logs.contains("out of order") && !h.logs.contains("not a sealed message") {
				t.Error("the closed connection was not logged")
			}
		})
	}
	t.Logf("tampered and replayed messages after pairing: %d tries, %d got through", tries, through)
}

// The app seals too: a fake extension refuses a message from the app that
// arrives changed.
func TestTheExtensionSideRefusesAChangedMessageFromTheApp(t *testing.T) {
	h := start(t, nil)
	c := h.pairRaw("p")
	// What the app sent next, changed by one byte on its way.
	errs := make(chan error, 1)
	go func() { errs <- h.s.Call(context.Background(), "p", protocol.MethodTabs, struct{}{}, nil) }()
	_, frame, err := c.Conn.Read(ctxFor(t, patience))
	if err != nil {
		t.Fatal(err)
	}
	frame[len(frame)-2] ^= 0x20
	if _, err := c.Session.Open(frame); !errors.Is(err, bridge.ErrTampered) {
		t.Errorf("a changed message from the app opened: %v", err)
	}
	c.CloseNow()
	<-errs
}

// Before pairing, a message is a few KiB at most.
func TestAnOversizedHelloClosesTheConnection(t *testing.T) {
	h := start(t, nil)
	c := h.rawDial(extension.Origin)
	readChallenge(t, c)
	big := `{"id":"h1","method":"hello","params":{"pad":"` + strings.Repeat("x", protocol.MaxHandshakeBytes) + `"}}`
	c.Write(ctxFor(t, patience), websocket.MessageText, []byte(big))
	if got := closeStatus(t, c); got != websocket.StatusMessageTooBig {
		t.Errorf("close status %v, want %v", got, websocket.StatusMessageTooBig)
	}
}

// A connection that never finishes pairing is closed within the deadline,
// whatever stage it stops at: before its HTTP request, before upgrading,
// before its hello.
func TestAnUnpairedConnectionIsClosedWithinTheDeadline(t *testing.T) {
	const deadline = 300 * time.Millisecond
	h := start(t, func(o *bridge.Options) { o.HelloTimeout = deadline })
	bound := 10 * deadline
	closedWithin := func(c net.Conn) time.Duration {
		t.Helper()
		began := time.Now()
		c.SetReadDeadline(began.Add(bound))
		io.Copy(io.Discard, c)
		return time.Since(began)
	}
	addr := "127.0.0.1:" + strconv.Itoa(h.s.Port())
	t.Run("silent TCP", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if took := closedWithin(c); took >= bound {
			t.Errorf("a silent connection was still open after %v", took)
		}
	})
	t.Run("headers never finished", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /bridge HTTP/1.1\r\nHost: x\r\n")
		if took := closedWithin(c); took >= bound {
			t.Errorf("a half-sent request was still open after %v", took)
		}
	})
	t.Run("upgraded, no hello", func(t *testing.T) {
		c, _ := upgradeRaw(t, h.s.Port())
		defer c.Close()
		if took := closedWithin(c); took >= bound {
			t.Errorf("an upgraded connection without a hello was still open after %v", took)
		}
	})
}

// upgradeRaw opens a WebSocket by hand on a bare TCP connection, so that a
// test can write frames of any size without holding them in memory.
func upgradeRaw(t testing.TB, port int) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(c, "GET /bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\nOrigin: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(key), extension.Origin)
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(patience))
	resp, err := http.ReadResponse(br, nil)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return c, br // the bridge closed it: the caller sees EOF
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %s", resp.Status)
	}
	return c, br
}

// writeHugeFrame sends one masked text frame announcing n bytes and then
// streams them from a small buffer. It returns how many it wrote before
// the bridge closed the connection.
func writeHugeFrame(c net.Conn, n uint64) int64 {
	head := []byte{0x81, 0x80 | 127}
	head = binary.BigEndian.AppendUint64(head, n)
	head = append(head, 1, 2, 3, 4) // the mask
	if _, err := c.Write(head); err != nil {
		return 0
	}
	buf := make([]byte, 64<<10)
	var sent int64
	for sent < int64(n) {
		c.SetWriteDeadline(time.Now().Add(patience))
		k, err := c.Write(buf[:min(int64(len(buf)), int64(n)-sent)])
		sent += int64(k)
		if err != nil {
			break
		}
	}
	return sent
}

// peekEOF reports whether the bridge closed the connection.
func peekEOF(br *bufio.Reader) bool {
	_, err := br.Peek(1)
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

func rssBytes(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	testenv.Need(t, err == nil, fmt.Sprintf("/proc/self/status, to read the resident size (%v)", err))
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	testenv.Need(t, false, "VmRSS in /proc/self/status")
	return 0
}

// Forty strangers each send a 16 MiB hello at once: few are let in at all,
// each of those is cut off within a few KiB, and Reins' memory stays where
// it was. The genuine extension pairs afterwards.
func TestAPreAuthFloodLeavesMemoryBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the resident size from /proc")
	}
	h := start(t, nil)
	runtime.GC()
	before := rssBytes(t)
	const conns = 40
	const each = 16 << 20
	var wg sync.WaitGroup
	var upgraded, refusedAtOnce atomic.Int64
	var written atomic.Int64
	// All of them connect before any sends, so they are strangers at once.
	ready := make(chan struct{})
	var dialled sync.WaitGroup
	dialled.Add(conns)
	for range conns {
		wg.Go(func() {
			c, br := upgradeRaw(t, h.s.Port())
			defer c.Close()
			ok := br.Buffered() > 0 || c.SetReadDeadline(time.Now().Add(50*time.Millisecond)) == nil && !peekEOF(br)
			c.SetReadDeadline(time.Time{})
			dialled.Done()
			<-ready
			if !ok {
				refusedAtOnce.Add(1)
				return
			}
			upgraded.Add(1)
			written.Add(writeHugeFrame(c, each))
		})
	}
	dialled.Wait()
	close(ready)
	wg.Wait()
	after := rssBytes(t)
	t.Logf("pre-auth flood: %d connections × %d MiB hello; %d upgraded, %d closed at once; %.1f MiB written in all before the bridge cut them off; RSS %.1f MiB before, %.1f MiB after (%+.1f MiB)",
		conns, each>>20, upgraded.Load(), refusedAtOnce.Load(), float64(written.Load())/(1<<20), float64(before)/(1<<20), float64(after)/(1<<20), float64(after-before)/(1<<20))
	// What was written went into the kernel's socket buffers before the
	// bridge cut each connection off; Reins reads a few KiB of each.
	if grew := after - before; grew > 32<<20 {
		t.Errorf("the flood grew the process by %.1f MiB", float64(grew)/(1<<20))
	}
	if n := upgraded.Load(); n > 0 && written.Load()/n > 8<<20 {
		t.Errorf("each stranger got %.1f MiB of its hello in before the bridge cut it off", float64(written.Load()/n)/(1<<20))
	}
	if n := upgraded.Load(); n > int64(bridge.DefaultMaxUnpaired) {
		t.Errorf("%d strangers were let in at once, over the limit of %d", n, bridge.DefaultMaxUnpaired)
	}
	// Nobody paired, and the real extension still can.
	if len(h.s.Peers()) != 0 {
		t.Fatalf("Peers = %+v", h.s.Peers())
	}
	h.connect("p", nil)
}

// No more than a few strangers at a time: the rest are closed at once, and
// when the slow ones are gone the extension pairs.
func TestFewUnpairedConnectionsAtOnce(t *testing.T) {
	const limit = 4
	h := start(t, func(o *bridge.Options) { o.MaxUnpaired = limit; o.HelloTimeout = time.Second })
	addr := "127.0.0.1:" + strconv.Itoa(h.s.Port())
	var held []net.Conn
	for range limit {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	// The listener takes them in order: once a probe beyond the limit has
	// been closed, all of the held ones are counted.
	const extra = 10
	closedAtOnce := 0
	for range extra {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
			closedAtOnce++
		}
		c.Close()
	}
	t.Logf("%d silent connections held, %d more tried: %d closed at once", limit, extra, closedAtOnce)
	if closedAtOnce != extra {
		t.Errorf("%d of %d connections beyond the limit of %d were kept", extra-closedAtOnce, extra, limit)
	}
	if !h.logs.contains("have not paired yet") {
		t.Error("the refusals were not logged")
	}
	// The held ones time out; then there is room again.
	for _, c := range held {
		c.SetReadDeadline(time.Now().Add(patience))
		io.Copy(io.Discard, c)
	}
	h.connect("p", nil)
}

// A stranger whose upgrade fails is answered and let go: it cannot keep
// its place among the unpaired by asking again and again on one
// connection, nor hold a socket past the deadline.
func TestAFailedUpgradeGivesItsPlaceBack(t *testing.T) {
	const limit = 2
	// A deadline far beyond the test's wait: only being let go ends it.
	h := start(t, func(o *bridge.Options) { o.MaxUnpaired = limit; o.HelloTimeout = time.Minute })
	addr := "127.0.0.1:" + strconv.Itoa(h.s.Port())
	for i := range 2 * limit {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// The extension's Origin, but no upgrade: a 426, then the end.
		fmt.Fprintf(c, "GET /bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: %s\r\n\r\n", extension.Origin)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, err := io.ReadAll(c)
		c.Close()
		if err != nil {
			t.Fatalf("stranger %d: the connection was kept open after its failed upgrade: %v (read %q)", i, err, b)
		}
		if !strings.HasPrefix(string(b), "HTTP/1.1 426") {
			t.Fatalf("stranger %d was answered %q", i, b)
		}
	}
	h.connect("p", nil)
}

// The extension counts every tab as unshared until it has a table, so the
// table is the first thing it gets, and a changed table reaches it before
// any request that reads a tab.
func TestTheShareTableComesFirstAndBeforeEveryRead(t *testing.T) {
	h := start(t, nil)
	var mu sync.Mutex
	level := protocol.LevelNone
	h.s.ShareTable(func(profile, _ string) protocol.Shares {
		mu.Lock()
		defer mu.Unlock()
		line := protocol.TabShare{Tab: 3, Level: level}
		if level != protocol.LevelNone {
			line.Origin = "https://a.example"
		}
		return protocol.Shares{Tabs: []protocol.TabShare{line}}
	})
	c := h.pairRaw("p")
	m := readMessage(t, c)
	var s protocol.Shares
	if m.Method != protocol.EventShares || json.Unmarshal(m.Params, &s) != nil || s.Seq != 1 || s.Tabs[0].Level != protocol.LevelNone {
		t.Fatalf("first message after pairing: %+v, want the share table", m)
	}
	// The person shares, and an agent reads at once.
	mu.Lock()
	level = protocol.LevelRead
	mu.Unlock()
	errs := make(chan error, 1)
	go func() {
		errs <- h.s.Call(context.Background(), "p", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: 3}, nil)
	}()
	m = readMessage(t, c)
	if m.Method != protocol.EventShares || json.Unmarshal(m.Params, &s) != nil || s.Seq != 2 || s.Tabs[0].Level != protocol.LevelRead {
		t.Fatalf("before the snapshot: %+v, want the new table", m)
	}
	answerNext(t, c, protocol.MethodSnapshot, `{"tab":3,"zoom":1,"frames":[]}`)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	// An unchanged table is not sent again; a request that reads no tab
	// does not wait for one.
	go func() {
		errs <- h.s.Call(context.Background(), "p", protocol.MethodSnapshot, protocol.SnapshotParams{Tab: 3}, nil)
	}()
	answerNext(t, c, protocol.MethodSnapshot, `{"tab":3,"zoom":1,"frames":[]}`)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	level = protocol.LevelControl
	mu.Unlock()
	go func() { errs <- h.s.Call(context.Background(), "p", protocol.MethodTabs, struct{}{}, nil) }()
	answerNext(t, c, protocol.MethodTabs, `{"tabs":[]}`)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if err := h.s.PushShares(ctxFor(t, patience), "p"); err != nil {
		t.Fatal(err)
	}
	if m = readMessage(t, c); m.Method != protocol.EventShares || json.Unmarshal(m.Params, &s) != nil || s.Seq != 3 {
		t.Fatalf("PushShares sent %+v", m)
	}
	if err := h.s.PushShares(ctxFor(t, patience), "nobody"); !errors.Is(err, bridge.ErrNotConnected) {
		t.Errorf("PushShares to nobody: %v", err)
	}
}
