package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPrivateConfigMovesTheConfigFolderButNotTheGoCommands(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the configuration folder is under HOME here; the tests that need it set HOME")
	}
	own := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", own)
	t.Setenv("GOENV", "")
	cleanup, err := PrivateConfig()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	if got == own || strings.HasPrefix(got, own) {
		t.Fatalf("the configuration folder is still %s", got)
	}
	if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
		t.Fatalf("the private folder %s is not there: %v", got, err)
	}
	if g := os.Getenv("GOENV"); g != filepath.Join(own, "go", "env") {
		t.Fatalf("GOENV = %q, want the go command's own file under %s", g, own)
	}
	cleanup()
	if _, err := os.Stat(got); !os.IsNotExist(err) {
		t.Fatalf("the private folder outlived its cleanup: %v", err)
	}
}
