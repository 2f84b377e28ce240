package mcp

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryToolComesFromTheTable: the table names each tool once, tools/list
// lists exactly the table, with its words, and nothing in the package adds a
// tool but the table's entries.
func TestEveryToolComesFromTheTable(t *testing.T) {
	rows := map[string]toolEntry{}
	for _, e := range toolTable {
		if _, ok := rows[e.name]; ok {
			t.Errorf("the table names %s twice", e.name)
		}
		if e.name == "" || e.title == "" || e.desc == "" || e.add == nil {
			t.Errorf("the table's entry %q lacks a name, title, description or method", e.name)
		}
		rows[e.name] = e
	}

	r := newRig(t)
	res, err := r.client("Claude Code", claude).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range res.Tools {
		listed[tool.Name] = true
		e, ok := rows[tool.Name]
		switch {
		case !ok:
			t.Errorf("tools/list lists %s, which is not in the table", tool.Name)
		case tool.Description != e.desc:
			t.Errorf("%s is listed with another description than the table's", tool.Name)
		case tool.Annotations == nil || tool.Annotations.Title != e.title || tool.Annotations.ReadOnlyHint != e.readOnly:
			t.Errorf("%s is listed with annotations %+v, not the table's", tool.Name, tool.Annotations)
		}
	}
	for name := range rows {
		if !listed[name] {
			t.Errorf("the table's %s is not in tools/list", name)
		}
	}
	if len(res.Tools) != len(toolTable) {
		t.Errorf("tools/list lists %d tools, the table %d", len(res.Tools), len(toolTable))
	}

	// A tool added beside the table would be missed by the checks above only
	// until it is listed; the source says at once.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var adds []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "AddTool" || sel.Sel.Name == "RemoveTools") {
					adds = append(adds, fset.Position(sel.Pos()).String()+" in "+fn.Name.Name)
				}
				return true
			})
		}
	}
	if len(adds) != 1 || !strings.HasSuffix(adds[0], " in acts") {
		t.Errorf("tools are added at %v; only the table's entries (acts) may add one", adds)
	}
}
