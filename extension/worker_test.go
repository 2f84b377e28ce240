package extension

import (
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// TestWorkerUnits runs the service worker's node unit tests
// (worker/test/*.test.js): each module of worker/ on a stand-in chrome,
// the pairing glue against the protocol's golden handshake and vectors.
func TestWorkerUnits(t *testing.T) {
	node := testenv.NeedCommand(t, "node")
	files, err := filepath.Glob(filepath.Join("worker", "test", "*.test.js"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no unit tests in worker/test")
	}
	args := []string{"--test"}
	for _, f := range files {
		args = append(args, filepath.Join("test", filepath.Base(f)))
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = "worker"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test in extension/worker: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "# ") && !strings.Contains(line, "Warning") && !strings.Contains(line, "--trace-warnings") {
			t.Log(line[2:])
		}
	}
}

// The service worker is a module, and every module it imports, and every
// one those import, ships: a file left out of the embed would load in
// the tests and fail in Chrome.
func TestWorkerModulesShip(t *testing.T) {
	if m := readManifest(t); m.Background.ServiceWorker != "sw.js" || m.Background.Type != "module" {
		t.Fatalf("background = %+v, want the module sw.js", m.Background)
	}
	imports := regexp.MustCompile(`(?m)^import (?:[^"]* from )?"([^"]+)";`)
	seen := map[string]bool{}
	todo := []string{"sw.js"}
	for len(todo) > 0 {
		f := todo[0]
		todo = todo[1:]
		if seen[f] {
			continue
		}
		seen[f] = true
		b, err := fs.ReadFile(Files(), f)
		if err != nil {
			t.Errorf("%s is not embedded: %v", f, err)
			continue
		}
		for _, m := range imports.FindAllStringSubmatch(string(b), -1) {
			if !strings.HasPrefix(m[1], "./") && !strings.HasPrefix(m[1], "../") {
				t.Errorf("%s imports %s, which is no file of the extension", f, m[1])
				continue
			}
			todo = append(todo, path.Join(path.Dir(f), m[1]))
		}
	}
	for _, want := range []string{"worker/pairing.js", "worker/tabs.js", "worker/requests.js", "worker/capture.js", "worker/badge.js", "strip.js", "session.js"} {
		if !seen[want] {
			t.Errorf("the service worker does not load %s", want)
		}
	}
	mods, _ := fs.Glob(Files(), "worker/*.js")
	for _, m := range mods {
		if !seen[m] {
			t.Errorf("%s ships but the service worker never loads it", m)
		}
	}
}
