package bridge

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/internal/atomicfile"
)

// SecretFile and AddressFile are the names of the pairing files in the data
// folder. Both are owner-only.
const (
	SecretFile  = "bridge.secret"
	AddressFile = "bridge.json"
)

// LoadOrCreateSecret returns the per-install secret kept in dir, making one
// the first time.
func LoadOrCreateSecret(dir string) ([]byte, error) {
	p := filepath.Join(dir, SecretFile)
	b, err := os.ReadFile(p)
	if err == nil {
		s, derr := hex.DecodeString(strings.TrimSpace(string(b)))
		if derr == nil && len(s) == 32 {
			return s, nil
		}
		return nil, fmt.Errorf("the pairing secret in %s is damaged; delete the file and restart Reins", p)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	s := make([]byte, 32)
	if _, err := rand.Read(s); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(hex.EncodeToString(s)); err != nil {
		f.Close()
		return nil, err
	}
	return s, f.Close()
}

// Address is what the running app publishes for the native host.
type Address struct {
	Port int `json:"port"`
	PID  int `json:"pid"`
}

// WriteAddress publishes the bridge's port in dir, owner-only.
func WriteAddress(dir string, a Address) error {
	b, _ := json.Marshal(a)
	return atomicfile.Write(filepath.Join(dir, AddressFile), b, 0o600)
}

// RemoveAddress withdraws it when the app stops.
func RemoveAddress(dir string) { os.Remove(filepath.Join(dir, AddressFile)) }

// Refusal is a hello that parsed but does not pair; Why is sent back to
// the extension.
type Refusal struct {
	Why string
	// Relayed is the port the hello's valid proof was made for, when that
	// is not the port Reins listens on: only a relay explains it.
	Relayed int
}

func (r *Refusal) Error() string { return r.Why }

// CheckHello checks data, the first message on a connection to port after
// the challenge with appNonce, and returns the hello's request id, the
// hello and the transcript both sides' proofs and the session key cover. A
// hello that parsed but does not pair is a *Refusal (with the id, to answer
// it); anything else that fails is not worth an answer. It never panics,
// whatever data holds.
func CheckHello(secret []byte, port int, appNonce string, data []byte) (id string, h protocol.Hello, tr Transcript, err error) {
	if len(data) > protocol.MaxHandshakeBytes {
		return "", h, tr, fmt.Errorf("a hello of %d bytes is over the %d byte limit", len(data), protocol.MaxHandshakeBytes)
	}
	m, err := protocol.Decode(data)
	if err != nil {
		return "", h, tr, err
	}
	if m.Kind() != protocol.KindRequest || m.Method != protocol.MethodHello {
		return "", h, tr, fmt.Errorf("first message was %q, not hello", m.Method)
	}
	if err := json.Unmarshal(m.Params, &h); err != nil {
		return "", h, tr, fmt.Errorf("bad hello: %w", err)
	}
	refuse := func(r *Refusal) (string, protocol.Hello, Transcript, error) { return m.ID, h, tr, r }
	if h.Version != protocol.Version {
		return refuse(&Refusal{Why: fmt.Sprintf("protocol version %d is not %d; update the Reins extension and Reins to the same release", h.Version, protocol.Version)})
	}
	if !lowerHex64(h.Nonce) || !idLike(h.Profile) {
		return refuse(&Refusal{Why: "hello lacks a nonce or profile"})
	}
	// Reins and its extension ship together, so an extension that names no
	// browser session is from another release. Let in, it would keep its
	// tabs' shares across a restart of the browser.
	if h.BrowserSession == "" {
		return refuse(&Refusal{Why: "hello names no browser session: the Reins extension is from another release than Reins; update both to the same release"})
	}
	if !idLike(h.BrowserSession) {
		return refuse(&Refusal{Why: "hello's browser session is not one line of at most 128 bytes"})
	}
	tr = Transcript{Port: port, AppNonce: appNonce, ExtNonce: h.Nonce, Profile: h.Profile}
	if checkProof(h.Proof, ExtensionProof(secret, tr)) {
		return m.ID, h, tr, nil
	}
	claimed := tr
	claimed.Port = h.Port
	if h.Port != port && h.Port > 0 && h.Port < 65536 && checkProof(h.Proof, ExtensionProof(secret, claimed)) {
		// Only the extension can make this proof, and it made it for
		// another port: something there passed its hello on to us.
		return refuse(&Refusal{
			Why:     fmt.Sprintf("this hello was made for port %d, but Reins listens on %d: the connection was relayed", h.Port, port),
			Relayed: h.Port,
		})
	}
	return refuse(&Refusal{Why: "wrong pairing proof"})
}

// idLike reports whether s may name a profile or a browser session: a
// short line that is not empty.
func idLike(s string) bool {
	return s != "" && len(s) <= 128 && !strings.ContainsAny(s, "\r\n")
}

// checkProof compares a proof with the one expected, in constant time. Only
// the canonical spelling passes: 64 lowercase hex digits.
func checkProof(got, want string) bool {
	return lowerHex64(got) && hmac.Equal([]byte(got), []byte(want))
}

// lowerHex64 reports whether s is 32 bytes in lowercase hex.
func lowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func newNonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// HostManifest is the native messaging host manifest Chrome reads.
type HostManifest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Path           string   `json:"path"`
	Type           string   `json:"type"`
	AllowedOrigins []string `json:"allowed_origins"`
}

// InstallHostManifest writes the manifest naming exe as the host for the one
// extension origin into dir (a NativeMessagingHosts folder).
func InstallHostManifest(dir, name, exe, extensionOrigin string) (string, error) {
	if !filepath.IsAbs(exe) {
		return "", fmt.Errorf("the native host path must be absolute, got %q", exe)
	}
	m := HostManifest{
		Name:           name,
		Description:    "Reins pairing: hands the Reins extension its secret and port",
		Path:           exe,
		Type:           "stdio",
		AllowedOrigins: []string{strings.TrimSuffix(extensionOrigin, "/") + "/"},
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name+".json")
	return p, os.WriteFile(p, b, 0o644)
}

// maxNativeMessage bounds what the host reads: its one request is tiny.
const maxNativeMessage = 64 << 10

// ServeNativeHost answers one pairing request from Chrome on r/w with the
// secret and port found in dataDir. caller is the origin Chrome passed as the
// first argument; anything but wantOrigin is refused.
func ServeNativeHost(r io.Reader, w io.Writer, dataDir, caller, wantOrigin string) error {
	var n uint32
	if err := binary.Read(r, binary.NativeEndian, &n); err != nil {
		return fmt.Errorf("reading the request length: %w", err)
	}
	if n > maxNativeMessage {
		return fmt.Errorf("request of %d bytes is too large", n)
	}
	req := make([]byte, n)
	if _, err := io.ReadFull(r, req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	reply := func(v any) error {
		b, _ := json.Marshal(v)
		if err := binary.Write(w, binary.NativeEndian, uint32(len(b))); err != nil {
			return err
		}
		_, err := w.Write(b)
		return err
	}
	type failure struct {
		Error string `json:"error"`
	}
	if strings.TrimSuffix(caller, "/") != strings.TrimSuffix(wantOrigin, "/") {
		return reply(failure{"this host serves only the Reins extension"})
	}
	var m struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(req, &m) != nil || m.Type != "pair" {
		return reply(failure{"unknown request"})
	}
	b, err := os.ReadFile(filepath.Join(dataDir, AddressFile))
	if err != nil {
		return reply(failure{"Reins is not running"})
	}
	var a Address
	if json.Unmarshal(b, &a) != nil || a.Port == 0 {
		return reply(failure{"Reins is not running"})
	}
	s, err := os.ReadFile(filepath.Join(dataDir, SecretFile))
	if err != nil {
		return reply(failure{"Reins has not been set up"})
	}
	return reply(struct {
		Port   int    `json:"port"`
		Secret string `json:"secret"`
	}{a.Port, strings.TrimSpace(string(s))})
}
