package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
)

// squatter is a process on the bridge's port that plays the app's side of
// the handshake with answer deciding the reply to hello, and reports what the
// extension did after that reply.
func squatter(t *testing.T, answer func(h protocol.Hello, helloID, appNonce string) string) (url string, after <-chan string) {
	t.Helper()
	done := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A squatter does not care who calls.
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := context.Background()
		appNonce := strings.Repeat("5a", 32)
		c.Write(ctx, websocket.MessageText, []byte(`{"method":"challenge","params":{"nonce":"`+appNonce+`"}}`))
		_, data, err := c.Read(ctx)
		if err != nil {
			done <- "no hello: " + err.Error()
			return
		}
		var m protocol.Message
		var h protocol.Hello
		json.Unmarshal(data, &m)
		json.Unmarshal(m.Params, &h)
		c.Write(ctx, websocket.MessageText, []byte(answer(h, m.ID, appNonce)))
		_, data, err = c.Read(ctx)
		if err != nil {
			done <- "closed " + websocket.CloseStatus(err).String()
			return
		}
		done <- "sent " + string(data)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/bridge", done
}

// The fake extension must hold the app to its proof as sw.js does: the
// control case is a squatter that does know the secret.
func TestBridgetestChecksTheAppsProof(t *testing.T) {
	secret := newSecret(t)
	welcome := func(proof func(h protocol.Hello, appNonce string) string) func(protocol.Hello, string, string) string {
		return func(h protocol.Hello, id, appNonce string) string {
			b, _ := json.Marshal(protocol.Message{ID: id, Result: mustJSON(protocol.Welcome{Version: protocol.Version, Proof: proof(h, appNonce)})})
			return string(b)
		}
	}
	cases := []struct {
		name    string
		answer  func(protocol.Hello, string, string) string
		wantErr string
	}{
		{"an app that knows the secret", welcome(func(h protocol.Hello, a string) string {
			return bridge.AppProof(secret, transcript(h, a))
		}), ""},
		{"a proof made with another secret", welcome(func(h protocol.Hello, a string) string {
			return bridge.AppProof(newSecret(t), transcript(h, a))
		}), "welcome proof is wrong"},
		{"a proof made on another port (a relay's)", welcome(func(h protocol.Hello, a string) string {
			tr := transcript(h, a)
			tr.Port++
			return bridge.AppProof(secret, tr)
		}), "welcome proof is wrong"},
		{"the extension's own proof echoed", welcome(func(h protocol.Hello, a string) string {
			return h.Proof
		}), "welcome proof is wrong"},
		{"no proof", welcome(func(protocol.Hello, string) string { return "" }), "welcome proof is wrong"},
		{"an answer to another id", func(h protocol.Hello, id, a string) string {
			return `{"id":"x","result":{"version":2,"proof":"` + bridge.AppProof(secret, transcript(h, a)) + `"}}`
		}, "answered hello"},
		{"a request instead of a welcome", func(protocol.Hello, string, string) string {
			return `{"id":"a1","method":"tabs","params":{}}`
		}, "answered hello"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var url string
			var after <-chan string
			url, after = squatter(t, func(h protocol.Hello, id, appNonce string) string {
				// The hello itself must be right whatever comes next.
				if h.Proof != bridge.ExtensionProof(secret, transcript(h, appNonce)) || id != "h"+h.Nonce[:8] || h.Version != protocol.Version || h.BrowserSession == "" || !strings.HasSuffix(url, fmt.Sprintf(":%d/bridge", h.Port)) {
					t.Errorf("hello %+v (id %s) is not what sw.js sends", h, id)
				}
				return c.answer(h, id, appNonce)
			})
			ext, err := bridgetest.Dial(ctxFor(t, patience), bridgetest.DialOptions{URL: url, Origin: extension.Origin, Secret: secret, Profile: "p"})
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Dial: %v", err)
				}
				ext.Emit(ctxFor(t, patience), protocol.EventZoom, protocol.Zoom{Tab: 1, Zoom: 2})
				if got := <-after; !regexp.MustCompile(`^sent 1 [0-9a-f]{64}\n\{"method":"zoom"`).MatchString(got) {
					t.Errorf("after pairing the extension %s", got)
				}
				ext.Close()
				return
			}
			if err == nil {
				ext.Close()
				t.Fatal("Dial paired with an app that did not prove itself")
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("err = %v, want it to say %q", err, c.wantErr)
			}
			// Nothing reaches an unproven app but the close, with sw.js's status.
			if got, want := <-after, "closed "+bridgetest.StatusAppUnproven.String(); got != want {
				t.Errorf("after the bad welcome the extension %s, want %s", got, want)
			}
		})
	}
}

// transcript is what a hello binds, as the app that received it sees it.
func transcript(h protocol.Hello, appNonce string) bridge.Transcript {
	return bridge.Transcript{Port: h.Port, AppNonce: appNonce, ExtNonce: h.Nonce, Profile: h.Profile}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestBridgetestDialReportsARefusedOrigin(t *testing.T) {
	h := start(t, nil)
	_, err := bridgetest.Dial(ctxFor(t, patience), bridgetest.DialOptions{URL: h.url, Origin: "https://evil.example", Secret: h.secret})
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("err = %v, want it to name the 403", err)
	}
}

func TestBridgetestSendsEmptyObjectsWhereSwJsDoes(t *testing.T) {
	h := start(t, nil)
	params := make(chan string, 1)
	h.connect("p", func(method string, p json.RawMessage) (any, *protocol.Error) {
		params <- string(p)
		return nil, nil
	})
	var out json.RawMessage
	if err := h.s.Call(ctxFor(t, patience), "p", protocol.MethodActivate, nil, &out); err != nil {
		t.Fatal(err)
	}
	// sw.js hands its handlers m.params || {} and sends result || {}.
	if got := <-params; got != "{}" {
		t.Errorf("handler got params %s, want {}", got)
	}
	if string(out) != "{}" {
		t.Errorf("result %s, want {}", out)
	}
}

func TestBridgetestRefusesAnOversizedEvent(t *testing.T) {
	h := start(t, nil)
	ext := h.connect("p", nil)
	err := ext.Emit(ctxFor(t, patience), protocol.EventZoom, map[string]string{"pad": strings.Repeat("x", protocol.MaxMessageBytes)})
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("err = %v, want a size error", err)
	}
	select {
	case <-ext.Done():
		t.Fatalf("the connection ended: %v", ext.Err())
	default:
	}
}
