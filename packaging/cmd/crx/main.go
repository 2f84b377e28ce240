// Command crx packs the Chrome extension into a CRX3 for organisations to
// host and force-install with Chrome's ExtensionInstallForcelist policy,
// and writes the update manifest that policy's URL names.
//
//	go run ./packaging/cmd/crx -key reins-extension.pem -codebase https://intranet.example/reins/reins.crx -out dist
//
// -key is the private half of manifest.json's "key": only a CRX signed
// with it installs under Reins' extension id, the one Reins pairs with.
// That key is not in the repository. -test-key signs with a key made for
// the run instead, so that the format can be checked end to end; its
// extension id is another, and Reins will not pair with it.
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/packaging"
)

func main() {
	keyFile := flag.String("key", "", "the extension's private key, PEM (PKCS #8 or PKCS #1)")
	testKey := flag.Bool("test-key", false, "sign with a key made for this run: the CRX installs under another id, which Reins does not pair with")
	codebase := flag.String("codebase", "https://example.org/reins/reins.crx", "the `URL` the CRX will be served from, for the update manifest")
	out := flag.String("out", "dist", "the `folder` reins.crx and updates.xml are written to")
	flag.Parse()
	if (*keyFile == "") == !*testKey || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: crx -key KEY.pem | -test-key [-codebase URL] [-out DIR]")
		os.Exit(2)
	}
	if err := run(*keyFile, *codebase, *out); err != nil {
		fmt.Fprintln(os.Stderr, "crx:", err)
		os.Exit(1)
	}
}

func run(keyFile, codebase, out string) error {
	var key *rsa.PrivateKey
	var err error
	if keyFile != "" {
		b, err := os.ReadFile(keyFile)
		if err != nil {
			return err
		}
		if key, err = packaging.ReadCRXKey(b); err != nil {
			return fmt.Errorf("%s: %w", keyFile, err)
		}
	} else if key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		return err
	}
	crx, id, err := packaging.CRX(extension.Files(), key)
	if err != nil {
		return err
	}
	manifest, err := extension.Files().Open("manifest.json")
	if err != nil {
		return err
	}
	var m struct{ Version string }
	err = json.NewDecoder(manifest).Decode(&m)
	manifest.Close()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	crxPath, xmlPath := filepath.Join(out, "reins.crx"), filepath.Join(out, "updates.xml")
	if err := os.WriteFile(crxPath, crx, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(xmlPath, []byte(packaging.UpdateManifest(id, codebase, m.Version)), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: version %s, extension id %s\n%s: serve it at the update URL of the policy entry \"%s;https://…/updates.xml\"\n", crxPath, m.Version, id, xmlPath, id)
	if id != extension.ID {
		fmt.Printf("This CRX is NOT Reins' extension: its id is %s, not %s, so Reins will not pair with it. Sign with the private key of manifest.json's \"key\" (-key) for one that does.\n", id, extension.ID)
	}
	return nil
}
