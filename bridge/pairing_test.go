package bridge_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
)

func TestExtensionWithOriginAndSecretPairs(t *testing.T) {
	h := start(t, nil)
	before := time.Now()
	h.dial("profile-a", nil)

	ev := h.nextEvent()
	if ev.Method != bridge.EventConnected || ev.Profile != "profile-a" {
		t.Fatalf("first event = %+v, want %s for profile-a", ev, bridge.EventConnected)
	}
	peers := h.s.Peers()
	if len(peers) != 1 {
		t.Fatalf("Peers = %+v, want one", peers)
	}
	p := peers[0]
	manifest, err := fs.ReadFile(extension.Files(), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	json.Unmarshal(manifest, &m)
	if p.Profile != "profile-a" || p.Browser != "Reins bridgetest" || p.Extension != m.Version {
		t.Errorf("peer = %+v, want profile-a, Reins bridgetest, extension %s", p, m.Version)
	}
	if p.Since.Before(before) || p.Since.After(time.Now()) {
		t.Errorf("Since = %v, not during the test", p.Since)
	}
}

// upgrade sends a bare WebSocket upgrade so the test controls exactly which
// Origin header goes out (none at all, too).
func upgrade(t *testing.T, port int, origin *string) *http.Response {
	t.Helper()
	key := make([]byte, 16)
	rand.Read(key)
	req, err := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/bridge", port), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(key))
	if origin != nil {
		req.Header["Origin"] = []string{*origin}
	}
	resp, err := http.DefaultClient.Do(req.WithContext(ctxFor(t, patience)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOnlyTheExtensionOriginMayUpgrade(t *testing.T) {
	h := start(t, nil)
	str := func(s string) *string { return &s }
	cases := []struct {
		name   string
		origin *string
	}{
		{"missing Origin", nil},
		{"empty Origin", str("")},
		{"another extension", str("chrome-extension://abcdefghijklmnopabcdefghijklmnop")},
		{"a web page on the bridge's own port", str(fmt.Sprintf("http://127.0.0.1:%d", h.s.Port()))},
		{"a web page on localhost", str("http://localhost:8080")},
		{"a remote web page", str("https://evil.example")},
		{"an opaque origin", str("null")},
		{"our id with a trailing slash", str(extension.Origin + "/")},
		{"our id in capitals", str(strings.ToUpper(extension.Origin))},
		{"our id in a longer origin", str(extension.Origin + ".evil.example")},
	}
	through := 0
	defer func() { t.Logf("forged Origin: %d tries, %d upgraded", len(cases), through) }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := upgrade(t, h.s.Port(), c.origin)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %d, want 403", resp.StatusCode)
			}
			if resp.StatusCode == http.StatusSwitchingProtocols {
				through++
			}
			if got := resp.Header.Get("Upgrade"); got != "" {
				t.Errorf("the response upgrades (Upgrade: %s)", got)
			}
			body, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(body), "Reins extension") {
				t.Errorf("body %q does not say who may connect", body)
			}
		})
	}
	if peers := h.s.Peers(); len(peers) != 0 {
		t.Errorf("Peers = %+v after refused upgrades", peers)
	}
	h.noEventPending()

	// The same request with the right Origin does upgrade, so the refusals
	// above are the Origin's doing.
	resp := upgrade(t, h.s.Port(), str(extension.Origin))
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("with the extension's Origin: status %d, want 101", resp.StatusCode)
	}
}

func TestWrongSecretIsRefused(t *testing.T) {
	h := start(t, nil)
	c := h.rawDial(extension.Origin)
	_, err := bridgetest.Pair(ctxFor(t, patience), c, newSecret(t), "intruder", h.s.Port())
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeUnauthorized {
		t.Fatalf("pairing with a wrong secret: err = %v, want an %s error from the app", err, protocol.CodeUnauthorized)
	}
	if got := closeStatus(t, c); got != websocket.StatusPolicyViolation {
		t.Errorf("close status %v, want %v", got, websocket.StatusPolicyViolation)
	}
	// The close follows the refusal, so had the server registered the
	// intruder its event would already be queued.
	if peers := h.s.Peers(); len(peers) != 0 {
		t.Errorf("Peers = %+v, want none", peers)
	}
	h.noEventPending()

	if _, err := bridgetest.Dial(ctxFor(t, patience), bridgetest.DialOptions{
		URL: h.url, Origin: extension.Origin, Secret: newSecret(t),
	}); err == nil || !strings.Contains(err.Error(), "wrong pairing proof") {
		t.Errorf("Dial with a wrong secret: err = %v, want the app's refusal", err)
	}
}

// readChallenge reads the app's first message, which must be a challenge.
func readChallenge(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	m := readMessage(t, c)
	var ch protocol.Challenge
	if m.Kind() != protocol.KindEvent || m.Method != protocol.MethodChallenge || json.Unmarshal(m.Params, &ch) != nil {
		t.Fatalf("first message %+v is not a challenge", m)
	}
	if _, err := hex.DecodeString(ch.Nonce); err != nil || len(ch.Nonce) != 64 {
		t.Fatalf("challenge nonce %q is not 32 bytes of hex", ch.Nonce)
	}
	return ch.Nonce
}

func TestFirstMessageMustBeHello(t *testing.T) {
	cases := map[string]string{
		"an event":              `{"method":"tabs.changed","params":{"tabs":[]}}`,
		"hello sent as event":   `{"method":"hello","params":{"version":2}}`,
		"a response":            `{"id":"h1","result":{}}`,
		"another request":       `{"id":"r1","method":"tabs","params":{}}`,
		"not JSON":              `hello`,
		"hello with no params":  `{"id":"h1","method":"hello"}`,
		"hello with bad params": `{"id":"h1","method":"hello","params":[1,2]}`,
	}
	for name, first := range cases {
		t.Run(name, func(t *testing.T) {
			h := start(t, nil)
			c := h.rawDial(extension.Origin)
			readChallenge(t, c)
			writeRaw(t, c, first)
			if got := closeStatus(t, c); got != websocket.StatusPolicyViolation {
				t.Errorf("close status %v, want %v", got, websocket.StatusPolicyViolation)
			}
			if peers := h.s.Peers(); len(peers) != 0 {
				t.Errorf("Peers = %+v", peers)
			}
			h.noEventPending()
		})
	}
}

// A hello is refused unless every part of it is right. Where the case is not
// about the proof, the proof is correct, so the refusal is the check's.
func TestHelloIsChecked(t *testing.T) {
	correct := func(secret []byte, tr bridge.Transcript) string {
		return bridge.ExtensionProof(secret, tr)
	}
	cases := []struct {
		name   string
		mutate func(*protocol.Hello)
		proof  func(secret []byte, tr bridge.Transcript) string
	}{
		{"another protocol version", func(h *protocol.Hello) { h.Version = protocol.Version + 1 }, correct},
		{"the version before ports were bound", func(h *protocol.Hello) { h.Version = 1 }, correct},
		{"no profile", func(h *protocol.Hello) { h.Profile = "" }, correct},
		{"a profile over 128 bytes", func(h *protocol.Hello) { h.Profile = strings.Repeat("p", 129) }, correct},
		{"a profile with a newline", func(h *protocol.Hello) { h.Profile = "p\n1" }, correct},
		{"no browser session", func(h *protocol.Hello) { h.BrowserSession = "" }, correct},
		{"a browser session over 128 bytes", func(h *protocol.Hello) { h.BrowserSession = strings.Repeat("s", 129) }, correct},
		{"a browser session with a carriage return", func(h *protocol.Hello) { h.BrowserSession = "s\r1" }, correct},
		{"a short nonce", func(h *protocol.Hello) { h.Nonce = h.Nonce[:32] }, correct},
		{"no proof", nil, func([]byte, bridge.Transcript) string { return "" }},
		{"a proof that is not hex", nil, func([]byte, bridge.Transcript) string { return strings.Repeat("zz", 32) }},
		{"a truncated proof", nil, func(s []byte, tr bridge.Transcript) string { return correct(s, tr)[:62] }},
		{"the right proof in capitals", nil, func(s []byte, tr bridge.Transcript) string { return strings.ToUpper(correct(s, tr)) }},
		{"a nonce in capitals", func(h *protocol.Hello) { h.Nonce = strings.ToUpper(h.Nonce) }, correct},
		{"the app's proof reflected", nil, func(s []byte, tr bridge.Transcript) string { return bridge.AppProof(s, tr) }},
		{"the session key as the proof", nil, func(s []byte, tr bridge.Transcript) string { return hex.EncodeToString(bridge.SessionKey(s, tr)) }},
		{"nonces swapped", nil, func(s []byte, tr bridge.Transcript) string {
			tr.AppNonce, tr.ExtNonce = tr.ExtNonce, tr.AppNonce
			return bridge.ExtensionProof(s, tr)
		}},
		{"a proof for another profile", nil, func(s []byte, tr bridge.Transcript) string {
			tr.Profile = "q"
			return bridge.ExtensionProof(s, tr)
		}},
		// A relay: the proof is made, and the hello says so, for another port.
		{"a proof for the port the hello names, not the bridge's", func(h *protocol.Hello) { h.Port++ }, func(s []byte, tr bridge.Transcript) string {
			tr.Port++
			return bridge.ExtensionProof(s, tr)
		}},
		// A relay that rewrote the port in the hello to hide.
		{"a proof for another port under the bridge's own", nil, func(s []byte, tr bridge.Transcript) string {
			tr.Port++
			return bridge.ExtensionProof(s, tr)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, nil)
			conn := h.rawDial(extension.Origin)
			appNonce := readChallenge(t, conn)
			hello := protocol.Hello{Version: protocol.Version, Port: h.s.Port(), Extension: "0.1.0", Browser: "test", Profile: "p", BrowserSession: "s", Nonce: strings.Repeat("ab", 32)}
			tr := bridge.Transcript{Port: h.s.Port(), AppNonce: appNonce, ExtNonce: hello.Nonce, Profile: hello.Profile}
			if c.mutate != nil {
				c.mutate(&hello)
			}
			hello.Proof = c.proof(h.secret, tr)
			params, _ := json.Marshal(hello)
			writeMessage(t, conn, &protocol.Message{ID: "h1", Method: protocol.MethodHello, Params: params})
			m := readMessage(t, conn)
			if m.ID != "h1" || m.Error == nil || m.Error.Code != protocol.CodeUnauthorized {
				t.Fatalf("answer %+v, want an %s error for h1", m, protocol.CodeUnauthorized)
			}
			if got := closeStatus(t, conn); got != websocket.StatusPolicyViolation {
				t.Errorf("close status %v, want %v", got, websocket.StatusPolicyViolation)
			}
			if peers := h.s.Peers(); len(peers) != 0 {
				t.Errorf("Peers = %+v", peers)
			}
		})
	}
}

// The control for TestHelloIsChecked: the same hand-built hello, unchanged,
// is welcomed, and the welcome proves the app knows the secret.
func TestWelcomeProvesTheSecret(t *testing.T) {
	h := start(t, nil)
	conn := h.rawDial(extension.Origin)
	appNonce := readChallenge(t, conn)
	extNonce := strings.Repeat("ab", 32)
	tr := bridge.Transcript{Port: h.s.Port(), AppNonce: appNonce, ExtNonce: extNonce, Profile: "p"}
	params, _ := json.Marshal(protocol.Hello{
		Version: protocol.Version, Port: h.s.Port(), Extension: "0.1.0", Browser: "test", Profile: "p", BrowserSession: "s", Nonce: extNonce,
		Proof: bridge.ExtensionProof(h.secret, tr),
	})
	writeMessage(t, conn, &protocol.Message{ID: "h1", Method: protocol.MethodHello, Params: params})
	m := readMessage(t, conn)
	var w protocol.Welcome
	if m.ID != "h1" || m.Kind() != protocol.KindResponse || m.Error != nil || json.Unmarshal(m.Result, &w) != nil {
		t.Fatalf("answer %+v, want a welcome for h1", m)
	}
	if w.Version != protocol.Version || w.Proof != bridge.AppProof(h.secret, tr) {
		t.Errorf("welcome %+v does not carry the app's proof", w)
	}
	h.waitFor(bridge.EventConnected, "p")
}

func TestHelloTimeoutClosesTheConnection(t *testing.T) {
	h := start(t, func(o *bridge.Options) { o.HelloTimeout = 100 * time.Millisecond })
	c := h.rawDial(extension.Origin)
	readChallenge(t, c)
	// Well under the 10 s default, so it is the option that acted.
	const bound = 3 * time.Second
	ctx := ctxFor(t, bound)
	_, _, err := c.Read(ctx)
	if err == nil {
		t.Fatal("the bridge sent something instead of closing")
	}
	if ctx.Err() != nil {
		t.Fatalf("the bridge kept a silent connection open for %v", bound)
	}
	if peers := h.s.Peers(); len(peers) != 0 {
		t.Errorf("Peers = %+v", peers)
	}
}

func TestStartRefusesNonLoopbackAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "192.0.2.1:0", "example.com:0"} {
		t.Run(addr, func(t *testing.T) {
			s, err := bridge.New(bridge.Options{Addr: addr, Origin: extension.Origin, Secret: newSecret(t), Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Start()
			if err == nil {
				s.Close()
				t.Fatalf("Start listened on %s", addr)
			}
			if !strings.Contains(err.Error(), "loopback") {
				t.Errorf("error %q does not say why", err)
			}
			if s.Port() != 0 {
				t.Errorf("Port = %d after a refused Start", s.Port())
			}
		})
	}
}

func TestStartListensOnIPv6Loopback(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	ln.Close()
	h := start(t, func(o *bridge.Options) { o.Addr = "[::1]:0" })
	if h.s.Port() == 0 {
		t.Fatal("no port")
	}
}

func TestNewRequiresOriginAndSecret(t *testing.T) {
	if _, err := bridge.New(bridge.Options{Secret: newSecret(t)}); err == nil {
		t.Error("New accepted no Origin")
	}
	if _, err := bridge.New(bridge.Options{Origin: extension.Origin, Secret: make([]byte, 15)}); err == nil {
		t.Error("New accepted a 15-byte secret")
	}
	if _, err := bridge.New(bridge.Options{Origin: extension.Origin, Secret: make([]byte, 16)}); err != nil {
		t.Errorf("New refused a 16-byte secret: %v", err)
	}
}

func TestPairingVectors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("protocol", "testdata", "pairing_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Secret, AppNonce, ExtensionNonce, Profile, ExtensionProof, AppProof, SessionKey string
		Port                                                                            int
		Sealed                                                                          []struct {
			Direction, Message, Frame string
			Seq                       uint64
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	secret, err := hex.DecodeString(v.Secret)
	if err != nil {
		t.Fatal(err)
	}
	tr := bridge.Transcript{Port: v.Port, AppNonce: v.AppNonce, ExtNonce: v.ExtensionNonce, Profile: v.Profile}
	if got := bridge.ExtensionProof(secret, tr); got != v.ExtensionProof {
		t.Errorf("ExtensionProof = %s, want %s", got, v.ExtensionProof)
	}
	if got := bridge.AppProof(secret, tr); got != v.AppProof {
		t.Errorf("AppProof = %s, want %s", got, v.AppProof)
	}
	key := bridge.SessionKey(secret, tr)
	if got := hex.EncodeToString(key); got != v.SessionKey {
		t.Errorf("SessionKey = %s, want %s", got, v.SessionKey)
	}
	// The two proofs and the key must all differ over the same transcript,
	// or one could be replayed as another.
	if bridge.ExtensionProof(secret, tr) == bridge.AppProof(secret, tr) || bridge.AppProof(secret, tr) == hex.EncodeToString(key) {
		t.Error("the extension's proof, the app's proof and the session key are not all different")
	}
	// Each direction's sealer makes the vectors' frames, and the other
	// side opens them.
	sealers := map[string]*bridge.Session{
		bridge.AppToExtension: bridge.NewSession(key, bridge.AppToExtension),
		bridge.ExtensionToApp: bridge.NewSession(key, bridge.ExtensionToApp),
	}
	openers := map[string]*bridge.Session{
		bridge.AppToExtension: bridge.NewSession(key, bridge.ExtensionToApp),
		bridge.ExtensionToApp: bridge.NewSession(key, bridge.AppToExtension),
	}
	for _, m := range v.Sealed {
		if got := string(sealers[m.Direction].Seal([]byte(m.Message))); got != m.Frame {
			t.Errorf("%s #%d sealed as %q, want %q", m.Direction, m.Seq, got, m.Frame)
		}
		body, err := openers[m.Direction].Open([]byte(m.Frame))
		if err != nil || string(body) != m.Message {
			t.Errorf("%s #%d opened as %q, %v", m.Direction, m.Seq, body, err)
		}
	}
}
