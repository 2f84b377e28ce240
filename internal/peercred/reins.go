package peercred

import (
	"debug/buildinfo"
	"os"
	"slices"
	"strings"
	"sync"
)

// Ancestry is this process and every process it descends from, nearest
// first, without init: the processes whose windows are Reins' own. A
// terminal running `reins serve` is one of them, and so is a renamed copy
// of Reins, whatever its windows are called. A process it cannot read ends
// the walk.
func Ancestry() []int {
	var out []int
	for pid := os.Getpid(); pid > 1 && !slices.Contains(out, pid) && len(out) < 64; {
		out = append(out, pid)
		parent, err := Parent(pid)
		if err != nil {
			break
		}
		pid = parent
	}
	return out
}

// reinsMain is the main package of the Reins binary, as its Go build
// information names it: a renamed copy is still Reins.
const reinsMain = "github.com/reins-app/reins/app/cmd/reins"

// ReinsProcesses is every process whose windows are a Reins': this process
// and those it descends from ([Ancestry]), and every other process running
// a Reins binary, with every process it descends from (the terminal that
// runs its `reins serve`). A Reins binary is known by its Go build
// information, read from the executable's file and kept by the file's
// identity; where the executable cannot be read (another user's process),
// by its command name, "reins". The pairing helper Chrome starts, a Reins
// binary whose first argument is the extension's origin, is left out: its
// parent is the browser.
//
// It lists every process, so it is asked once for each act, not for each
// event (see BenchmarkReinsProcesses for what it costs).
func ReinsProcesses() ([]int, error) {
	procs, err := Processes()
	if err != nil {
		return Ancestry(), err
	}
	return reinsAmong(procs, Ancestry(), osLookups), nil
}

// procLookups are what ReinsProcesses reads of a process beyond the
// listing, of the few that need it.
type procLookups struct {
	// main names the main package a process's executable was built from,
	// "" when it cannot be read or is no Go program.
	main   func(Process) string
	name   func(pid int) (string, error)
	arg1   func(pid int) (string, error)
	parent func(pid int) (int, error)
}

var osLookups = procLookups{main: mainPackage, name: Name, arg1: Arg1, parent: Parent}

// reinsAmong is ReinsProcesses over a listing, with self (Ancestry) first.
func reinsAmong(procs []Process, self []int, look procLookups) []int {
	out := slices.Clone(self)
	for _, p := range procs {
		if slices.Contains(out, p.PID) || !isReins(p, look) {
			continue
		}
		for pid, n := p.PID, 0; pid > 1 && n < 64 && !slices.Contains(out, pid); n++ {
			out = append(out, pid)
			parent, err := look.parent(pid)
			if err != nil {
				break
			}
			pid = parent
		}
	}
	return out
}

// isReins reports whether p runs a Reins binary, other than Chrome's
// pairing helper.
func isReins(p Process, look procLookups) bool {
	switch {
	case p.Hidden:
		if n, err := look.name(p.PID); err != nil || n != "reins" {
			return false
		}
	case p.Exe == "" || look.main(p) != reinsMain:
		return false
	}
	// A helper that ended before its arguments were read is gone, and
	// its windows with it; one whose arguments cannot be read counts.
	a, _ := look.arg1(p.PID)
	return !strings.HasPrefix(a, "chrome-extension://")
}

// mains keeps the main package of each executable file read, by the file's
// identity: a desktop runs few distinct programs, each read once.
var mains struct {
	mu sync.Mutex
	m  map[FileID]string // guarded by mu
}

// mainPackage is the main package p's executable was built from, "" for
// none.
func mainPackage(p Process) string {
	if p.Open == "" {
		return ""
	}
	mains.mu.Lock()
	defer mains.mu.Unlock()
	if m, ok := mains.m[p.File]; ok && p.File != (FileID{}) {
		return m
	}
	if mains.m == nil || len(mains.m) > 4096 {
		mains.m = map[FileID]string{}
	}
	main := ""
	if bi, err := buildinfo.ReadFile(p.Open); err == nil {
		main = bi.Path
	}
	if p.File != (FileID{}) {
		mains.m[p.File] = main
	}
	return main
}
