package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

// uploadHome is a home folder made for one test, with a config folder, a
// data folder for Reins and a plain file to upload; never the real home.
func uploadHome(t *testing.T) (uploadRules, string) {
	t.Helper()
	home := t.TempDir()
	r := uploadRules{home: home, config: filepath.Join(home, ".config"), data: []string{filepath.Join(home, ".config", "reins")}, max: 1024}
	mustWrite(t, filepath.Join(home, "Documents", "report.txt"), "twelve bytes")
	return r, home
}

func mustWrite(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustRefuse(t *testing.T, raw string, r uploadRules, words string) {
	t.Helper()
	f, err := checkUploadPath(raw, r)
	if err == nil {
		t.Fatalf("%s was allowed (as %s), want it refused", raw, f.Path)
	}
	ce, _ := classify(err)
	if ce.Code != vocab.CodePathRefused && ce.Code != vocab.CodeBadRequest {
		t.Errorf("%s refused with code %s, want %s", raw, ce.Code, vocab.CodePathRefused)
	}
	if !strings.Contains(ce.Message, words) {
		t.Errorf("%s refused with %q, want it to say %q", raw, ce.Message, words)
	}
}

func TestAnUploadGivesAPlainFileByItsResolvedPath(t *testing.T) {
	r, home := uploadHome(t)
	want := filepath.Join(home, "Documents", "report.txt")
	f, err := checkUploadPath(want, r)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != want || f.Size != 12 {
		t.Errorf("got %+v, want %s of 12 bytes", f.File, want)
	}
	// Through a link, and from "~/": the file itself is what is shown.
	link := filepath.Join(home, "Desktop", "shortcut.txt")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(want, link); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{link, "~/Desktop/shortcut.txt", "~/Documents/../Documents/report.txt"} {
		f, err := checkUploadPath(raw, r)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if f.Path != want {
			t.Errorf("%s resolved to %s, want %s", raw, f.Path, want)
		}
	}
}

func TestAnUploadRefusesWhatIsNotAPlainFileWithinTheLimit(t *testing.T) {
	r, home := uploadHome(t)
	mustWrite(t, filepath.Join(home, "big.bin"), strings.Repeat("x", 1025))
	mustWrite(t, filepath.Join(home, "exact.bin"), strings.Repeat("x", 1024))
	if _, err := checkUploadPath(filepath.Join(home, "exact.bin"), r); err != nil {
		t.Errorf("a file of exactly the limit was refused: %v", err)
	}
	mustRefuse(t, filepath.Join(home, "big.bin"), r, "more than the 1.0 KB")
	mustRefuse(t, filepath.Join(home, "Documents"), r, "is a folder")
	mustRefuse(t, filepath.Join(home, "missing.txt"), r, "no such file")
	mustRefuse(t, "Documents/report.txt", r, "not absolute")
	mustRefuse(t, "", r, "empty")
	mustRefuse(t, filepath.Join(home, "Documents", "report.txt\n/etc/passwd"), r, "cannot read")
	mustRefuse(t, filepath.Join(home, "Documents", "\u202etxt.exe"), r, "cannot read")
	mustRefuse(t, "/dev/null", r, "device files")
	mustRefuse(t, "/proc/self/environ", r, "kernel's process files")
	// A hard link gives the file a second name Reins cannot check.
	if err := os.Link(filepath.Join(home, "Documents", "report.txt"), filepath.Join(home, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, filepath.Join(home, "hard.txt"), r, "hard links")
	// A link to a folder is a folder.
	if err := os.Symlink(filepath.Join(home, "Documents"), filepath.Join(home, "docs")); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, filepath.Join(home, "docs"), r, "is a folder")
}

func TestAnUploadRefusesEveryStoreOfKeysCredentialsAndProfiles(t *testing.T) {
	r, home := uploadHome(t)
	cases := []struct{ file, words string }{
		{".ssh/id_ed25519", "SSH keys"},
		{".ssh/config", "SSH keys"},
		{".gnupg/private-keys-v1.d/key.key", "GnuPG keys"},
		{".aws/credentials", "AWS credentials"},
		{".config/gcloud/application_default_credentials.json", "Google Cloud credentials"},
		{".netrc", "saved logins"},
		{".password-store/bank.gpg", "pass password store"},
		{".local/share/keyrings/login.keyring", "keyring"},
		{".config/google-chrome/Default/Login Data", "Chrome's profiles"},
		{".config/chromium/Default/Cookies", "Chromium's profiles"},
		{".mozilla/firefox/x.default/logins.json", "Firefox's profiles"},
		{".config/1Password/settings.json", "1Password's vaults"},
		{"Library/Keychains/login.keychain-db", "keychains"},
		{"Library/Application Support/Google/Chrome/Default/Cookies", "Chrome's profiles"},
		{".config/reins/bridge.secret", "Reins' own data folder"},
		{"Documents/passwords.kdbx", "vault"},
		{"Documents/id_rsa", "SSH private key"},
	}
	for _, c := range cases {
		p := filepath.Join(home, c.file)
		mustWrite(t, p, "secret")
		mustRefuse(t, p, r, c.words)
	}
	// A link out of a safe folder into a store is refused by where it
	// leads, and the words say so.
	link := filepath.Join(home, "Documents", "innocent.txt")
	if err := os.Symlink(filepath.Join(home, ".aws", "credentials"), link); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, link, r, "links to")
	// A store that is itself a link elsewhere still holds keys.
	elsewhere := filepath.Join(home, "keys-elsewhere")
	mustWrite(t, filepath.Join(elsewhere, "deploy"), "secret")
	if err := os.Rename(filepath.Join(home, ".gnupg"), filepath.Join(home, "gnupg-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(home, ".gnupg")); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, filepath.Join(elsewhere, "deploy"), r, "GnuPG keys")
	// On a file system that ignores case, ~/.SSH is ~/.ssh.
	folded := r
	folded.fold = true
	mustRefuse(t, filepath.Join(home, ".SSH", "id_ed25519"), folded, "SSH keys")
	// A name that merely starts like a store is not in it.
	mustWrite(t, filepath.Join(home, ".sshfs-notes.txt"), "fine")
	if _, err := checkUploadPath(filepath.Join(home, ".sshfs-notes.txt"), r); err != nil {
		t.Errorf("a file beside the stores was refused: %v", err)
	}
}

func TestAnUploadedFileChangedAfterTheQuestionIsRefused(t *testing.T) {
	r, home := uploadHome(t)
	p := filepath.Join(home, "Documents", "report.txt")
	was, err := checkUploadPath(p, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := stillSame(p, was, r); err != nil {
		t.Fatalf("the same file was refused: %v", err)
	}
	// Swapped for another file of another size under the same name.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, p, "another, longer text")
	err = stillSame(p, was, r)
	if ce, _ := classify(err); err == nil || ce.Code != vocab.CodeChanged {
		t.Errorf("a swapped file: %v, want %s", err, vocab.CodeChanged)
	}
	// Swapped for a link into a store.
	mustWrite(t, filepath.Join(home, ".ssh", "id_ed25519"), "secret")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), p); err != nil {
		t.Fatal(err)
	}
	err = stillSame(p, was, r)
	if ce, _ := classify(err); err == nil || ce.Code != vocab.CodePathRefused {
		t.Errorf("a file swapped for a link to a key: %v, want %s", err, vocab.CodePathRefused)
	}
}

func TestTheRulesNameReinsDataFolderFromTheAuditLog(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REINS_DATA_DIR", filepath.Join(dir, "elsewhere"))
	r := uploadRulesFor(filepath.Join(dir, "data", "audit.db"))
	mustWrite(t, filepath.Join(dir, "data", "bridge.secret"), "secret")
	mustWrite(t, filepath.Join(dir, "elsewhere", "bridge.secret"), "secret")
	mustRefuse(t, filepath.Join(dir, "data", "bridge.secret"), r, "Reins' own data folder")
	mustRefuse(t, filepath.Join(dir, "elsewhere", "bridge.secret"), r, "Reins' own data folder")
}

// Every store on the lists is refused, whether the store is a folder or a
// file of its own; the words name what it holds.
func TestAnUploadRefusesEachStoreOnTheLists(t *testing.T) {
	r, home := uploadHome(t)
	for _, s := range homeStores {
		p := filepath.Join(home, s.path)
		mustWrite(t, p, "secret")
		mustRefuse(t, p, r, s.what)
	}
	for _, s := range configStores {
		p := filepath.Join(r.config, s.path)
		mustWrite(t, p, "secret")
		mustRefuse(t, p, r, s.what)
	}
}

// The stores tools keep their tokens and passwords in, each as the tool
// writes it.
func TestAnUploadRefusesTheCommandLineToolsCredentialsAndTheMail(t *testing.T) {
	r, home := uploadHome(t)
	for _, c := range []struct{ file, words string }{
		{".config/gh/hosts.yml", "GitHub CLI"},
		{".npmrc", "npm"},
		{".pgpass", "PostgreSQL"},
		{".vault-token", "Vault"},
		{".cargo/credentials", "Cargo"},
		{".cargo/credentials.toml", "Cargo"},
		{".pypirc", "PyPI"},
		{".terraform.d/credentials.tfrc.json", "Terraform"},
		{".config/rclone/rclone.conf", "rclone"},
		{".thunderbird/abcd.default-release/logins.json", "Thunderbird"},
		{"Library/Mail/V10/MailData/Envelope Index", "Apple Mail"},
		{".config/git/credentials", "Git credentials"},
		{".docker/config.json", "Docker"},
		{".kube/config", "Kubernetes"},
		{".azure/msal_token_cache.json", "Azure"},
		{".config/containers/auth.json", "container registry"},
		{".gem/credentials", "RubyGems"},
		{".m2/settings.xml", "Maven"},
		{".my.cnf", "MySQL"},
		{".authinfo.gpg", "saved logins"},
	} {
		p := filepath.Join(home, c.file)
		mustWrite(t, p, "secret")
		mustRefuse(t, p, r, c.words)
	}
	// A tool's own file of that name elsewhere is only a name.
	mustWrite(t, filepath.Join(home, "Documents", "npmrc-notes.txt"), "fine")
	if _, err := checkUploadPath(filepath.Join(home, "Documents", "npmrc-notes.txt"), r); err != nil {
		t.Errorf("a plain file was refused: %v", err)
	}
}

// Tools read ~/.config whatever $XDG_CONFIG_HOME says, so its stores are
// refused in both places.
func TestAnUploadRefusesTheConfigStoresUnderDotConfigToo(t *testing.T) {
	r, home := uploadHome(t)
	r.config = filepath.Join(home, "xdg")
	for _, dir := range []string{r.config, filepath.Join(home, ".config")} {
		p := filepath.Join(dir, "gh", "hosts.yml")
		mustWrite(t, p, "secret")
		mustRefuse(t, p, r, "GitHub CLI")
	}
}

// A store an environment variable moves is refused where it is; a value
// that would cover the whole home folder, or is not a path, moves nothing.
func TestAnUploadRefusesTheStoresTheEnvironmentNames(t *testing.T) {
	r, home := uploadHome(t)
	env := map[string]string{
		"GNUPGHOME":     filepath.Join(home, "keys", "gpg"),
		"KUBECONFIG":    filepath.Join(home, "work", "a.yaml") + string(filepath.ListSeparator) + filepath.Join(home, "work", "b.yaml"),
		"CARGO_HOME":    filepath.Join(home, "rust", "cargo"),
		"PGPASSFILE":    filepath.Join(home, "work", "pg.pass"),
		"DOCKER_CONFIG": home,
		"RCLONE_CONFIG": "/",
		"GH_CONFIG_DIR": "relative/gh",
	}
	r.env = storesFromEnv(func(k string) string { return env[k] }, home)
	for _, c := range []struct{ file, words string }{
		{"keys/gpg/private-keys-v1.d/k.key", "GnuPG"},
		{"work/a.yaml", "Kubernetes"},
		{"work/b.yaml", "Kubernetes"},
		{"rust/cargo/credentials.toml", "Cargo"},
		{"work/pg.pass", "PostgreSQL"},
	} {
		p := filepath.Join(home, c.file)
		mustWrite(t, p, "secret")
		mustRefuse(t, p, r, c.words)
	}
	// Cargo's home holds more than its tokens.
	mustWrite(t, filepath.Join(home, "rust", "cargo", "registry", "crate.txt"), "fine")
	for _, ok := range []string{"rust/cargo/registry/crate.txt", "Documents/report.txt"} {
		if _, err := checkUploadPath(filepath.Join(home, ok), r); err != nil {
			t.Errorf("%s was refused: %v", ok, err)
		}
	}
}
