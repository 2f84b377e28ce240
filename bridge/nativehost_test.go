package bridge_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reins-app/reins/bridge"
	"github.com/reins-app/reins/extension"
)

// chromeCaller is how Chrome names the calling extension in the host's first
// argument: the origin with a trailing slash.
const chromeCaller = extension.Origin + "/"

// nativeRequest frames body the way Chrome does: a 32-bit length in native
// byte order, then the JSON.
func nativeRequest(body string) *bytes.Buffer {
	var b bytes.Buffer
	binary.Write(&b, binary.NativeEndian, uint32(len(body)))
	b.WriteString(body)
	return &b
}

// nativeReply unframes the host's one answer, failing on a length that does
// not match what follows.
func nativeReply(t *testing.T, out *bytes.Buffer) map[string]any {
	t.Helper()
	var n uint32
	if err := binary.Read(out, binary.NativeEndian, &n); err != nil {
		t.Fatalf("no reply length: %v", err)
	}
	if int(n) != out.Len() {
		t.Fatalf("reply length says %d, %d bytes follow", n, out.Len())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("reply %q is not JSON: %v", out.Bytes(), err)
	}
	return m
}

// pairedDir is a data folder as a running Reins leaves it.
func pairedDir(t *testing.T, port int) (dir string, secret []byte) {
	t.Helper()
	dir = t.TempDir()
	secret, err := bridge.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := bridge.WriteAddress(dir, bridge.Address{Port: port, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

func TestNativeHostHandsOverPortAndSecret(t *testing.T) {
	dir, secret := pairedDir(t, 41234)
	var out bytes.Buffer
	if err := bridge.ServeNativeHost(nativeRequest(`{"type":"pair"}`), &out, dir, chromeCaller, extension.Origin); err != nil {
		t.Fatal(err)
	}
	got := nativeReply(t, &out)
	want := map[string]any{"port": float64(41234), "secret": hex.EncodeToString(secret)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reply = %v, want %v", got, want)
	}
}

// Whatever the host refuses, it answers in words sw.js can show, and never
// with any part of the secret.
func TestNativeHostRefusals(t *testing.T) {
	cases := []struct {
		name    string
		request string
		caller  string
		setup   func(t *testing.T, dir string)
		want    string
	}{
		{"another extension", `{"type":"pair"}`, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/", nil, "this host serves only the Reins extension"},
		{"no caller", `{"type":"pair"}`, "", nil, "this host serves only the Reins extension"},
		{"a caller that only starts like ours", `{"type":"pair"}`, extension.Origin + "x/", nil, "this host serves only the Reins extension"},
		{"an unknown request", `{"type":"secrets"}`, chromeCaller, nil, "unknown request"},
		{"a request that is not JSON", `pair`, chromeCaller, nil, "unknown request"},
		{"Reins is not running", `{"type":"pair"}`, chromeCaller,
			func(t *testing.T, dir string) { bridge.RemoveAddress(dir) }, "Reins is not running"},
		{"a damaged address file", `{"type":"pair"}`, chromeCaller,
			func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, bridge.AddressFile), []byte(`{"port":0}`), 0o600)
			}, "Reins is not running"},
		{"no secret yet", `{"type":"pair"}`, chromeCaller,
			func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, bridge.SecretFile)) }, "Reins has not been set up"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, secret := pairedDir(t, 41234)
			if c.setup != nil {
				c.setup(t, dir)
			}
			var out bytes.Buffer
			if err := bridge.ServeNativeHost(nativeRequest(c.request), &out, dir, c.caller, extension.Origin); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out.Bytes(), []byte(hex.EncodeToString(secret)[:16])) {
				t.Fatal("the reply carries the secret")
			}
			got := nativeReply(t, &out)
			if want := map[string]any{"error": c.want}; !reflect.DeepEqual(got, want) {
				t.Errorf("reply = %v, want %v", got, want)
			}
		})
	}
}

func TestNativeHostRejectsBadFraming(t *testing.T) {
	dir, _ := pairedDir(t, 41234)
	cases := map[string]io.Reader{
		"a length over 64 KiB": nativeRequest(strings.Repeat(" ", 64<<10+1)),
		"a 4 GiB length":       bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}),
		"no length":            bytes.NewReader(nil),
		"a short length":       bytes.NewReader([]byte{1, 0}),
		"fewer bytes than announced": func() io.Reader {
			b := nativeRequest(`{"type":"pair"}`)
			b.Truncate(b.Len() - 1)
			return b
		}(),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := bridge.ServeNativeHost(in, &out, dir, chromeCaller, extension.Origin); err == nil {
				t.Error("ServeNativeHost accepted it")
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q in reply to a broken request", out.Bytes())
			}
		})
	}
	// The largest allowed length is read, not refused.
	var out bytes.Buffer
	body := `{"type":"pair"}` + strings.Repeat(" ", 64<<10-len(`{"type":"pair"}`))
	if err := bridge.ServeNativeHost(nativeRequest(body), &out, dir, chromeCaller, extension.Origin); err != nil {
		t.Fatalf("a request of exactly 64 KiB: %v", err)
	}
	if got := nativeReply(t, &out); got["port"] != float64(41234) {
		t.Errorf("reply = %v", got)
	}
}

func TestLoadOrCreateSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fresh", "data")
	first, err := bridge.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Fatalf("secret = %x, want 32 random bytes", first)
	}
	p := filepath.Join(dir, bridge.SecretFile)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("secret file mode %o, want 600", mode)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm()&0o077 != 0 {
		t.Errorf("data folder mode %o is open to others", di.Mode().Perm())
	}
	// sw.js accepts exactly 64 lowercase hex digits from the host.
	if b, _ := os.ReadFile(p); !regexpHex64(strings.TrimSpace(string(b))) {
		t.Errorf("secret file holds %q, not 64 lowercase hex digits", b)
	}

	second, err := bridge.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Error("the second call made a new secret")
	}
	if other, _ := bridge.LoadOrCreateSecret(t.TempDir()); bytes.Equal(first, other) {
		t.Error("two installs got the same secret")
	}

	os.WriteFile(p, []byte("not hex"), 0o600)
	if _, err := bridge.LoadOrCreateSecret(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged secret file: err = %v, want it called damaged", err)
	}
}

func regexpHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func TestWriteAddressIsOwnerOnlyAndReplaced(t *testing.T) {
	dir := t.TempDir()
	for _, port := range []int{1111, 2222} {
		if err := bridge.WriteAddress(dir, bridge.Address{Port: port, PID: 7}); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, bridge.AddressFile)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("address file mode %o, want 600", mode)
	}
	b, _ := os.ReadFile(p)
	var a bridge.Address
	if err := json.Unmarshal(b, &a); err != nil || a != (bridge.Address{Port: 2222, PID: 7}) {
		t.Errorf("address file holds %s", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only %s", len(entries), bridge.AddressFile)
	}
	bridge.RemoveAddress(dir)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("RemoveAddress left the file: %v", err)
	}
}

func TestInstallHostManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "NativeMessagingHosts")
	exe := "/opt/reins/bin/reins"
	for _, origin := range []string{extension.Origin, extension.Origin + "/"} {
		p, err := bridge.InstallHostManifest(dir, extension.NativeHost, exe, origin)
		if err != nil {
			t.Fatal(err)
		}
		if p != filepath.Join(dir, extension.NativeHost+".json") {
			t.Errorf("manifest written to %s", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m bridge.HostManifest
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m.AllowedOrigins, []string{extension.Origin + "/"}) {
			t.Errorf("given %q: allowed_origins = %q, want exactly [%q]", origin, m.AllowedOrigins, extension.Origin+"/")
		}
		if m.Name != extension.NativeHost || m.Path != exe || m.Type != "stdio" {
			t.Errorf("manifest = %+v", m)
		}
	}
}

func TestInstallHostManifestRefusesARelativePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "NativeMessagingHosts")
	for _, exe := range []string{"reins", "./reins", "bin/reins", ""} {
		if _, err := bridge.InstallHostManifest(dir, extension.NativeHost, exe, extension.Origin); err == nil {
			t.Errorf("accepted host path %q", exe)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused install still touched %s", dir)
	}
}
