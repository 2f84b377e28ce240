package peercred

import (
	"os"
	"slices"
	"testing"
)

// A desktop as recorded: this Reins under its terminal; another Reins (a
// renamed copy) serving in its own terminal; a tray Reins started by the
// panel; another user's Reins, whose executable cannot be read; Chrome's
// pairing helper, a Reins binary too; and programs that are not Reins,
// one of them called "reins" while its executable can be read.
func TestReinsProcessesAreEveryReinsAndWhatTheyDescendFrom(t *testing.T) {
	type rec struct {
		parent     int
		name, arg1 string
	}
	recs := map[int]rec{}
	var procs []Process
	bin := func(pid, parent int, name, exe, arg1 string) {
		recs[pid] = rec{parent, name, arg1}
		p := Process{PID: pid, Exe: exe, Hidden: exe == "-"}
		switch exe {
		case "-":
			p.Exe = ""
		case "":
		default:
			p.Open, p.File = exe, FileID{Ino: uint64(pid)}
		}
		procs = append(procs, p)
	}
	bin(1, 0, "systemd", "/sbin/init", "")
	bin(10, 1, "xterm", "/usr/bin/xterm", "-e")
	bin(11, 10, "bash", "/bin/bash", "")
	bin(12, 11, "reins", "/opt/reins", "serve") // this Reins
	bin(20, 1, "xterm", "/usr/bin/xterm", "-e")
	bin(21, 20, "script", "/usr/bin/script", "-qfc")
	bin(22, 21, "notes", "/tmp/notes", "serve") // another Reins, renamed
	bin(30, 1, "xfce4-panel", "/usr/bin/xfce4-panel", "")
	bin(31, 30, "reins", "/usr/local/bin/reins", "") // a tray Reins
	bin(40, 1, "sshd", "-", "")
	bin(41, 40, "reins", "-", "serve") // another user's
	bin(42, 40, "sshd", "-", "")       // another user's, not Reins
	bin(50, 1, "chromium", "/usr/lib/chromium/chromium", "")
	bin(51, 50, "reins", "/usr/local/bin/reins", "chrome-extension://abcdefgh/")
	bin(60, 1, "reins", "/usr/bin/reins-of-another-project", "")
	bin(61, 1, "vim", "/usr/bin/vim", "")
	bin(62, 2, "kworker/0:1", "", "") // a kernel thread: no executable
	look := procLookups{
		main: func(p Process) string {
			switch p.Exe {
			case "/opt/reins", "/tmp/notes", "/usr/local/bin/reins":
				return reinsMain
			case "/usr/bin/reins-of-another-project":
				return "example.com/reins"
			}
			return ""
		},
		name:   func(pid int) (string, error) { return recs[pid].name, nil },
		arg1:   func(pid int) (string, error) { return recs[pid].arg1, nil },
		parent: func(pid int) (int, error) { return recs[pid].parent, nil },
	}
	got := reinsAmong(procs, []int{12, 11, 10}, look)
	want := []int{12, 11, 10, 22, 21, 20, 31, 30, 41, 40}
	if !slices.Equal(got, want) {
		t.Fatalf("Reins' processes = %v, want %v", got, want)
	}
}

// This test binary is no Reins: ReinsProcesses holds its own ancestry, and
// reads its own executable's build information to say so.
func TestReinsProcessesHoldThisOneAndReadBuildInformation(t *testing.T) {
	pids, err := ReinsProcesses()
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) == 0 || pids[0] != os.Getpid() {
		t.Fatalf("ReinsProcesses = %v, want this process first", pids)
	}
	self, _ := os.Executable()
	if got := mainPackage(Process{Exe: self, Open: self}); got != "github.com/reins-app/reins/internal/peercred.test" {
		t.Fatalf("the main package of this test binary = %q", got)
	}
}

// BenchmarkReinsProcesses is the scan asked for each act, once each
// executable's build information is kept.
func BenchmarkReinsProcesses(b *testing.B) {
	if _, err := ReinsProcesses(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ReinsProcesses()
	}
}
