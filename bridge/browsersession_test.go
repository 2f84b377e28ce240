package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/bridge/bridgetest"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/extension"
)

// An extension that names no browser session is from another release: it
// is refused, with words that say what to do, even with the right proof.
func TestHelloWithoutBrowserSessionIsRefusedWithTheReason(t *testing.T) {
	h := start(t, nil)
	conn := h.rawDial(extension.Origin)
	appNonce := readChallenge(t, conn)
	extNonce := strings.Repeat("ab", 32)
	tr := bridge.Transcript{Port: h.s.Port(), AppNonce: appNonce, ExtNonce: extNonce, Profile: "p"}
	params, _ := json.Marshal(protocol.Hello{
		Version: protocol.Version, Port: h.s.Port(), Extension: "0.1.0", Browser: "test", Profile: "p", Nonce: extNonce,
		Proof: bridge.ExtensionProof(h.secret, tr),
	})
	writeMessage(t, conn, &protocol.Message{ID: "h1", Method: protocol.MethodHello, Params: params})
	m := readMessage(t, conn)
	if m.ID != "h1" || m.Error == nil || m.Error.Code != protocol.CodeUnauthorized {
		t.Fatalf("answer %+v, want an %s error for h1", m, protocol.CodeUnauthorized)
	}
	if msg := m.Error.Message; !strings.Contains(msg, "no browser session") || !strings.Contains(msg, "same release") {
		t.Errorf("the refusal reads %q; it must say the hello named no browser session and what to do", msg)
	}
	if peers := h.s.Peers(); len(peers) != 0 {
		t.Errorf("Peers = %+v", peers)
	}
}

// The connected event and the peer list carry the browser session the hello
// named: the same one again for a restarted service worker, another after
// the browser restarted.
func TestConnectedEventCarriesTheBrowserSession(t *testing.T) {
	h := start(t, nil)
	dial := func(session string) {
		t.Helper()
		ext, err := bridgetest.Dial(ctxFor(t, patience), bridgetest.DialOptions{
			URL: h.url, Origin: extension.Origin, Secret: h.secret, Profile: "p", BrowserSession: session,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ext.Close() })
		if ev := h.waitFor(bridge.EventConnected, "p"); ev.BrowserSession != session {
			t.Fatalf("connected event names browser session %q, the hello %q", ev.BrowserSession, session)
		}
		if peers := h.s.Peers(); len(peers) != 1 || peers[0].BrowserSession != session {
			t.Fatalf("Peers = %+v, want one peer in browser session %q", peers, session)
		}
	}
	dial("first")
	dial("first")
	dial("second")
}
