package peercred

import (
	"os"
	"path/filepath"
	"testing"
)

// A /proc laid out in a directory: the listing reads each process's
// executable, tells one that cannot be read for want of permission, and
// leaves out what is not a process or ended while it was read; the name
// and first argument are read on demand.
func TestProcessesReadsAProcLayout(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(t.TempDir(), "notes")
	if err := os.WriteFile(bin, []byte("a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	proc := func(pid, comm, cmdline, exe string) {
		dir := filepath.Join(root, pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "cmdline"), []byte(cmdline), 0o644)
		if exe != "" {
			os.Symlink(exe, filepath.Join(dir, "exe"))
		}
	}
	proc("120", "reins", "/opt/reins\x00serve\x00-mcp-port\x00-1\x00", bin)
	proc("121", "a (tricky) name", "x\x00", "")
	proc("122", "reins", "reins\x00chrome-extension://abc/\x00", filepath.Join(root, "gone"))
	os.MkdirAll(filepath.Join(root, "self"), 0o755) // not a process

	ps, err := processesIn(root)
	if err != nil {
		t.Fatal(err)
	}
	by := map[int]Process{}
	for _, p := range ps {
		by[p.PID] = p
	}
	if len(by) != 3 {
		t.Fatalf("listed %+v, want processes 120, 121 and 122", ps)
	}
	if p := by[120]; p.Exe != bin || p.Open != filepath.Join(root, "120", "exe") || p.File == (FileID{}) || p.Hidden {
		t.Errorf("process 120 = %+v", p)
	}
	// No executable, or one that cannot be opened: none is named.
	for _, pid := range []int{121, 122} {
		if p := by[pid]; p.Exe != "" || p.Open != "" || p.File != (FileID{}) {
			t.Errorf("process %d = %+v", pid, p)
		}
	}
	for pid, want := range map[int][2]string{120: {"reins", "serve"}, 121: {"a (tricky) name", ""}, 122: {"reins", "chrome-extension://abc/"}} {
		n, err := nameIn(root, pid)
		a, err2 := arg1In(root, pid)
		if err != nil || err2 != nil || n != want[0] || a != want[1] {
			t.Errorf("process %d: name %q, first argument %q (%v, %v); want %q", pid, n, a, err, err2, want)
		}
	}
}

func TestProcessesListsThisOne(t *testing.T) {
	ps, err := Processes()
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	for _, p := range ps {
		if p.PID == os.Getpid() {
			if p.Exe != self || p.File == (FileID{}) || p.Hidden {
				t.Fatalf("this process = %+v, want executable %s", p, self)
			}
			if n, err := Name(p.PID); err != nil || n == "" {
				t.Fatalf("this process's name: %q, %v", n, err)
			}
			return
		}
	}
	t.Fatalf("this process (%d) is not among the %d listed", os.Getpid(), len(ps))
}
