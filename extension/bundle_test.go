package extension

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// TestBundleIsFresh rebuilds content.js from src/ with the pinned esbuild and
// fails when the committed bundle differs: Chrome loads the committed file,
// so an edit to the source that was not rebuilt would never run.
func TestBundleIsFresh(t *testing.T) {
	needModules(t)
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	b, err := os.ReadFile("src/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	const committed = "--outfile=../content.js"
	script := pkg.Scripts["build"]
	if !strings.Contains(script, committed) {
		t.Fatalf("the build script no longer writes %s: %q", committed, script)
	}
	out := filepath.Join(t.TempDir(), "content.js")
	cmd := exec.Command("sh", "-c", strings.Replace(script, committed, "--outfile="+out, 1)+" --log-level=warning")
	cmd.Dir = "src"
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(mustAbs(t, "src"), "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, o)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("content.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("extension/content.js is stale: run `cd extension/src && npm ci && npm run build` and commit the result")
	}
}

// needModules installs src/'s pinned packages (esbuild, dom-accessibility-api)
// with npm ci unless they are there.
func needModules(t *testing.T) {
	t.Helper()
	_, errBuild := os.Stat("src/node_modules/.bin/esbuild")
	_, errLib := os.Stat("src/node_modules/dom-accessibility-api/package.json")
	if errBuild == nil && errLib == nil {
		return
	}
	npm := testenv.NeedCommand(t, "npm")
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = "src"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in extension/src: %v\n%s", err, out)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
