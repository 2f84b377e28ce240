// Package deptest enforces the import rule (ARCHITECTURE.md): data flows
// bridge → grounding → approvals → audit → executor; a stage may import an
// earlier stage, never a later one; only core wires the stages. Beside the
// executor, at its stage, deskread reads the desktop: it may ask the
// executor about windows, and the executor never links it. Under the
// executor, executor/hand watches the person's hand for it and for core
// alone, and executor/hotkey takes the pause chord for core. Below them
// all is vocab, the words every layer speaks. The front ends reach core
// only through a door: mcp holds the agents' door (agentdoor) and can never
// import the person's (persondoor), so no tool can approve; the person's
// front ends (app/ui, app/serve) hold the person's door. Only the mains
// under app/cmd import core, to start it and hand each front end its door.
// The organisation's policy (package policy) lies beside vocab, under all
// of them. The person's front ends, their door and the settings link
// neither X input, D-Bus nor the SQLite driver. The release binary holds
// no test helper package and no test seam.
package deptest

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/reins-app/reins/"

// stages in data-flow order; protocol belongs to the bridge.
var stages = []string{"bridge", "grounding", "approvals", "audit", "executor"}

// besides are packages at a stage's place beside it: the reader of the
// desktop beside the executor.
var besides = map[string]string{"deskread": "executor"}

func stageOf(pkg string) (int, bool) {
	rest, ok := strings.CutPrefix(pkg, mod)
	if !ok {
		return 0, false
	}
	top, _, _ := strings.Cut(rest, "/")
	if at, ok := besides[top]; ok {
		top = at
	}
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
	// macOS with cgo too: the files that import darwinkit need it, and go
	// list needs no C compiler to read them.
	for _, env := range [][]string{nil, {"GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0"}, {"GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=1"}} {
		pkgs := list(t, env, "./...")
		if len(pkgs) < 10 {
			t.Fatalf("go list found only %d packages", len(pkgs))
		}
		for _, p := range pkgs {
			checkStage(t, p)
			checkFrontEnd(t, p)
			checkDoors(t, p)
			checkLinks(t, p)
			checkOS(t, p)
			checkReader(t, p)
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
		for _, bad := range []string{"core", "mcp", "app", "agentdoor", "persondoor", "settings"} {
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

// Each door, the vocabulary and the settings may import only what is
// listed for them (of this module), so that none reaches back into core or
// across to the other door; each front end is barred from what is listed
// for it.
var (
	onlyImports = map[string][]string{
		"vocab":     {"internal/plain"},
		"agentdoor": {"vocab"},
		// The person's door has audit rows of its own, which core converts
		// from the log's, so it never links the log's database.
		"persondoor": {"vocab", "settings", "policy", "internal/plain"},
		"settings":   {"vocab", "denylist", "keychord", "internal/atomicfile", "internal/autostart"},
		// The deny list and the key chords are leaves under the executor
		// and the settings alike, so the person's door reads them without
		// linking the code that sends input.
		"denylist": {"vocab"},
		"keychord": {},
		// The macOS bindings are a leaf, under both the executor and the app;
		// Accessibility's, on them, under the executor and the desktop reader.
		"internal/macos":    {},
		"internal/macos/ax": {"internal/macos"},
		// Under the executor: the watch on the person's hand, and the
		// CoreGraphics event bindings it shares with the executor. Neither
		// reaches up into the executor or any stage.
		"executor/hand":            {"executor/internal/quartz", "internal/macos"},
		"executor/internal/quartz": {"internal/macos"},
		// The pause chord, taken across the desktop: the executor says which
		// key it names on this keyboard, keychord which chords may pause.
		"executor/hotkey": {"executor", "keychord", "internal/macos"},
		// The organisation's policy is a leaf every stage may read: it
		// narrows shares, agents, plans and the audit's copies, and must
		// never reach back into what it narrows.
		"policy": {"vocab", "internal/macos"},
	}
	barred = map[string][]string{
		// The agents' front end: the person's door, core and the settings
		// are out of its reach, so no tool approves, shares, pauses or
		// changes a setting.
		"mcp": {"core", "persondoor", "settings", "app"},
		// The person's front ends hold the person's door, not core.
		"app/ui":    {"core", "agentdoor", "mcp"},
		"app/serve": {"core", "agentdoor", "mcp"},
		// The settings check a chord and name applications with the
		// leaves that hold them, never with the code that sends input.
		"settings": {"executor"},
		// The executor fires; what reads the desktop sits beside it, and
		// the executor never reaches it.
		"executor": {"deskread"},
	}
	// linksOnly names the packages that link only what the person sees,
	// and the outside modules that must never be among their dependencies:
	// X input, D-Bus and the SQLite driver belong to the executor and the
	// audit log, which the person's windows reach through core.
	linksOnly = map[string][]string{
		"app/ui":     machinery,
		"app/serve":  machinery,
		"persondoor": machinery,
		"settings":   machinery,
	}
	machinery = []string{"github.com/jezek/xgb", "github.com/godbus/dbus", "modernc.org/sqlite"}
)

// linkProblems names the modules barred by linksOnly that p depends on,
// through any path.
func linkProblems(p pkgInfo) []string {
	rest, ok := strings.CutPrefix(p.ImportPath, mod)
	if !ok {
		return nil
	}
	var out []string
	for pkg, bad := range linksOnly {
		if rest != pkg && !strings.HasPrefix(rest, pkg+"/") {
			continue
		}
		for _, m := range bad {
			for _, dep := range p.Deps {
				if dep == m || strings.HasPrefix(dep, m+"/") {
					out = append(out, fmt.Sprintf("%s depends on %s; it links only what the person sees", rest, dep))
					break // once for each module
				}
			}
		}
	}
	return out
}

func checkLinks(t *testing.T, p pkgInfo) {
	for _, problem := range linkProblems(p) {
		t.Error(problem)
	}
}

func checkDoors(t *testing.T, p pkgInfo) {
	rest, ok := strings.CutPrefix(p.ImportPath, mod)
	if !ok {
		return
	}
	for pkg, allowed := range onlyImports {
		if rest != pkg {
			continue
		}
		for _, imp := range p.Imports {
			if other, ok := strings.CutPrefix(imp, mod); ok && !slices.Contains(allowed, other) {
				t.Errorf("%s imports %s; it may import only %s of Reins", rest, other, strings.Join(allowed, ", "))
			}
		}
	}
	for pkg, bad := range barred {
		if rest != pkg && !strings.HasPrefix(rest, pkg+"/") {
			continue
		}
		// Through any path: a package in between would be a way round.
		for _, dep := range p.Deps {
			for _, b := range bad {
				if dep == mod+b || strings.HasPrefix(dep, mod+b+"/") {
					t.Errorf("%s depends on %s, which it must never reach", rest, short(dep))
				}
			}
		}
	}
	if slices.Contains(p.Imports, mod+"core") && !slices.Contains(coreImporters, rest) {
		t.Errorf("%s imports core; only %s may, to start it and hand out the doors", rest, strings.Join(coreImporters, " and "))
	}
	for pkg, importers := range importedOnlyBy {
		if slices.Contains(p.Imports, mod+pkg) && !slices.Contains(importers, rest) {
			t.Errorf("%s imports %s; only %s may", rest, pkg, strings.Join(importers, " and "))
		}
	}
}

// importedOnlyBy names the packages (tests aside) that may import a
// package: the watch on the person's hand is the executor's, which fires
// under it, and core's, which asks it whose a press on a window that
// allows was and whether macOS lets Reins watch at all; the pause chord is
// core's, which pauses every agent when the person presses it.
var importedOnlyBy = map[string][]string{
	"executor/hand":   {"executor", "core"},
	"executor/hotkey": {"core"},
}

// coreImporters are the packages (tests aside) that may import core: the
// main that starts it, and the test rig of a whole engine.
var coreImporters = []string{"app/cmd/reins", "core/coretest"}

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
			if top != "executor" && top != "deskread" {
				t.Errorf("%s talks to X directly; only executor and deskread may", short(p.ImportPath))
			}
		case strings.HasPrefix(imp, "fyne.io/") || strings.HasPrefix(imp, "github.com/progrium/darwinkit") || strings.HasPrefix(imp, "github.com/go-gl/"):
			if top != "app" {
				t.Errorf("%s imports the UI toolkit %s; only app may", short(p.ImportPath), imp)
			}
		}
	}
}

// readerImports are what deskread may import of Reins: the executor, for
// its windows and words, and the leaves under the stages. Never core, the
// approvals, the audit log, the doors or a front end: a read asks no one
// and writes nothing.
var readerImports = []string{"executor", "grounding/desktop", "denylist", "vocab", "internal/"}

func checkReader(t *testing.T, p pkgInfo) {
	rest, ok := strings.CutPrefix(p.ImportPath, mod)
	if !ok || (rest != "deskread" && !strings.HasPrefix(rest, "deskread/")) {
		return
	}
	for _, imp := range p.Imports {
		other, ok := strings.CutPrefix(imp, mod)
		if !ok || strings.HasPrefix(other, "deskread") {
			continue
		}
		allowed := slices.ContainsFunc(readerImports, func(a string) bool {
			return other == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(other, a))
		})
		if !allowed {
			t.Errorf("deskread imports %s; it may import only %s of Reins", other, strings.Join(readerImports, ", "))
		}
	}
}

func TestStageOrder(t *testing.T) {
	// The rule is only as good as the mapping it uses.
	for pkg, want := range map[string]int{mod + "bridge/protocol": 0, mod + "grounding": 1, mod + "approvals": 2, mod + "audit": 3, mod + "executor": 4, mod + "deskread": 4} {
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

// The rules hold for the packages they name: a renamed package would
// otherwise slip out of them.
func TestDoorRulesNameRealPackages(t *testing.T) {
	have := map[string]bool{}
	for _, p := range list(t, nil, "./...") {
		have[short(p.ImportPath)] = true
	}
	for pkg := range onlyImports {
		if !have[pkg] {
			t.Errorf("the rule for %s names no package", pkg)
		}
	}
	for pkg := range barred {
		if !have[pkg] {
			t.Errorf("the rule for %s names no package", pkg)
		}
	}
	for pkg := range linksOnly {
		if !have[pkg] {
			t.Errorf("the rule for %s names no package", pkg)
		}
	}
	for pkg := range importedOnlyBy {
		if !have[pkg] {
			t.Errorf("the rule for %s names no package", pkg)
		}
	}
}

// The link rule catches a module coming back by any path, and leaves the
// packages it does not name alone.
func TestLinkRuleCatchesTheMachinery(t *testing.T) {
	for _, tc := range []struct {
		p    pkgInfo
		want int
	}{
		{pkgInfo{ImportPath: mod + "app/ui", Deps: []string{"fmt", mod + "persondoor", "modernc.org/sqlite/lib"}}, 1},
		{pkgInfo{ImportPath: mod + "app/serve", Deps: []string{"github.com/jezek/xgb", "github.com/godbus/dbus/v5"}}, 2},
		{pkgInfo{ImportPath: mod + "settings", Deps: []string{"github.com/jezek/xgbutil"}}, 0},
		{pkgInfo{ImportPath: mod + "app/ui", Deps: []string{"fyne.io/fyne/v2", mod + "vocab"}}, 0},
		{pkgInfo{ImportPath: mod + "executor", Deps: []string{"github.com/jezek/xgb"}}, 0},
	} {
		if got := linkProblems(tc.p); len(got) != tc.want {
			t.Errorf("linkProblems(%s, %v) = %q; want %d", short(tc.p.ImportPath), tc.p.Deps, got, tc.want)
		}
	}
}
