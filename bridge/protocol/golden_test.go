package protocol_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reins-app/reins/bridge/protocol"
)

// golden lists every message file under testdata/ with what it must be. The
// extension's tests read the same files, so a field renamed on one side only
// breaks here first.
var golden = []struct {
	file   string
	kind   protocol.Kind
	method string
	// payload is a fresh value of the type the params, result or error
	// must decode into.
	payload func() any
}{
	{"challenge.json", protocol.KindEvent, protocol.MethodChallenge, func() any { return new(protocol.Challenge) }},
	{"hello.json", protocol.KindRequest, protocol.MethodHello, func() any { return new(protocol.Hello) }},
	{"welcome.json", protocol.KindResponse, "", func() any { return new(protocol.Welcome) }},
	{"tabs_request.json", protocol.KindRequest, protocol.MethodTabs, func() any { return new(struct{}) }},
	{"tabs_result.json", protocol.KindResponse, "", func() any { return new(protocol.TabsResult) }},
	{"snapshot_result.json", protocol.KindResponse, "", func() any { return new(protocol.SnapshotResult) }},
	{"resolve_request.json", protocol.KindRequest, protocol.MethodResolve, func() any { return new(protocol.ResolveParams) }},
	{"resolve_result.json", protocol.KindResponse, "", func() any { return new(protocol.ResolveResult) }},
	{"error_response.json", protocol.KindResponse, "", func() any { return new(protocol.Error) }},
	{"navigated_event.json", protocol.KindEvent, protocol.EventNavigated, func() any { return new(protocol.Navigated) }},
	{"calibration_event.json", protocol.KindEvent, protocol.EventCalibration, func() any { return new(protocol.Calibration) }},
	{"zoom_event.json", protocol.KindEvent, protocol.EventZoom, func() any { return new(protocol.Zoom) }},
	{"shares_event.json", protocol.KindEvent, protocol.EventShares, func() any { return new(protocol.Shares) }},
	{"activity_event.json", protocol.KindEvent, protocol.EventActivity, func() any { return new(protocol.Activity) }},
	{"tab_state_event.json", protocol.KindEvent, protocol.EventTabState, func() any { return new(protocol.TabState) }},
	{"stop_sharing_request.json", protocol.KindRequest, protocol.MethodStopSharing, func() any { return new(protocol.StopSharing) }},
	{"pause_all_request.json", protocol.KindRequest, protocol.MethodPauseAll, func() any { return new(struct{}) }},
	{"busy_error_response.json", protocol.KindResponse, "", func() any { return new(protocol.Error) }},
	{"changed_error_response.json", protocol.KindResponse, "", func() any { return new(protocol.Error) }},
	{"reach_error_response.json", protocol.KindResponse, "", func() any { return new(protocol.Error) }},
	{"settle_request.json", protocol.KindRequest, protocol.MethodSettle, func() any { return new(protocol.SettleParams) }},
	{"focus_request.json", protocol.KindRequest, protocol.MethodFocus, func() any { return new(protocol.FocusParams) }},
	{"focus_result.json", protocol.KindResponse, "", func() any { return new(protocol.FocusResult) }},
}

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// strictUnmarshal fails on any field the Go type does not know, which is
// how a field added on the JavaScript side only is caught.
func strictUnmarshal(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// normalise makes two encodings comparable regardless of key order and
// whitespace; numbers become float64 on both sides.
func normalise(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("normalising %s: %v", data, err)
	}
	return v
}

func TestGoldenMessages(t *testing.T) {
	for _, g := range golden {
		t.Run(g.file, func(t *testing.T) {
			data := readGolden(t, g.file)
			m, err := protocol.Decode(data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if m.Kind() != g.kind {
				t.Errorf("Kind = %v, want %v", m.Kind(), g.kind)
			}
			if m.Method != g.method {
				t.Errorf("Method = %q, want %q", m.Method, g.method)
			}
			var envelope protocol.Message
			if err := strictUnmarshal(data, &envelope); err != nil {
				t.Fatalf("the envelope has a field Message does not know: %v", err)
			}

			var raw []byte
			switch {
			case m.Error != nil:
				raw, _ = json.Marshal(m.Error)
			case m.Kind() == protocol.KindResponse:
				raw = m.Result
			default:
				raw = m.Params
			}
			payload := g.payload()
			if err := strictUnmarshal(raw, payload); err != nil {
				t.Fatalf("payload does not fit %T strictly: %v", payload, err)
			}

			again, err := json.Marshal(payload)
			if err != nil {
				t.Fatal(err)
			}
			out := protocol.Message{ID: m.ID, Method: m.Method}
			switch {
			case m.Error != nil:
				out.Error = payload.(*protocol.Error)
			case m.Kind() == protocol.KindResponse:
				out.Result = again
			default:
				out.Params = again
			}
			encoded, err := json.Marshal(&out)
			if err != nil {
				t.Fatal(err)
			}
			if want, got := normalise(t, data), normalise(t, encoded); !reflect.DeepEqual(want, got) {
				t.Errorf("re-encoding through %T changed the message\n golden: %s\n    got: %s", payload, compact(data), encoded)
			}
		})
	}
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// Every golden file must be listed above, or it is checked by nothing.
func TestGoldenFilesAreAllListed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{"pairing_vectors.json": true}
	for _, g := range golden {
		listed[g.file] = true
	}
	for _, f := range files {
		if !listed[filepath.Base(f)] {
			t.Errorf("%s is not in the golden table", f)
		}
	}
	if len(files) != len(listed) {
		t.Errorf("testdata holds %d files, the table names %d", len(files), len(listed))
	}
}

// The snapshot golden is the one that carries frame pairing: the iframe
// node's descriptor in the parent and the child frame's own report must name
// the same window.frames position.
func TestGoldenSnapshotPairsIframeWithItsFrame(t *testing.T) {
	m, err := protocol.Decode(readGolden(t, "snapshot_result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r protocol.SnapshotResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Frames) != 2 {
		t.Fatalf("%d frames, want 2", len(r.Frames))
	}
	top, child := r.Frames[0], r.Frames[1]
	if top.Parent != -1 || child.Parent != top.Frame {
		t.Fatalf("frame parents: top %d, child %d", top.Parent, child.Parent)
	}
	var iframe *protocol.Node
	var walk func(n *protocol.Node)
	walk = func(n *protocol.Node) {
		if n.Frame != nil {
			iframe = n
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(top.Root)
	if iframe == nil {
		t.Fatal("no node with a frame descriptor in the top frame")
	}
	if iframe.Frame.Index != child.Index || iframe.Frame.Src != child.URL {
		t.Errorf("iframe descriptor %+v does not match child frame (index %d, url %s)", *iframe.Frame, child.Index, child.URL)
	}
	if !child.Truncated {
		t.Error("the child frame's truncated flag was lost")
	}
}

type pairingVectors struct {
	Comment        string `json:"comment"`
	Secret         string `json:"secret"`
	Port           int    `json:"port"`
	AppNonce       string `json:"appNonce"`
	ExtensionNonce string `json:"extensionNonce"`
	Profile        string `json:"profile"`
	ExtensionProof string `json:"extensionProof"`
	AppProof       string `json:"appProof"`
	SessionKey     string `json:"sessionKey"`
	Sealed         []struct {
		Direction string `json:"direction"`
		Seq       int    `json:"seq"`
		Message   string `json:"message"`
		Frame     string `json:"frame"`
	} `json:"sealed"`
}

// The vectors are checked against the formula written in Hello's and
// Welcome's doc comments, computed here without the bridge, so that the
// comment, the Go code (bridge tests) and sw.js cannot drift apart.
func TestPairingVectorsFollowTheDocumentedFormula(t *testing.T) {
	var v pairingVectors
	if err := strictUnmarshal(readGolden(t, "pairing_vectors.json"), &v); err != nil {
		t.Fatal(err)
	}
	secret, err := hex.DecodeString(v.Secret)
	if err != nil || len(secret) != 32 {
		t.Fatalf("secret must be 32 bytes of hex: %v", err)
	}
	h := func(key []byte, text string) string {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(text))
		return hex.EncodeToString(m.Sum(nil))
	}
	bound := fmt.Sprintf("\n%d\n%s\n%s\n%s", v.Port, v.AppNonce, v.ExtensionNonce, v.Profile)
	if got := h(secret, "reins-extension"+bound); got != v.ExtensionProof {
		t.Errorf("extension proof = %s, vector says %s", got, v.ExtensionProof)
	}
	if got := h(secret, "reins-app"+bound); got != v.AppProof {
		t.Errorf("app proof = %s, vector says %s", got, v.AppProof)
	}
	if got := h(secret, "reins-session"+bound); got != v.SessionKey {
		t.Errorf("session key = %s, vector says %s", got, v.SessionKey)
	}
	key, _ := hex.DecodeString(v.SessionKey)
	dirs := map[string]bool{}
	for _, m := range v.Sealed {
		dirs[m.Direction] = true
		seq := fmt.Sprint(m.Seq)
		if want := seq + " " + h(key, m.Direction+"\n"+seq+"\n"+m.Message) + "\n" + m.Message; m.Frame != want {
			t.Errorf("sealed %s #%d = %q, the formula gives %q", m.Direction, m.Seq, m.Frame, want)
		}
		if _, err := protocol.Decode([]byte(m.Message)); err != nil {
			t.Errorf("sealed %s #%d carries no message: %v", m.Direction, m.Seq, err)
		}
	}
	if !dirs["app-to-extension"] || !dirs["extension-to-app"] {
		t.Errorf("the vectors seal in directions %v; both are needed", dirs)
	}
}

// The handshake goldens are one conversation under the pairing vectors, so
// an extension test replaying them pairs for real.
func TestHandshakeGoldensUseThePairingVectors(t *testing.T) {
	var v pairingVectors
	if err := json.Unmarshal(readGolden(t, "pairing_vectors.json"), &v); err != nil {
		t.Fatal(err)
	}
	decode := func(file string, m **protocol.Message, into any) {
		t.Helper()
		var err error
		if *m, err = protocol.Decode(readGolden(t, file)); err != nil {
			t.Fatal(err)
		}
		raw := (*m).Params
		if (*m).Kind() == protocol.KindResponse {
			raw = (*m).Result
		}
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatal(err)
		}
	}
	var cm, hm, wm *protocol.Message
	var c protocol.Challenge
	var h protocol.Hello
	var w protocol.Welcome
	decode("challenge.json", &cm, &c)
	decode("hello.json", &hm, &h)
	decode("welcome.json", &wm, &w)
	if c.Nonce != v.AppNonce || h.Nonce != v.ExtensionNonce {
		t.Errorf("nonces: challenge %s hello %s, vectors %s %s", c.Nonce, h.Nonce, v.AppNonce, v.ExtensionNonce)
	}
	if h.Proof != v.ExtensionProof || w.Proof != v.AppProof {
		t.Errorf("proofs: hello %s welcome %s, vectors %s %s", h.Proof, w.Proof, v.ExtensionProof, v.AppProof)
	}
	if h.Port != v.Port || h.Profile != v.Profile {
		t.Errorf("hello names port %d and profile %q, vectors %d %q", h.Port, h.Profile, v.Port, v.Profile)
	}
	if h.Version != protocol.Version || w.Version != protocol.Version {
		t.Errorf("versions %d/%d, protocol is %d", h.Version, w.Version, protocol.Version)
	}
	// sw.js names its hello "h" + the first 8 hex digits of its nonce.
	if hm.ID != "h"+v.ExtensionNonce[:8] || wm.ID != hm.ID {
		t.Errorf("hello id %q, welcome id %q, want %q", hm.ID, wm.ID, "h"+v.ExtensionNonce[:8])
	}
}

// The share golden is what the extension's badge test replays: it must
// carry every level, and an unshared tab without an origin.
func TestGoldenSharesCarryEveryLevel(t *testing.T) {
	m, err := protocol.Decode(readGolden(t, "shares_event.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s protocol.Shares
	if err := json.Unmarshal(m.Params, &s); err != nil {
		t.Fatal(err)
	}
	levels := map[string]bool{}
	for _, ts := range s.Tabs {
		levels[ts.Level] = true
		if (ts.Level == protocol.LevelNone) != (ts.Origin == "") {
			t.Errorf("tab %d at %s with origin %q: only a shared tab is bound to an origin", ts.Tab, ts.Level, ts.Origin)
		}
	}
	for _, l := range []string{protocol.LevelNone, protocol.LevelRead, protocol.LevelControl} {
		if !levels[l] {
			t.Errorf("no tab at level %s", l)
		}
	}
}

// Only the two requests that take power away may come from the extension.
func TestExtensionMayAskOnlyToTakePowerAway(t *testing.T) {
	for _, m := range []string{protocol.MethodStopSharing, protocol.MethodPauseAll} {
		if !protocol.ExtensionMayAsk(m) {
			t.Errorf("%s is refused", m)
		}
	}
	for _, m := range []string{
		"", protocol.MethodHello, protocol.MethodTabs, protocol.MethodSnapshot, protocol.MethodCapture, protocol.EventShares,
		"share", "set_share", "resume", "pause", "approve", "answer", "allow", "allow_agent", "handoff_done", "STOP_SHARING", "stop_sharing ",
	} {
		if protocol.ExtensionMayAsk(m) {
			t.Errorf("the extension may ask %q", m)
		}
	}
}
