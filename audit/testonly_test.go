package audit

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/vocab"
)

func TestTestOnlyTicket(t *testing.T) {
	act := vocab.Act{Kind: vocab.DoubleClick}
	p := Landing{X: 5, Y: 6, Scale: 2}
	tk := TestOnlyTicket(act, p)
	if !tk.Valid() || tk.Seq() != -1 || tk.Act() != act || tk.Landing() != p || !tk.Approved().Valid() {
		t.Fatalf("ticket: valid %v seq %d act %+v plan %+v", tk.Valid(), tk.Seq(), tk.Act(), tk.Landing())
	}
	if tk.Approved().How() != vocab.AllowOnce {
		t.Errorf("how = %v", tk.Approved().How())
	}
	l := openTest(t)
	if _, err := l.Finish(context.Background(), tk, vocab.OutcomeDone, "", ""); !errors.Is(err, ErrWrite) {
		t.Fatalf("Finish(test-only ticket) = %v, want ErrWrite", err)
	}
}

// The test seams mint leave to act without a person or an audit row, so
// product code must never reach them: only tests, the testonly.go files and
// test-helper packages (named …test, such as core/coretest) may.
func TestTestOnlySeamsStayInTests(t *testing.T) {
	root := moduleRoot(t)
	seams := map[string]bool{"TestOnlyTicket": true, "TestOnlyApproved": true}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "testonly.go" {
			return nil
		}
		if strings.HasSuffix(filepath.Base(filepath.Dir(path)), "test") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(src, []byte("TestOnly")) {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // not ours to judge; the build will say
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && seams[id.Name] {
				t.Errorf("%s: product code uses the test seam %s", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}
