//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// nobody is a uid that is neither root nor the test's.
const nobody = 65534

// policyAt makes a folder and a policy file in it as mode and owner say
// (owner -1 leaves them the test's), and returns the file's path.
func policyAt(t *testing.T, body string, dirMode, fileMode os.FileMode, dirOwner, fileOwner int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reins")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p     string
		mode  os.FileMode
		owner int
	}{{path, fileMode, fileOwner}, {dir, dirMode, dirOwner}} {
		if err := os.Chmod(c.p, c.mode); err != nil {
			t.Fatal(err)
		}
		if c.owner >= 0 {
			if err := os.Chown(c.p, c.owner, -1); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

const good = `{"sites": {"never": ["*.bank.example"]}}`

func TestFileHonouredOnlyWhenItsOwnerAloneCouldWriteIt(t *testing.T) {
	me := os.Geteuid()
	path := policyAt(t, good, 0o755, 0o644, -1, -1)
	st := rootFile{path: path, owner: me}.Read()
	if st.Err != nil || st.Policy == nil || st.Source != path || !strings.HasPrefix(st.Hash, "sha256:") {
		t.Fatalf("a good file: %+v", st)
	}
	if again := (rootFile{path: path, owner: me}).Read(); !again.Same(st) {
		t.Fatalf("read twice, not the same: %+v %+v", st, again)
	}
	for _, c := range []struct {
		name       string
		body       string
		dir, file  os.FileMode
		want       string
		fileOwner  int
		dirOwner   int
		needsChown bool
	}{
		{name: "file writable by others", body: good, dir: 0o755, file: 0o666, want: "can be written by users other than root (mode 0666)", fileOwner: -1, dirOwner: -1},
		{name: "file writable by its group", body: good, dir: 0o755, file: 0o664, want: "mode 0664", fileOwner: -1, dirOwner: -1},
		{name: "folder writable by others", body: good, dir: 0o777, file: 0o644, want: "can be written by users other than root (mode 0777)", fileOwner: -1, dirOwner: -1},
		{name: "file of another user", body: good, dir: 0o755, file: 0o644, want: "the file belongs to user 65534, not to root", fileOwner: nobody, dirOwner: -1, needsChown: true},
		{name: "folder of another user", body: good, dir: 0o755, file: 0o644, want: "belongs to user 65534", fileOwner: -1, dirOwner: nobody, needsChown: true},
		{name: "bad JSON", body: `{"sites": `, dir: 0o755, file: 0o644, want: "not valid JSON", fileOwner: -1, dirOwner: -1},
		{name: "unknown key", body: `{"sites": {"never": []}, "agent": []}`, dir: 0o755, file: 0o644, want: `the key "agent" is not one Reins knows`, fileOwner: -1, dirOwner: -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needsChown {
				testenv.Need(t, me == 0, "root, to give a file to another user")
			}
			p := policyAt(t, c.body, c.dir, c.file, c.dirOwner, c.fileOwner)
			st := rootFile{path: p, owner: me}.Read()
			if st.Err == nil || !strings.Contains(st.Err.Error(), c.want) {
				t.Fatalf("Read = %+v; want an error saying %q", st, c.want)
			}
			if st.Policy != nil || !st.Managed() || st.Effective().Site("https://example.org").Level != 0 {
				t.Fatalf("a policy that cannot be honoured does not fail closed: %+v", st)
			}
			if !strings.Contains(st.Broken(), p) {
				t.Fatalf("the sentence does not name the file: %s", st.Broken())
			}
		})
	}
}

func TestFileNoneAndLinks(t *testing.T) {
	me := os.Geteuid()
	dir := t.TempDir()
	if st := (rootFile{path: filepath.Join(dir, "policy.json"), owner: me}).Read(); st.Managed() {
		t.Fatalf("no file: %+v", st)
	}
	if st := (rootFile{path: filepath.Join(dir, "none", "policy.json"), owner: me}).Read(); st.Managed() {
		t.Fatalf("no folder: %+v", st)
	}
	// A link, even to a good file, is not the file Reins checked.
	target := policyAt(t, good, 0o755, 0o644, -1, -1)
	link := filepath.Join(filepath.Dir(target), "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if st := (rootFile{path: link, owner: me}).Read(); st.Err == nil {
		t.Fatalf("a link was honoured: %+v", st)
	}
	// So is a folder that is a link.
	linkDir := filepath.Join(t.TempDir(), "reins")
	if err := os.Symlink(filepath.Dir(target), linkDir); err != nil {
		t.Fatal(err)
	}
	if st := (rootFile{path: filepath.Join(linkDir, "policy.json"), owner: me}).Read(); st.Err == nil || !strings.Contains(st.Err.Error(), "is not a folder") {
		t.Fatalf("a linked folder was honoured: %+v", st)
	}
	// A file too big to be a policy.
	big := policyAt(t, `{"denyApplications": ["`+strings.Repeat("a", maxSize)+`"]}`, 0o755, 0o644, -1, -1)
	if st := (rootFile{path: big, owner: me}).Read(); st.Err == nil || !strings.Contains(st.Err.Error(), "larger than a policy may be") {
		t.Fatalf("a huge file: %+v", st.Err)
	}
}

// The file must belong to root, not merely to whoever runs Reins: the
// person's own file is the one a same-user program could write.
func TestFileOfThePersonIsNotHonoured(t *testing.T) {
	testenv.Need(t, os.Geteuid() == 0, "root, to give a file to another user")
	p := policyAt(t, good, 0o755, 0o644, nobody, nobody)
	st := rootFile{path: p, owner: 0}.Read()
	if st.Err == nil || st.Policy != nil {
		t.Fatalf("a file of user %d was honoured as root's: %+v", nobody, st)
	}
}
