// Command darwincheck type-checks Go code as macOS builds it with cgo, on
// any machine: no C compiler and no macOS SDK needed. Building Reins for
// macOS links Cocoa through cgo, which only a Mac can do; `go vet` with
// CGO_ENABLED=0 leaves out every file that needs cgo, and with them the
// tray, fyne's macOS paths and every call into darwinkit. This command is
// the compile gate for that code.
//
// Usage:
//
//	darwincheck [-arch arm64|amd64] [-test] [-v] [-C dir] packages...
//
// It lists the packages and their dependencies with
// `GOOS=darwin CGO_ENABLED=1 go list -e -deps -json`, parses each one's Go
// and cgo files, and checks them with go/types in dependency order, `import
// "C"` standing for a package that declares anything. Packages outside the
// main module are checked without their function bodies: only what they
// declare matters to the code that calls them.
//
// What it cannot see is what is written in C: a C function's arity, a C
// type's fields. Reins has no C of its own for that reason.
//
// Under a stand-in "C", every C type is invalid, and go/types reports some
// misuses of an operand of invalid type (a conversion, say) that a real
// cgo build never sees. An operand's type is invalid only when it comes
// from C or from an error reported on its own, so messages about such
// operands are dropped and counted; -v shows them.
//
// It prints each error as file:line:column and exits with status 1 when
// there is any, 2 when the packages cannot be listed.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command, its exit status returned: 0 when every package is
// clean, 1 when any has an error, 2 when it could not check at all.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("darwincheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	arch := fs.String("arch", "arm64", "the macOS architecture to check for: arm64 or amd64")
	tests := fs.Bool("test", false, "check each package's tests too")
	verbose := fs.Bool("v", false, "also print the messages about operands of invalid type, which are dropped")
	dir := fs.String("C", ".", "the directory to list the packages from")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: darwincheck [-arch arm64|amd64] [-test] [-v] [-C dir] packages...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	sizes := types.SizesFor("gc", *arch)
	if sizes == nil {
		fmt.Fprintf(stderr, "darwincheck: %q is not an architecture Go knows\n", *arch)
		return 2
	}
	start := time.Now()
	pkgs, err := list(*dir, *arch, *tests, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "darwincheck: %v\n", err)
		return 2
	}
	c := newChecker(pkgs, sizes)
	c.checkAll()
	took := time.Since(start)

	wd, _ := os.Getwd()
	for _, p := range c.errs {
		fmt.Fprintln(stdout, p.format(wd))
	}
	if *verbose {
		for _, p := range c.dropped {
			fmt.Fprintf(stdout, "%s (dropped)\n", p.format(wd))
		}
	}
	hint := ""
	if len(c.dropped) > 0 && !*verbose {
		hint = " (-v shows them)"
	}
	fmt.Fprintf(stdout, "darwincheck darwin/%s: %s, %d of the module, in %.1fs: %s, %s about operands of invalid type dropped%s\n",
		*arch, count(c.checked, "package"), c.ofModule, took.Seconds(), count(len(c.errs), "error"), count(len(c.dropped), "message"), hint)
	if len(c.errs) > 0 {
		return 1
	}
	return 0
}

// count says n things.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// listed is what `go list -json` says of one package, the fields used here.
type listed struct {
	ImportPath string
	Name       string
	Dir        string
	ForTest    string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	ImportMap  map[string]string
	Module     *struct {
		Path      string
		Main      bool
		GoVersion string
	}
	Error *struct {
		Pos string
		Err string
	}
}

// inModule reports whether p belongs to the main module, whose function
// bodies are checked too.
func (p *listed) inModule() bool { return p.Module != nil && p.Module.Main }

// generatedTestMain reports whether p is the main package `go test`
// generates, whose only file lies in the build cache.
func (p *listed) generatedTestMain() bool {
	return p.Name == "main" && strings.HasSuffix(p.ImportPath, ".test") && p.ForTest == ""
}

// list runs go list for macOS with cgo on arch, from dir.
func list(dir, arch string, tests bool, patterns []string) ([]*listed, error) {
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Name,Dir,ForTest,Standard,GoFiles,CgoFiles,ImportMap,Module,Error"}
	if tests {
		args = append(args, "-test")
	}
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH="+arch, "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []*listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		p := new(listed)
		if err := dec.Decode(p); err != nil {
			return nil, fmt.Errorf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, errors.New("go list found no package")
	}
	return pkgs, nil
}

// problem is one message, where it points.
type problem struct {
	pos token.Position
	msg string
}

// format prints the position relative to wd when it lies under it.
func (p problem) format(wd string) string {
	name := p.pos.Filename
	if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
		name = rel
	}
	switch {
	case name == "":
		return p.msg
	case p.pos.Line == 0:
		return name + ": " + p.msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, p.pos.Line, p.pos.Column, p.msg)
}

type checker struct {
	fset   *token.FileSet
	sizes  types.Sizes
	order  []*listed
	byPath map[string]*listed
	done   map[string]*types.Package
	busy   map[string]bool

	seen     map[problem]bool // a file of a package and of its test variant reports once
	errs     []problem
	dropped  []problem
	checked  int
	ofModule int
}

func newChecker(pkgs []*listed, sizes types.Sizes) *checker {
	c := &checker{
		fset: token.NewFileSet(), sizes: sizes, order: pkgs,
		byPath: map[string]*listed{}, done: map[string]*types.Package{}, busy: map[string]bool{},
		seen: map[problem]bool{},
	}
	for _, p := range pkgs {
		c.byPath[p.ImportPath] = p
	}
	return c
}

func (c *checker) checkAll() {
	for _, p := range c.order {
		if p.generatedTestMain() {
			continue
		}
		if _, err := c.check(p.ImportPath); err != nil {
			c.report(problem{msg: err.Error()})
		}
	}
}

func (c *checker) report(p problem) {
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	c.errs = append(c.errs, p)
}

func (c *checker) drop(p problem) {
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	c.dropped = append(c.dropped, p)
}

// invalidOperand reports whether msg is about an operand whose type is
// invalid, as go/types words it ("x (variable with invalid type)").
func invalidOperand(msg string) bool { return strings.Contains(msg, " with invalid type)") }

// check type-checks the package listed as path once, its imports first.
func (c *checker) check(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if tp, ok := c.done[path]; ok {
		return tp, nil
	}
	p := c.byPath[path]
	if p == nil {
		return nil, fmt.Errorf("go list did not list %s", path)
	}
	if c.busy[path] {
		return nil, fmt.Errorf("%s imports itself", path)
	}
	c.busy[path] = true
	defer delete(c.busy, path)

	if p.Error != nil {
		c.report(listProblem(p))
	}
	var files []*ast.File
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(p.Dir, name)
		}
		f, err := parser.ParseFile(c.fset, name, nil, parser.SkipObjectResolution)
		var syntax scanner.ErrorList
		switch {
		case errors.As(err, &syntax):
			for _, e := range syntax {
				c.report(problem{pos: e.Pos, msg: e.Msg})
			}
		case err != nil:
			c.report(problem{msg: err.Error()})
		}
		if f != nil {
			files = append(files, f)
		}
	}
	conf := types.Config{
		Importer:         importerFunc(func(imp string) (*types.Package, error) { return c.importFor(p, imp) }),
		Sizes:            c.sizes,
		FakeImportC:      true,
		IgnoreFuncBodies: !p.inModule(),
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok {
				c.report(problem{msg: err.Error()})
				return
			}
			pr := problem{pos: te.Fset.Position(te.Pos), msg: te.Msg}
			if invalidOperand(te.Msg) {
				c.drop(pr)
				return
			}
			c.report(pr)
		},
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	// The package's path without the test variant's suffix, as the code
	// names it.
	name, _, _ := strings.Cut(p.ImportPath, " ")
	tp, _ := conf.Check(name, c.fset, files, nil) // every error went to conf.Error
	c.done[path] = tp
	c.checked++
	if p.inModule() {
		c.ofModule++
	}
	return tp, nil
}

// importFor resolves an import of p's source as go list did: through p's
// ImportMap, which names test variants and vendored packages.
func (c *checker) importFor(p *listed, imp string) (*types.Package, error) {
	if mapped, ok := p.ImportMap[imp]; ok {
		imp = mapped
	}
	return c.check(imp)
}

// listProblem is go list's own complaint about p: a missing package or a
// file that does not parse, say.
func listProblem(p *listed) problem {
	msg := p.Error.Err
	if p.Error.Pos == "" {
		return problem{msg: p.ImportPath + ": " + msg}
	}
	return problem{msg: p.Error.Pos + ": " + msg}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
