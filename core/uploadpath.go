package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/reins-app/reins/internal/paths"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// MaxUploadBytes is the largest file one upload gives a page.
const MaxUploadBytes = 100 << 20

// maxUploadPath is the longest path an upload takes: what a file system
// allows, and more than a person can check in a popup anyway.
const maxUploadPath = 4096

// uploadRules say which files an upload may give a page.
type uploadRules struct {
	home   string   // the person's home folder
	config string   // their config folder ($XDG_CONFIG_HOME, else ~/.config)
	data   []string // Reins' own data folders: the pairing secret, the audit log
	env    []store  // the stores environment variables name (envStores)
	max    int64    // the largest file, in bytes
	// fold: names compare without regard to case, as on macOS's file
	// systems, where ~/.SSH is ~/.ssh.
	fold bool
}

// uploadRulesFor are the rules on this computer: the home and config
// folders the environment names, and Reins' data folder as paths says it
// and as the audit log at auditPath shows it ("" or ":memory:" for none).
func uploadRulesFor(auditPath string) uploadRules {
	r := uploadRules{max: MaxUploadBytes, fold: runtime.GOOS == "darwin"}
	r.home, _ = os.UserHomeDir()
	r.config = os.Getenv("XDG_CONFIG_HOME")
	if r.config == "" && r.home != "" {
		r.config = filepath.Join(r.home, ".config")
	}
	if d, err := paths.DataDir(); err == nil {
		r.data = append(r.data, d)
	}
	r.env = storesFromEnv(os.Getenv, r.home)
	if auditPath != "" && !strings.HasPrefix(auditPath, ":") && !strings.HasPrefix(auditPath, "file:") {
		if abs, err := filepath.Abs(auditPath); err == nil {
			r.data = append(r.data, filepath.Dir(abs))
		}
	}
	return r
}

// store is a folder (or file) that holds keys, credentials, passwords or a
// browser's profiles, and what it is, in words a person reads.
type store struct {
	path string
	what string
}

// homeStores are the stores under the home folder, on Linux and macOS
// alike (a folder that does not exist costs nothing).
var homeStores = []store{
	{".ssh", "SSH keys"},
	{".gnupg", "GnuPG keys"},
	{".aws", "AWS credentials"},
	{".azure", "Azure credentials"},
	{".kube", "Kubernetes credentials"},
	{".docker", "Docker credentials"},
	{".netrc", "saved logins (.netrc)"},
	{".git-credentials", "Git credentials"},
	{".password-store", "the pass password store"},
	{".local/share/keyrings", "the desktop's keyring"},
	{".mozilla", "Firefox's profiles"},
	{"snap/chromium", "Chromium's profiles"},
	{"snap/firefox", "Firefox's profiles"},
	{".var/app/com.google.Chrome", "Chrome's profiles"},
	{".var/app/org.chromium.Chromium", "Chromium's profiles"},
	{".var/app/org.mozilla.firefox", "Firefox's profiles"},
	{"Library/Keychains", "the keychains"},
	{"Library/Cookies", "the browsers' cookies"},
	{"Library/Safari", "Safari's data"},
	{"Library/Application Support/Google/Chrome", "Chrome's profiles"},
	{"Library/Application Support/Chromium", "Chromium's profiles"},
	{"Library/Application Support/BraveSoftware", "Brave's profiles"},
	{"Library/Application Support/Microsoft Edge", "Edge's profiles"},
	{"Library/Application Support/Vivaldi", "Vivaldi's profiles"},
	{"Library/Application Support/Arc", "Arc's profiles"},
	{"Library/Application Support/Firefox", "Firefox's profiles"},
	{"Library/Application Support/1Password", "1Password's vaults"},
	{"Library/Group Containers/2BUA8C4S2C.com.1password", "1Password's vaults"},
	{"Library/Application Support/Bitwarden", "Bitwarden's vault"},
	{"Library/Application Support/Bitwarden CLI", "Bitwarden's vault"},
	{"Library/Containers/com.bitwarden.desktop", "Bitwarden's vault"},
	// Tokens and passwords that command-line tools keep in files.
	{".npmrc", "npm's login tokens"},
	{".pypirc", "PyPI credentials"},
	{".gem/credentials", "RubyGems' API key"},
	{".cargo/credentials", "Cargo's registry tokens"},
	{".cargo/credentials.toml", "Cargo's registry tokens"},
	{".m2/settings.xml", "Maven's server passwords"},
	{".m2/settings-security.xml", "Maven's master password"},
	{".gradle/gradle.properties", "Gradle's credentials"},
	{".pgpass", "PostgreSQL passwords"},
	{".my.cnf", "MySQL passwords"},
	{".mylogin.cnf", "MySQL passwords"},
	{".vault-token", "Vault's token"},
	{".terraform.d", "Terraform's credentials"},
	{".terraformrc", "Terraform's credentials"},
	{".authinfo", "saved logins (.authinfo)"},
	{".authinfo.gpg", "saved logins (.authinfo)"},
	{".s3cfg", "S3 credentials"},
	{".boto", "cloud storage credentials (.boto)"},
	{".oci", "Oracle Cloud credentials"},
	{".minikube", "minikube's cluster keys"},
	{".local/share/kwalletd", "KDE Wallet"},
	{".bitcoin", "Bitcoin wallets"},
	{".electrum", "Electrum wallets"},
	{".ethereum/keystore", "Ethereum keys"},
	// Mail and messages: password resets and one-time codes arrive there.
	{".thunderbird", "Thunderbird's mail and passwords"},
	{".mozilla-thunderbird", "Thunderbird's mail and passwords"},
	{"snap/thunderbird", "Thunderbird's mail and passwords"},
	{".var/app/org.mozilla.Thunderbird", "Thunderbird's mail and passwords"},
	{"Library/Thunderbird", "Thunderbird's mail and passwords"},
	{".local/share/evolution", "Evolution's mail"},
	{"Library/Mail", "Apple Mail's mail"},
	{"Library/Containers/com.apple.mail", "Apple Mail's mail"},
	{"Library/Messages", "Messages' conversations"},
}

// configStores are the stores under the config folder.
var configStores = []store{
	{"gcloud", "Google Cloud credentials"},
	{"google-chrome", "Chrome's profiles"},
	{"google-chrome-beta", "Chrome's profiles"},
	{"google-chrome-unstable", "Chrome's profiles"},
	{"chromium", "Chromium's profiles"},
	{"BraveSoftware", "Brave's profiles"},
	{"microsoft-edge", "Edge's profiles"},
	{"vivaldi", "Vivaldi's profiles"},
	{"opera", "Opera's profiles"},
	{"1Password", "1Password's vaults"},
	{"Bitwarden", "Bitwarden's vault"},
	{"keepassxc", "KeePassXC's settings"},
	{"Bitwarden CLI", "Bitwarden's vault"},
	{"op", "1Password's command-line sessions"},
	{"gh", "GitHub CLI's tokens"},
	{"hub", "GitHub tokens (hub)"},
	{"glab-cli", "GitLab CLI's tokens"},
	{"git/credentials", "Git credentials"},
	{"rclone", "rclone's cloud logins"},
	{"containers/auth.json", "container registry logins"},
	{"doctl", "DigitalOcean credentials"},
}

// envStores are stores whose place an environment variable names, where
// the tools that keep them look first: each variable's value is a path
// (KUBECONFIG, a list of them), and under it, when within is set, the
// files that hold the secrets.
var envStores = []struct {
	name   string
	within []string
	what   string
}{
	{"GNUPGHOME", nil, "GnuPG keys"},
	{"PASSWORD_STORE_DIR", nil, "the pass password store"},
	{"GH_CONFIG_DIR", nil, "GitHub CLI's tokens"},
	{"DOCKER_CONFIG", nil, "Docker credentials"},
	{"KUBECONFIG", nil, "Kubernetes credentials"},
	{"AWS_SHARED_CREDENTIALS_FILE", nil, "AWS credentials"},
	{"AWS_CONFIG_FILE", nil, "AWS credentials"},
	{"CLOUDSDK_CONFIG", nil, "Google Cloud credentials"},
	{"AZURE_CONFIG_DIR", nil, "Azure credentials"},
	{"CARGO_HOME", []string{"credentials", "credentials.toml"}, "Cargo's registry tokens"},
	{"NPM_CONFIG_USERCONFIG", nil, "npm's login tokens"},
	{"PGPASSFILE", nil, "PostgreSQL passwords"},
	{"RCLONE_CONFIG", nil, "rclone's cloud logins"},
	{"TF_CLI_CONFIG_FILE", nil, "Terraform's credentials"},
	{"VAULT_CONFIG_PATH", nil, "Vault's settings"},
}

// systemStores are the computer's own secrets and the kernel's files.
var systemStores = []store{
	{"/etc/shadow", "the system's password hashes"},
	{"/etc/gshadow", "the system's password hashes"},
	{"/etc/ssh", "the computer's SSH keys"},
	{"/Library/Keychains", "the system keychains"},
	{"/proc", "the kernel's process files"},
	{"/sys", "the kernel's device files"},
	{"/dev", "device files"},
}

// vaultExtensions end the names of password managers' vault files,
// wherever they are kept.
var vaultExtensions = []string{".kdbx", ".kdb", ".keychain", ".keychain-db", ".opvault", ".agilekeychain", ".1pux", ".psafe3"}

// keyNames are the names SSH gives private keys, wherever they are kept.
var keyNames = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk"}

// uploadFile is a file an upload may give a page, as found on disk: its
// resolved path and size, and what identifies it, for the check again at
// fire time.
type uploadFile struct {
	vocab.File
	info fs.FileInfo
}

// pathRefused is the refusal of a file the agent named: raw as the agent
// wrote it, why in words.
func pathRefused(raw, why string) *vocab.Error {
	return errorf(vocab.CodePathRefused, "Reins does not upload %s: %s; nothing was asked or uploaded", plain.Quote(raw, plain.URLMax), why)
}

// checkUploadPath finds the file raw names and checks that r lets a page
// have it: an absolute path (or one under "~/") of a regular file, of at
// most r.max bytes, with no other name (hard link), whose path shows
// plainly, and that neither as written nor with its links resolved lies in
// a store of keys, credentials, passwords or browser profiles, or in
// Reins' own data. The resolved path is what the person is shown and what
// is typed.
func checkUploadPath(raw string, r uploadRules) (uploadFile, error) {
	p := raw
	switch {
	case p == "":
		return uploadFile{}, errorf(vocab.CodeBadRequest, "a file's path is empty; give the absolute path of each file")
	case len(p) > maxUploadPath:
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("the path is longer than %d bytes", maxUploadPath))
	}
	if c, bad := plain.Unsafe(p); bad {
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("its path holds a character a person cannot read in it (U+%04X)", c))
	}
	if strings.HasPrefix(p, "~/") && r.home != "" {
		p = filepath.Join(r.home, p[2:])
	}
	if !filepath.IsAbs(p) {
		return uploadFile{}, pathRefused(raw, "the path is not absolute; give the file's full path, from /")
	}
	p = filepath.Clean(p)
	if why, in := r.protected(p); in {
		return uploadFile{}, pathRefused(raw, why)
	}
	resolved, err := filepath.EvalSymlinks(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return uploadFile{}, pathRefused(raw, "there is no such file")
	case err != nil:
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("it cannot be read (%v)", err))
	}
	if resolved != p {
		if why, in := r.protected(resolved); in {
			return uploadFile{}, pathRefused(raw, "it links to "+plain.Quote(resolved, plain.URLMax)+", and "+why)
		}
	}
	if c, bad := plain.Unsafe(resolved); bad {
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("the path it links to holds a character a person cannot read in it (U+%04X)", c))
	}
	info, err := os.Lstat(resolved)
	if err != nil {
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("it cannot be read (%v)", err))
	}
	switch {
	case info.IsDir():
		return uploadFile{}, pathRefused(raw, "it is a folder, and an upload gives files")
	case !info.Mode().IsRegular():
		return uploadFile{}, pathRefused(raw, "it is not a regular file (a device, a socket or a pipe)")
	case info.Size() > r.max:
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("it is %s, more than the %s one upload may give", vocab.SizeWords(info.Size()), vocab.SizeWords(r.max)))
	case links(info) > 1:
		return uploadFile{}, pathRefused(raw, "the file has other names (hard links) elsewhere, which Reins cannot check")
	}
	f, err := os.Open(resolved)
	if err != nil {
		return uploadFile{}, pathRefused(raw, fmt.Sprintf("it cannot be read (%v)", err))
	}
	f.Close()
	return uploadFile{File: vocab.File{Path: resolved, Size: info.Size()}, info: info}, nil
}

// protected says which store or data folder p lies in, in words, if any;
// also which names any folder's keys and vaults carry.
func (r uploadRules) protected(p string) (string, bool) {
	for _, s := range r.stores() {
		if r.within(p, s.path) {
			return "it is in " + s.what + " (" + s.path + "), which Reins never gives a page", true
		}
	}
	for _, d := range r.dataDirs() {
		if r.within(p, d) {
			return "it is in Reins' own data folder (" + d + ")", true
		}
	}
	base := filepath.Base(p)
	for _, ext := range vaultExtensions {
		if r.hasSuffix(base, ext) {
			return "its name says it is a password manager's vault or a keychain", true
		}
	}
	for _, k := range keyNames {
		if r.same(base, k) {
			return "its name says it is an SSH private key", true
		}
	}
	return "", false
}

// stores lists every store, each as written and, where it is a link, as
// resolved: a ~/.ssh that links elsewhere still holds keys.
func (r uploadRules) stores() []store {
	var out []store
	add := func(s store) {
		out = append(out, s)
		if real, err := filepath.EvalSymlinks(s.path); err == nil && real != s.path {
			out = append(out, store{real, s.what})
		}
	}
	if r.home != "" {
		for _, s := range homeStores {
			add(store{filepath.Join(r.home, s.path), s.what})
		}
	}
	// Many tools keep to ~/.config whatever $XDG_CONFIG_HOME says (and on
	// macOS there is no such variable), so both are stores.
	configs := []string{r.config}
	if dot := filepath.Join(r.home, ".config"); r.home != "" && filepath.Clean(r.config) != dot {
		configs = append(configs, dot)
	}
	for _, c := range configs {
		if c == "" {
			continue
		}
		for _, s := range configStores {
			add(store{filepath.Join(c, s.path), s.what})
		}
	}
	for _, s := range r.env {
		add(s)
	}
	for _, s := range systemStores {
		add(s)
	}
	return out
}

// storesFromEnv reads, through getenv, the places envStores' variables
// name. A value that is not an absolute path names none, nor does one
// that holds the home folder (a mistake that would refuse every file).
func storesFromEnv(getenv func(string) string, home string) []store {
	var out []store
	for _, v := range envStores {
		for _, p := range filepath.SplitList(getenv(v.name)) {
			if !filepath.IsAbs(p) {
				continue
			}
			p = filepath.Clean(p)
			if p == "/" || (home != "" && (p == filepath.Clean(home) || strings.HasPrefix(filepath.Clean(home), p+"/"))) {
				continue
			}
			if len(v.within) == 0 {
				out = append(out, store{p, v.what})
				continue
			}
			for _, f := range v.within {
				out = append(out, store{filepath.Join(p, f), v.what})
			}
		}
	}
	return out
}

// dataDirs lists Reins' data folders, each as written and, where it is a
// link, as resolved.
func (r uploadRules) dataDirs() []string {
	var out []string
	for _, d := range r.data {
		out = append(out, d)
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			out = append(out, real)
		}
	}
	return out
}

// within reports whether p is dir or lies under it.
func (r uploadRules) within(p, dir string) bool {
	dir = filepath.Clean(dir)
	if r.same(p, dir) {
		return true
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return len(p) > len(dir) && r.same(p[:len(dir)], dir)
}

func (r uploadRules) same(a, b string) bool {
	if r.fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func (r uploadRules) hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && r.same(s[len(s)-len(suffix):], suffix)
}

// links is how many names the file has, where the system says; 1 where it
// does not.
func links(info fs.FileInfo) uint64 {
	v := reflect.ValueOf(info.Sys())
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 1
	}
	n := v.FieldByName("Nlink")
	if !n.IsValid() || !n.CanUint() {
		return 1
	}
	return n.Uint()
}

// stillSame checks, right before firing, that the file raw named is still
// the one the person was shown: the same path once resolved, the same file
// on disk, the same size and time of change, and still allowed.
func stillSame(raw string, was uploadFile, r uploadRules) error {
	now, err := checkUploadPath(raw, r)
	if err != nil {
		return err
	}
	if now.Path != was.Path || !os.SameFile(now.info, was.info) || now.Size != was.Size || !now.info.ModTime().Equal(was.info.ModTime()) {
		return errorf(vocab.CodeChanged, "the file %s changed after the person was asked (now %s, %s), so nothing was uploaded; ask again", plain.Quote(raw, plain.URLMax), plain.Quote(now.Path, plain.URLMax), vocab.SizeWords(now.Size))
	}
	return nil
}
