package packaging

import (
	"archive/zip"
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/chromium"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// crxFile is a CRX3 as read back: its public keys, and the archive.
type crxFile struct {
	id      []byte   // SignedData.crx_id
	keys    [][]byte // each AsymmetricKeyProof's public key
	archive []byte
}

// readCRX reads and checks a CRX3 as Chromium's verifier does, written
// from the format's description and independent of CRX: the magic, the
// version, each RSA proof's signature over the signed data and the
// archive, and that the crx id is the first key's hash.
func readCRX(t *testing.T, b []byte) crxFile {
	t.Helper()
	if len(b) < 12 || string(b[:4]) != "Cr24" || binary.LittleEndian.Uint32(b[4:8]) != 3 {
		t.Fatalf("not a CRX3: % x", b[:min(12, len(b))])
	}
	n := binary.LittleEndian.Uint32(b[8:12])
	header, archive := b[12:12+n], b[12+n:]
	var f crxFile
	f.archive = archive
	var signed []byte
	type proof struct{ key, sig []byte }
	var proofs []proof
	fields(t, header, func(num uint64, v []byte) {
		switch num {
		case 2:
			var p proof
			fields(t, v, func(num uint64, w []byte) {
				switch num {
				case 1:
					p.key = w
				case 2:
					p.sig = w
				}
			})
			proofs = append(proofs, p)
		case 10000:
			signed = v
			fields(t, v, func(num uint64, w []byte) {
				if num == 1 {
					f.id = w
				}
			})
		}
	})
	if len(proofs) == 0 || len(f.id) != 16 {
		t.Fatalf("a CRX3 without an RSA proof or a 16-byte id: %d proofs, id % x", len(proofs), f.id)
	}
	var msg bytes.Buffer
	msg.WriteString("CRX3 SignedData\x00")
	binary.Write(&msg, binary.LittleEndian, uint32(len(signed)))
	msg.Write(signed)
	msg.Write(archive)
	digest := sha256.Sum256(msg.Bytes())
	for _, p := range proofs {
		pub, err := x509.ParsePKIXPublicKey(p.key)
		if err != nil {
			t.Fatalf("a proof's key: %v", err)
		}
		if err := rsa.VerifyPKCS1v15(pub.(*rsa.PublicKey), crypto.SHA256, digest[:], p.sig); err != nil {
			t.Fatalf("a proof's signature does not verify: %v", err)
		}
		f.keys = append(f.keys, p.key)
	}
	if sum := sha256.Sum256(f.keys[0]); !bytes.Equal(sum[:16], f.id) {
		t.Fatalf("the crx id is not the key's hash")
	}
	return f
}

// fields walks a protocol buffer's length-delimited fields.
func fields(t *testing.T, b []byte, each func(num uint64, v []byte)) {
	t.Helper()
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 || tag&7 != 2 {
			t.Fatalf("a field that is not length-delimited: tag %d", tag)
		}
		b = b[n:]
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			t.Fatal("a field's length runs past its end")
		}
		each(tag>>3, b[n:n+int(l)])
		b = b[n+int(l):]
	}
}

func testKey(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return key, path
}

// The CRX holds the extension's files whole and signed, under the id its
// key gives, as Chromium's own packer makes one of the same files and key.
func TestCRXIsWhatChromiumMakes(t *testing.T) {
	key, keyPath := testKey(t)
	crx, id, err := CRX(extension.Files(), key)
	if err != nil {
		t.Fatal(err)
	}
	ours := readCRX(t, crx)
	spki, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if id != ExtensionID(spki) || !bytes.Equal(ours.keys[0], spki) {
		t.Fatalf("id %s, want %s", id, ExtensionID(spki))
	}
	zr, err := zip.NewReader(bytes.NewReader(ours.archive), int64(len(ours.archive)))
	if err != nil {
		t.Fatalf("the archive: %v", err)
	}
	want, _ := extension.Files().Open("manifest.json")
	wantBytes, _ := io.ReadAll(want)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == "manifest.json" {
			r, _ := f.Open()
			got, _ := io.ReadAll(r)
			if !bytes.Equal(got, wantBytes) {
				t.Fatal("the archive's manifest.json is not the extension's")
			}
		}
	}
	for _, n := range []string{"manifest.json", "sw.js", "content.js", "panel.html"} {
		if !strings.Contains(strings.Join(names, " "), n) {
			t.Fatalf("the archive lacks %s: %v", n, names)
		}
	}
	again, _, _ := CRX(extension.Files(), key)
	if !bytes.Equal(readCRX(t, again).archive, ours.archive) {
		t.Fatal("the same files packed twice give different archives")
	}

	// Chromium's packer, the same files and key: the same format, key and id.
	bin, ok := chromium.Find()
	testenv.Need(t, ok, "Debian chromium, to compare with its packer")
	dir, err := extension.WriteTo(filepath.Join(t.TempDir(), "reins-ext"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--no-sandbox", "--headless=new", "--pack-extension="+dir, "--pack-extension-key="+keyPath, "--user-data-dir="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --pack-extension: %v\n%s", err, out)
	}
	theirs, err := os.ReadFile(dir + ".crx")
	if err != nil {
		t.Fatalf("chromium wrote no CRX: %v", err)
	}
	c := readCRX(t, theirs)
	if !bytes.Equal(c.keys[0], ours.keys[0]) || !bytes.Equal(c.id, ours.id) {
		t.Fatalf("Chromium's CRX of the same key has another key or id")
	}
}

// manifest.json's public key gives Reins' extension id: a CRX signed with
// its private half installs as the extension Reins pairs with.
func TestManifestKeyIsReinsExtensionID(t *testing.T) {
	f, _ := extension.Files().Open("manifest.json")
	var m struct{ Key string }
	if err := json.NewDecoder(f).Decode(&m); err != nil {
		t.Fatal(err)
	}
	spki, err := base64.StdEncoding.DecodeString(m.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got := ExtensionID(spki); got != extension.ID {
		t.Fatalf("the manifest's key gives %s, Reins pairs with %s", got, extension.ID)
	}
}

func TestCRXKeysAndUpdateManifest(t *testing.T) {
	key, path := testKey(t)
	b, _ := os.ReadFile(path)
	if k, err := ReadCRXKey(b); err != nil || !k.Equal(key) {
		t.Fatalf("PKCS #8: %v", err)
	}
	pk1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if k, err := ReadCRXKey(pk1); err != nil || !k.Equal(key) {
		t.Fatalf("PKCS #1: %v", err)
	}
	if _, err := ReadCRXKey([]byte("not a key")); err == nil {
		t.Fatal("read a key from nothing")
	}
	x := UpdateManifest(extension.ID, "https://intranet.example/reins/reins.crx?a=1&b='2'", "0.1.0")
	want := fmt.Sprintf("<app appid='%s'>", extension.ID)
	if !strings.Contains(x, want) || !strings.Contains(x, "codebase='https://intranet.example/reins/reins.crx?a=1&amp;b=&apos;2&apos;'") || !strings.Contains(x, "version='0.1.0'") {
		t.Fatalf("update manifest:\n%s", x)
	}
}

// The example Chrome policy force-installs Reins' own extension id.
func TestChromePolicyExampleNamesReinsExtension(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("policy", "chrome-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ExtensionInstallForcelist      []string
		ExtensionDeveloperModeSettings int
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.ExtensionInstallForcelist) != 1 || !strings.HasPrefix(p.ExtensionInstallForcelist[0], extension.ID+";https://") || p.ExtensionDeveloperModeSettings != 1 {
		t.Fatalf("chrome-policy.json: %+v", p)
	}
}
