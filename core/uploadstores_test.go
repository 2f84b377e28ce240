package core_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reins-app/reins/vocab"
)

// credentialFiles are files of stores of keys, tokens, passwords and mail,
// each where its tool keeps it, under the home folder.
var credentialFiles = []string{
	".config/gh/hosts.yml",
	".npmrc",
	".pgpass",
	".vault-token",
	".cargo/credentials",
	".cargo/credentials.toml",
	".pypirc",
	".terraform.d/credentials.tfrc.json",
	".config/rclone/rclone.conf",
	".thunderbird/abcd.default-release/logins.json",
	"Library/Mail/V10/MailData/Envelope Index",
	".docker/config.json",
	".kube/config",
	".netrc",
	".git-credentials",
	".config/git/credentials",
	".aws/credentials",
	".config/gcloud/application_default_credentials.json",
	".azure/msal_token_cache.json",
	".ssh/id_ed25519",
	".ssh/config",
	".gnupg/private-keys-v1.d/k.key",
	".password-store/bank.gpg",
	".local/share/keyrings/login.keyring",
}

// An agent that controls the tab asks to upload each credential file: each
// is refused path_refused before the person is asked, and none is offered
// to the page.
func TestAnUploadOffersNoCredentialFile(t *testing.T) {
	f, _ := uploadFixture(t)
	asked, stop := f.askedWith(vocab.AllowOnce)
	defer stop()
	ref, _ := f.snapRef("Next")
	home := os.Getenv("HOME")
	offered := 0
	for _, rel := range credentialFiles {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("token=secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := f.upload(ref, p); codeOf(err) != vocab.CodePathRefused {
			offered++
			t.Errorf("%s: %v, want %s", rel, err, vocab.CodePathRefused)
		}
	}
	t.Logf("%d of %d credential files offered", offered, len(credentialFiles))
	if n := len(asked()); n != 0 {
		t.Errorf("the person was asked %d times", n)
	}
	if len(f.Exec.Fired()) != 0 || len(f.Exec.Chosen()) != 0 {
		t.Errorf("fired %d acts, chose %q", len(f.Exec.Fired()), f.Exec.Chosen())
	}
}
