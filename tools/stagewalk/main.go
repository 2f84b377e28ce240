// Command stagewalk follows an entry point of core through its calls, in the
// order they are written, and lists every call it makes into a stage of the
// pipeline: ground (the tab's bridge, the desktop reader, grounding),
// approve (approvals), audit, fire (executor). It counts how often the walk
// goes back from a later stage to an earlier one.
//
//	cd tools/stagewalk && go run . -dir ../.. '(*github.com/reins-app/reins/core.Session).DesktopAct'
//
// Calls inside core are followed (each function once, where it is first
// called); calls through an interface count for the interface's package.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

const module = "github.com/reins-app/reins/"

var stages = []struct {
	prefix string
	stage  int
	name   string
}{
	{"bridge", 1, "ground"},
	{"grounding", 1, "ground"},
	{"deskread", 1, "ground"},
	{"approvals", 2, "approve"},
	{"audit", 3, "audit"},
	{"executor", 4, "fire"},
}

func stageOf(pkg string) (int, string) {
	rel, ok := strings.CutPrefix(pkg, module)
	if !ok {
		return 0, ""
	}
	for _, s := range stages {
		if rel == s.prefix || strings.HasPrefix(rel, s.prefix+"/") {
			return s.stage, s.name
		}
	}
	return 0, ""
}

func main() {
	dir := flag.String("dir", ".", "the repository's root")
	verbose := flag.Bool("v", false, "list every call into a stage")
	flag.Parse()
	cfg := &packages.Config{Dir: *dir, Mode: packages.LoadAllSyntax}
	pkgs, err := packages.Load(cfg, "./core")
	if err != nil || packages.PrintErrors(pkgs) > 0 {
		fmt.Fprintln(os.Stderr, "stagewalk: could not load core:", err)
		os.Exit(1)
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	byName := map[string]*ssa.Function{}
	for fn := range ssautil.AllFunctions(prog) {
		byName[fn.String()] = fn
	}
	for _, entry := range flag.Args() {
		fn := byName[entry]
		if fn == nil {
			fmt.Fprintln(os.Stderr, "stagewalk: no function", entry)
			os.Exit(1)
		}
		w := &walk{seen: map[*ssa.Function]bool{}, verbose: *verbose}
		w.fn(fn)
		fmt.Printf("%s: %d calls into a stage, back to an earlier stage %d times\n", entry, w.calls, w.back)
	}
}

type walk struct {
	seen        map[*ssa.Function]bool
	last, calls int
	back        int
	verbose     bool
}

func (w *walk) fn(f *ssa.Function) {
	if f == nil || w.seen[f] || len(f.Blocks) == 0 {
		return
	}
	w.seen[f] = true
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.MakeClosure:
				w.fn(in.Fn.(*ssa.Function))
			case ssa.CallInstruction:
				c := in.Common()
				if c.IsInvoke() {
					pkg := ""
					if m := c.Method; m != nil && m.Pkg() != nil {
						pkg = m.Pkg().Path()
					}
					w.call(pkg, c.Method.Name(), in)
					continue
				}
				callee := c.StaticCallee()
				if callee == nil {
					continue
				}
				pkg := ""
				if callee.Pkg != nil {
					pkg = callee.Pkg.Pkg.Path()
				} else if o := callee.Origin(); o != nil && o.Pkg != nil {
					pkg = o.Pkg.Pkg.Path()
				} else if callee.Parent() != nil && callee.Parent().Pkg != nil {
					pkg = callee.Parent().Pkg.Pkg.Path()
				}
				if pkg == module+"core" {
					w.fn(callee)
					continue
				}
				w.call(pkg, callee.String(), in)
			}
		}
	}
}

func (w *walk) call(pkg, name string, at ssa.Instruction) {
	s, sname := stageOf(pkg)
	if s == 0 {
		return
	}
	w.calls++
	mark := ""
	if s < w.last {
		w.back++
		mark = "  ← back"
	}
	if w.verbose {
		pos := at.Parent().Prog.Fset.Position(at.Pos())
		fmt.Printf("  %-8s %s (%s:%d)%s\n", sname, name, pos.Filename[strings.LastIndex(pos.Filename, "/")+1:], pos.Line, mark)
	}
	w.last = s
}
