package packaging

import (
	"archive/zip"
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"
)

// A CRX3 file, as Chromium's components/crx_file reads it: the magic
// "Cr24", the format version 3 and the header's length (both unsigned
// 32-bit little-endian), the header (a CrxFileHeader protocol buffer), then
// the extension's ZIP archive. The header holds the signed data (the
// extension's id: the first 16 bytes of the SHA-256 of the public key) and,
// for each key, the public key and an RSASSA-PKCS1-v1_5 SHA-256 signature
// over "CRX3 SignedData\x00", the signed data's length, the signed data
// and the archive.
const (
	crxMagic   = "Cr24"
	crxVersion = 3
	crxContext = "CRX3 SignedData\x00"

	// Field numbers of crx3.proto.
	fieldRSAProof   = 2     // CrxFileHeader.sha256_with_rsa
	fieldSignedData = 10000 // CrxFileHeader.signed_header_data
	fieldPublicKey  = 1     // AsymmetricKeyProof.public_key
	fieldSignature  = 2     // AsymmetricKeyProof.signature
	fieldCrxID      = 1     // SignedData.crx_id
)

// zipEpoch dates every file in the archive, so that the same extension
// signed with the same key gives the same archive.
var zipEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// CRX packs the extension's files into a CRX3 signed with key, and returns
// it with the extension id it installs under. That id is Reins' own
// (extension.ID) only when key is the private half of manifest.json's "key".
func CRX(files fs.FS, key *rsa.PrivateKey) ([]byte, string, error) {
	archive, err := zipOf(files)
	if err != nil {
		return nil, "", err
	}
	spki, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(spki)
	signed := protoBytes(fieldCrxID, sum[:16])
	digest := sha256.Sum256(crxSigned(signed, archive))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		return nil, "", err
	}
	proof := append(protoBytes(fieldPublicKey, spki), protoBytes(fieldSignature, sig)...)
	header := append(protoBytes(fieldRSAProof, proof), protoBytes(fieldSignedData, signed)...)
	var out bytes.Buffer
	out.WriteString(crxMagic)
	binary.Write(&out, binary.LittleEndian, uint32(crxVersion))
	binary.Write(&out, binary.LittleEndian, uint32(len(header)))
	out.Write(header)
	out.Write(archive)
	return out.Bytes(), ExtensionID(spki), nil
}

// crxSigned is what each signature in a CRX3 covers.
func crxSigned(signed, archive []byte) []byte {
	var b bytes.Buffer
	b.WriteString(crxContext)
	binary.Write(&b, binary.LittleEndian, uint32(len(signed)))
	b.Write(signed)
	b.Write(archive)
	return b.Bytes()
}

// ExtensionID is the id Chrome gives an extension whose public key is
// spki (DER SubjectPublicKeyInfo): the first 16 bytes of its SHA-256, each
// hex digit written as a letter from a to p.
func ExtensionID(spki []byte) string {
	sum := sha256.Sum256(spki)
	var b strings.Builder
	for _, c := range sum[:16] {
		b.WriteByte('a' + c>>4)
		b.WriteByte('a' + c&0xf)
	}
	return b.String()
}

// ReadCRXKey reads an RSA private key from PEM: PKCS #8 ("PRIVATE KEY",
// what Chrome's "Pack extension" writes) or PKCS #1 ("RSA PRIVATE KEY").
func ReadCRXKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM block in the key file")
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("the key is not an RSA key; Chrome signs extensions with RSA")
		}
		return rk, nil
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	return nil, fmt.Errorf("the key file holds a %q, not a private key", block.Type)
}

// UpdateManifest is the XML Chrome fetches from the update URL an
// ExtensionInstallForcelist entry names ("id;https://…/updates.xml"): where
// the CRX of which version lives.
func UpdateManifest(id, codebase, version string) string {
	esc := func(s string) string {
		var b bytes.Buffer
		xmlEscape(&b, s)
		return b.String()
	}
	return fmt.Sprintf(`<?xml version='1.0' encoding='UTF-8'?>
<gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'>
  <app appid='%s'>
    <updatecheck codebase='%s' version='%s' />
  </app>
</gupdate>
`, esc(id), esc(codebase), esc(version))
}

func xmlEscape(w io.Writer, s string) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&apos;", `"`, "&quot;")
	io.WriteString(w, r.Replace(s))
}

// zipOf is the archive of every file in files, in name order.
func zipOf(files fs.FS) ([]byte, error) {
	var names []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range names {
		data, err := fs.ReadFile(files, n)
		if err != nil {
			return nil, err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: zipEpoch})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// protoBytes encodes one length-delimited protocol buffer field.
func protoBytes(field int, data []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(field)<<3|2)
	out = binary.AppendUvarint(out, uint64(len(data)))
	return append(out, data...)
}
