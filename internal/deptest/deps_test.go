// Package deptest enforces the import rule: data flows bridge → grounding →
// approvals → audit → executor; a stage may import an earlier stage, never a
// later one; only core wires the stages; the front ends (app, mcp) import
// core and no stage.
package deptest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/reins-app/reins/"

// stages in data-flow order; protocol belongs to the bridge.
var stages = []string{"bridge", "grounding", "approvals", "audit", "executor"}

func stageOf(pkg string) (int, bool) {
	rest, ok := strings.CutPrefix(pkg, mod)
	if !ok {
		return 0, false
	}
	top, _, _ := strings.Cut(rest, "/")
	for i, s := range stages {
		if top == s {
			return i, true
		}
	}
	return 0, false
}

type pkgInfo struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T, env []string, patterns ...string) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps"}, patterns...)...)
	cmd.Dir = "../.."
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkgInfo
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportRule(t *testing.T) {
	for _, env := range [][]string{nil, {"GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0"}} {
		pkgs := list(t, env, "./...")
		if len(pkgs) < 10 {
			t.Fatalf("go list found only %d packages", len(pkgs))
		}
		for _, p := range pkgs {
			checkStage(t, p)
			checkFrontEnd(t, p)
			checkOS(t, p)
		}
	}
}

// A stage imports only earlier stages (and itself), never core or a front end.
func checkStage(t *testing.T, p pkgInfo) {
	me, ok := stageOf(p.ImportPath)
	if !ok {
		return
	}
	for _, d := range p.Deps {
		if other, ok := stageOf(d); ok && other > me {
			t.Errorf("%s (stage %s) depends on the later stage %s", short(p.ImportPath), stages[me], short(d))
		}
		for _, bad := range []string{"core", "mcp", "app"} {
			if d == mod+bad || strings.HasPrefix(d, mod+bad+"/") {
				t.Errorf("%s (a stage) depends on %s", short(p.ImportPath), short(d))
			}
		}
	}
}

// A front end imports core, never a stage directly.
func checkFrontEnd(t *testing.T, p pkgInfo) {
	rest := strings.TrimPrefix(p.ImportPath, mod)
	if !(rest == "mcp" || strings.HasPrefix(rest, "mcp/") || rest == "app" || strings.HasPrefix(rest, "app/")) {
		return
	}
	for _, imp := range p.Imports {
		if _, ok := stageOf(imp); ok && !slices.Contains(toolImports[rest], short(imp)) {
			t.Errorf("front end %s imports the stage %s; it must go through core", short(p.ImportPath), short(imp))
		}
	}
}

// toolImports are the stage packages a developer's tool under app/cmd may
// import: the screenshots tool looks at a real desktop and clicks on it as
// a person does, through the executor's package for that. It is not one
// of the product's front ends.
var toolImports = map[string][]string{"app/cmd/screenshots": {"executor/xdesk"}}

// Input and window observation belong to the executor; the UI toolkit to app.
func checkOS(t *testing.T, p pkgInfo) {
	rest := strings.TrimPrefix(p.ImportPath, mod)
	top, _, _ := strings.Cut(rest, "/")
	for _, imp := range p.Imports {
		switch {
		case imp == "fyne.io/fyne/v2/app":
			if !strings.HasPrefix(rest, "app/cmd/") {
				t.Errorf("%s imports fyne's app package; only the thin main under app/cmd may", short(p.ImportPath))
			}
		case strings.HasPrefix(imp, "github.com/jezek/xgb"):
			if top != "executor" {
				t.Errorf("%s talks to X directly; only executor may", short(p.ImportPath))
			}
		case strings.HasPrefix(imp, "fyne.io/") || strings.HasPrefix(imp, "github.com/progrium/darwinkit"):
			if top != "app" {
				t.Errorf("%s imports the UI toolkit %s; only app may", short(p.ImportPath), imp)
			}
		}
	}
}

func TestStageOrder(t *testing.T) {
	// The rule is only as good as the mapping it uses.
	for pkg, want := range map[string]int{mod + "bridge/protocol": 0, mod + "grounding": 1, mod + "approvals": 2, mod + "audit": 3, mod + "executor": 4} {
		if got, ok := stageOf(pkg); !ok || got != want {
			t.Errorf("stageOf(%s) = %d, %v; want %d", pkg, got, ok, want)
		}
	}
	for _, pkg := range []string{mod + "core", mod + "mcp", mod + "bridgeX", "example.com/bridge"} {
		if _, ok := stageOf(pkg); ok {
			t.Errorf("%s is not a stage", pkg)
		}
	}
}

func short(p string) string { return strings.TrimPrefix(p, mod) }
