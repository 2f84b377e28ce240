package extension

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// TestContentScriptUnits runs the content script's node unit tests
// (src/test/*.test.js): the pure modules, the roles against the ARIA role
// list, and the whole script on a fake frame against the protocol's golden
// JSON in bridge/protocol/testdata.
func TestContentScriptUnits(t *testing.T) {
	node := testenv.NeedCommand(t, "node")
	needModules(t)
	files, err := filepath.Glob(filepath.Join("src", "test", "*.test.js"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no unit tests in src/test")
	}
	args := []string{"--test"}
	for _, f := range files {
		args = append(args, filepath.Join("test", filepath.Base(f)))
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = "src"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test in extension/src: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "# ") {
			t.Log(line[2:])
		}
	}
}
