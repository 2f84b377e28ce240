package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is the reins binary the tests of this package run, built once.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// reinsBinary is the real binary, built from this package for the tests.
func reinsBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "reins-cmd-test"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "reins")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("building reins: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
