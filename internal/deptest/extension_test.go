package deptest

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The content script's layers, as its source folder lays them out: pure
// modules touch no DOM and import only each other, so they can be tested
// and reasoned about without a page; DOM modules may use pure ones; the
// entry wires them. The bundle hides this, so the rule is checked on src/.
const (
	layerPure  = "pure"
	layerDOM   = "dom"
	layerEntry = "entry"
	entryFile  = "content.js"
)

// mayImport is, per layer, the layers and packages its modules may import.
var mayImport = map[string][]string{
	layerPure:  {layerPure},
	layerDOM:   {layerPure, layerDOM, "dom-accessibility-api"},
	layerEntry: {layerPure, layerDOM},
}

// Globals of a page, a browser or an extension that pure code must not
// touch, read as whole identifiers that are neither a property (x.window)
// nor an object key ({top: 1}).
var pageGlobals = regexp.MustCompile(`(?:^|[^.\w$])(window|document|globalThis|self|chrome|browser|navigator|navigation|location|history|frames|parent|top|opener|screen|screenX|screenY|innerWidth|innerHeight|outerWidth|outerHeight|scrollX|scrollY|devicePixelRatio|visualViewport|performance|crypto|Node|Element|HTMLElement|Document|ShadowRoot|MutationObserver|WeakRef|getComputedStyle|addEventListener|removeEventListener|requestAnimationFrame|setTimeout|setInterval|queueMicrotask|fetch|XMLHttpRequest|WebSocket|postMessage|importScripts)\b(?:\s*[^:\s]|\s*$)`)

var (
	staticImport  = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']*)["']|(?m)^\s*import\s*["']([^"']*)["']`)
	dynamicImport = regexp.MustCompile(`(?:^|[^.\w$])(?:import\s*\(|require\s*\()`)
)

// extensionSrc is the content script's source, from this package.
var extensionSrc = filepath.Join("..", "..", "extension", "src")

// stripJS blanks out comments and string literals (keeping line breaks), so
// that what is left is code. It does not know regular expression literals;
// one holding a quote or a comment marker would confuse it.
func stripJS(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 2
			}
			b.WriteString(strings.Repeat("\n", strings.Count(src[i:i+2+end], "\n")))
			i += end + 4
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(`""`)
			i = j + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// layerOf is the layer of a module at rel (slash-separated, under src/), or
// "" for a file that is no module of the content script.
func layerOf(rel string) string {
	switch {
	case rel == entryFile:
		return layerEntry
	case strings.HasPrefix(rel, "pure/") && !strings.Contains(rel[len("pure/"):], "/"):
		return layerPure
	case strings.HasPrefix(rel, "dom/") && !strings.Contains(rel[len("dom/"):], "/"):
		return layerDOM
	}
	return ""
}

// importProblems lists what breaks the rule in the module at rel with
// source src; exists reports whether a module path under src/ exists.
func importProblems(rel, src string, exists func(string) bool) []string {
	var problems []string
	layer := layerOf(rel)
	if layer == "" {
		return []string{rel + ": a module of the content script lives under pure/ or dom/, or is " + entryFile}
	}
	if !strings.HasPrefix(strings.TrimSpace(src), "//") || !strings.Contains(src[:max(0, strings.Index(src, "\n\n"))+1], "Import") {
		problems = append(problems, rel+": it does not open with a comment saying what it is for and what it may import")
	}
	code := stripJS(src)
	if dynamicImport.MatchString(code) {
		problems = append(problems, rel+": a dynamic import or require: modules import statically, so the rule can be checked")
	}
	for _, m := range staticImport.FindAllStringSubmatch(src, -1) {
		spec := m[1] + m[2]
		target := spec
		if strings.HasPrefix(spec, ".") {
			target = path.Join(path.Dir(rel), spec)
			if !strings.HasSuffix(spec, ".js") || !exists(target) {
				problems = append(problems, rel+": imports "+spec+", which is no module under src/")
				continue
			}
			if target == entryFile {
				problems = append(problems, rel+": imports the entry point")
				continue
			}
			target = layerOf(target)
		}
		if !slices.Contains(mayImport[layer], target) {
			problems = append(problems, rel+": a "+layer+" module imports "+spec)
		}
	}
	if layer == layerPure {
		for _, m := range pageGlobals.FindAllStringSubmatch(code, -1) {
			problems = append(problems, rel+": a pure module uses "+m[1])
		}
	}
	return problems
}

// TestPureModulesImportNoDOM holds src/ to its layers: pure modules never
// import DOM modules (nor any package) and use no page global; DOM modules
// import pure and DOM modules and dom-accessibility-api; nothing imports the
// entry point.
func TestPureModulesImportNoDOM(t *testing.T) {
	exists := func(rel string) bool {
		fi, err := os.Stat(filepath.Join(extensionSrc, filepath.FromSlash(rel)))
		return err == nil && !fi.IsDir()
	}
	var modules []string
	err := filepath.WalkDir(extensionSrc, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, extensionSrc+string(filepath.Separator)))
		if d.IsDir() {
			if rel == "node_modules" || rel == "test" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".js") || strings.HasSuffix(rel, ".mjs") || strings.HasSuffix(rel, ".cjs") {
			modules = append(modules, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, rel := range modules {
		b, err := os.ReadFile(filepath.Join(extensionSrc, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		seen[layerOf(rel)]++
		for _, p := range importProblems(rel, string(b), exists) {
			t.Error(p)
		}
	}
	if seen[layerPure] == 0 || seen[layerDOM] == 0 || seen[layerEntry] != 1 {
		t.Errorf("src/ has %d pure modules, %d DOM modules and %d entry points", seen[layerPure], seen[layerDOM], seen[layerEntry])
	}
}

// The rule itself, on modules it must pass and modules it must refuse.
func TestImportRuleJudgesRightly(t *testing.T) {
	exists := func(rel string) bool {
		return slices.Contains([]string{"pure/a.js", "pure/b.js", "dom/c.js", "dom/d.js", entryFile}, rel)
	}
	head := "// What it is for.\n// Imports what it may.\n\n"
	for _, c := range []struct {
		rel, src string
		bad      bool
	}{
		{"pure/a.js", head + `import { b } from "./b.js";` + "\nexport const a = () => b(\"document window\"); // chrome, document\nconst box = { top: 1, parent: 2 };\nx.window = y.document;\n", false},
		{"dom/c.js", head + `import { a } from "../pure/a.js";` + "\n" + `import { d } from "./d.js";` + "\n" + `import { getRole } from "dom-accessibility-api";` + "\nconst s = getComputedStyle(document.body);\n", false},
		{entryFile, head + `import { c } from "./dom/c.js";` + "\n" + `import { a } from "./pure/a.js";` + "\n", false},
		{"pure/a.js", head + `import { c } from "../dom/c.js";`, true},
		{"pure/a.js", head + "export {\n  c,\n} from '../dom/c.js';", true},
		{"pure/a.js", head + `import "../dom/c.js";`, true},
		{"pure/a.js", head + `import { getRole } from "dom-accessibility-api";`, true},
		{"pure/a.js", head + "export const f = () => document.title;", true},
		{"pure/a.js", head + "export const f = (e) => getComputedStyle(e).display;", true},
		{"pure/a.js", head + "export const f = () => chrome.runtime.id;", true},
		{"pure/a.js", head + "export const f = () => window;", true},
		{"pure/a.js", head + "export const f = (e) => e instanceof Node;", true},
		{"pure/a.js", head + `export const f = () => import("../dom/c.js");`, true},
		{"pure/a.js", head + `import { x } from "./missing.js";`, true},
		{"pure/a.js", head + `import { x } from "./b";`, true},
		{"dom/c.js", head + `import { x } from "../content.js";`, true},
		{"dom/c.js", head + `import { x } from "jsdom";`, true},
		{"pure/a.js", "export const a = 1;\n", true},
		{"lib/e.js", head, true},
	} {
		if got := len(importProblems(c.rel, c.src, exists)) > 0; got != c.bad {
			t.Errorf("the rule judges %s wrongly (refused: %v, want %v):\n%s\n%v", c.rel, got, c.bad, c.src, importProblems(c.rel, c.src, exists))
		}
	}
}

// extensionDir is the extension's folder, from this package.
var extensionDir = filepath.Join("..", "..", "extension")

// workerProblems lists what breaks the service worker's rule in the module
// at rel (slash-separated, under extension/): a module under worker/ opens
// with a comment saying what it imports, imports statically (a service
// worker may not import() at all), and only modules of worker/ and the two
// scripts it shares with the panel and its tests, strip.js and session.js;
// nothing imports the entry, sw.js.
func workerProblems(rel, src string, exists func(string) bool) []string {
	var problems []string
	if !strings.HasPrefix(strings.TrimSpace(src), "//") || !strings.Contains(src[:max(0, strings.Index(src, "\n\n"))+1], "Import") {
		problems = append(problems, rel+": it does not open with a comment saying what it is for and what it imports")
	}
	if dynamicImport.MatchString(stripJS(src)) {
		problems = append(problems, rel+": a dynamic import or require: a service worker imports statically")
	}
	for _, m := range staticImport.FindAllStringSubmatch(src, -1) {
		spec := m[1] + m[2]
		target := path.Join(path.Dir(rel), spec)
		switch {
		case !strings.HasPrefix(spec, "."), !strings.HasSuffix(spec, ".js"), !exists(target):
			problems = append(problems, rel+": imports "+spec+", which is no file of the extension")
		case target == "sw.js":
			problems = append(problems, rel+": imports the entry point")
		case target != "strip.js" && target != "session.js" && !(strings.HasPrefix(target, "worker/") && !strings.Contains(target[len("worker/"):], "/")):
			problems = append(problems, rel+": imports "+spec+"; the worker's modules import each other, strip.js and session.js only")
		}
	}
	return problems
}

// TestWorkerModulesImportOnlyTheWorker holds the service worker's modules
// (extension/worker/*.js) to their rule, and the rule itself to cases it
// must pass and refuse.
func TestWorkerModulesImportOnlyTheWorker(t *testing.T) {
	exists := func(rel string) bool {
		fi, err := os.Stat(filepath.Join(extensionDir, filepath.FromSlash(rel)))
		return err == nil && !fi.IsDir()
	}
	mods, err := filepath.Glob(filepath.Join(extensionDir, "worker", "*.js"))
	if err != nil || len(mods) == 0 {
		t.Fatalf("no modules in extension/worker: %v", err)
	}
	for _, m := range mods {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range workerProblems("worker/"+filepath.Base(m), string(b), exists) {
			t.Error(p)
		}
	}

	fake := func(rel string) bool {
		return slices.Contains([]string{"sw.js", "strip.js", "session.js", "content.js", "worker/a.js", "worker/b.js"}, rel)
	}
	head := "// What it is for.\n// Imports what it may.\n\n"
	for _, c := range []struct {
		src string
		bad bool
	}{
		{head + `import { b } from "./b.js";` + "\n" + `import "../strip.js";` + "\n" + `import "../session.js";` + "\n", false},
		{head + `import { x } from "../sw.js";`, true},
		{head + `import "../content.js";`, true},
		{head + `import { x } from "./missing.js";`, true},
		{head + `import { x } from "./b";`, true},
		{head + `import { x } from "dom-accessibility-api";`, true},
		{head + `const m = await import("./b.js");`, true},
		{"import { b } from \"./b.js\";\n", true},
	} {
		if got := len(workerProblems("worker/a.js", c.src, fake)) > 0; got != c.bad {
			t.Errorf("the rule judges wrongly (refused: %v, want %v):\n%s", got, c.bad, c.src)
		}
	}
}
