package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
)

// squatter is a program that took the bridge's port while Reins was down.
// It lets anyone in and records what it is sent. While silent it sends
// nothing at all, not even a challenge, and waits for the extension to give
// up.
type squatter struct {
	mu       sync.Mutex
	received []map[string]any
	conns    int
	silent   bool
	arrived  chan int           // a connection's number, as it opens
	ended    chan time.Duration // how long each silent connection was held
}

func (s *squatter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	s.mu.Lock()
	s.conns++
	n, silent := s.conns, s.silent
	s.mu.Unlock()
	s.arrived <- n
	if silent {
		began := time.Now()
		for {
			if _, _, err := c.Read(ctx); err != nil {
				s.ended <- time.Since(began)
				return
			}
		}
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"method":"challenge","params":{"nonce":"`+strings.Repeat("cd", 32)+`"}}`))
	if n%2 == 1 {
		// Every other time it asks for tabs straight away, hoping the
		// extension answers before it has checked who it talks to.
		c.Write(ctx, websocket.MessageText, []byte(`{"id":"steal","method":"tabs","params":{}}`))
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		s.mu.Lock()
		s.received = append(s.received, m)
		s.mu.Unlock()
		if m["method"] == "hello" {
			// A proof it cannot make.
			c.Write(ctx, websocket.MessageText, []byte(`{"id":"`+m["id"].(string)+`","result":{"version":2,"proof":"`+strings.Repeat("00", 32)+`"}}`))
			c.Write(ctx, websocket.MessageText, []byte(`{"id":"steal2","method":"snapshot","params":{"tab":1}}`))
		}
	}
}

// TestSquatterGetsNothing: with Reins down and another program on its port,
// the extension pairs with nobody and sends no tab data; a squatter that
// keeps quiet is left within the extension's handshake deadline, and the
// extension tries again.
func TestSquatterGetsNothing(t *testing.T) {
	r := setup(t, "1280x800x24", 0, 5*time.Second)
	r.assertNoProcessesLeft()
	port := r.rt.Port()
	if err := r.rt.Close(); err != nil {
		t.Fatal(err)
	}
	sq := &squatter{arrived: make(chan int, 64), ended: make(chan time.Duration, 64)}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port frees as the bridge shuts down
		if ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: sq}
	go srv.Serve(ln)
	defer srv.Close()
	// A stale address file, as a crashed Reins would leave, sends the extension there.
	if err := bridge.WriteAddress(r.data, bridge.Address{Port: port, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	next := func(what string) int {
		t.Helper()
		select {
		case n := <-sq.arrived:
			return n
		case <-time.After(60 * time.Second):
			t.Fatalf("the extension never came back to the squatter's port (%s); the test proves nothing", what)
			return 0
		}
	}
	// Two talking tries, eager and not: the extension has dealt with
	// everything from the first two once it opens the third.
	next("first")
	next("second")
	sq.mu.Lock()
	sq.silent = true
	sq.mu.Unlock()
	next("third")
	// Now a silent squatter: the extension leaves it within its deadline
	// (5 s) and tries again.
	var held time.Duration
	select {
	case held = <-sq.ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the extension stayed on a silent squatter's socket for 30 s")
	}
	next("after the silent one")
	t.Logf("a silent squatter held the extension's socket for %v", held.Round(10*time.Millisecond))
	if held > 8*time.Second {
		t.Errorf("a silent squatter held the socket for %v, over the 5 s handshake deadline", held)
	}
	r.browser.Process.Stop()
	sq.mu.Lock()
	defer sq.mu.Unlock()
	hellos := 0
	for _, m := range sq.received {
		if m["method"] != "hello" {
			t.Errorf("the extension sent the squatter more than a hello: %v", m)
			continue
		}
		hellos++
		params, _ := m["params"].(map[string]any)
		for k := range params {
			switch k {
			case "version", "port", "extension", "browser", "profile", "browserSession", "nonce", "proof":
			default:
				t.Errorf("the hello carried %q", k)
			}
		}
	}
	t.Logf("squatter: %d connections, %d messages received, all %d of them hellos", sq.conns, len(sq.received), hellos)
}
