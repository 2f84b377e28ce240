package vocab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// ActKinds, which the audit viewer offers as its filter, names every act
// kind act.go declares, once.
func TestActKindsListsEveryKind(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "act.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []ActKind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "ActKind" {
				continue
			}
			for _, n := range v.Names {
				declared = append(declared, ActKind(n.Name))
			}
		}
	}
	if len(declared) < 20 {
		t.Fatalf("found only %d act kinds in act.go: %v", len(declared), declared)
	}
	values := map[string]ActKind{}
	for _, k := range ActKinds {
		values[string(k)] = k
	}
	if len(values) != len(ActKinds) {
		t.Errorf("ActKinds names a kind twice: %v", ActKinds)
	}
	if len(ActKinds) != len(declared) {
		t.Errorf("act.go declares %d kinds and ActKinds lists %d: %v", len(declared), len(ActKinds), ActKinds)
	}
	for _, k := range []ActKind{Dialog, Upload, CloseTab, NewTab, Plan, Handoff, Settings} {
		if !slices.Contains(ActKinds, k) {
			t.Errorf("ActKinds lacks %s", k)
		}
	}
}
