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
// It lets anyone in and records what it is sent.
type squatter struct {
	mu       sync.Mutex
	received []map[string]any
	conns    int
	hello    chan struct{}
}

func (s *squatter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	c.Write(ctx, websocket.MessageText, []byte(`{"method":"challenge","params":{"nonce":"`+strings.Repeat("cd", 32)+`"}}`))
	s.mu.Lock()
	s.conns++
	eager := s.conns%2 == 1
	s.mu.Unlock()
	if eager {
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
			select {
			case s.hello <- struct{}{}:
			default:
			}
			// A proof it cannot make.
			c.Write(ctx, websocket.MessageText, []byte(`{"id":"`+m["id"].(string)+`","result":{"version":1,"proof":"`+strings.Repeat("00", 32)+`"}}`))
			c.Write(ctx, websocket.MessageText, []byte(`{"id":"steal2","method":"snapshot","params":{"tab":1}}`))
		}
	}
}

// TestSquatterGetsNothing: with Reins down and another program on its port,
// the extension pairs with nobody and sends no tab data.
func TestSquatterGetsNothing(t *testing.T) {
	r := setup(t, "1280x800x24", 0, 5*time.Second)
	r.assertNoProcessesLeft()
	port := r.rt.Port()
	if err := r.rt.Close(); err != nil {
		t.Fatal(err)
	}
	sq := &squatter{hello: make(chan struct{}, 1)}
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
	select {
	case <-sq.hello:
	case <-time.After(60 * time.Second):
		t.Fatal("the extension never tried the squatter's port; the test proves nothing")
	}
	// Let it see the bad proof and the requests, and give it time to misbehave.
	time.Sleep(2 * time.Second)
	r.browser.Process.Stop()
	sq.mu.Lock()
	defer sq.mu.Unlock()
	for _, m := range sq.received {
		if m["method"] != "hello" {
			t.Errorf("the extension sent the squatter more than a hello: %v", m)
		}
		params, _ := m["params"].(map[string]any)
		for k := range params {
			switch k {
			case "version", "extension", "browser", "profile", "nonce", "proof":
			default:
				t.Errorf("the hello carried %q", k)
			}
		}
	}
}
