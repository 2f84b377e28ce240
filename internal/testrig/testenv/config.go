package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// PrivateConfig points the user's configuration folder at a fresh temporary
// folder for the rest of the test binary, so that no test reads or writes the
// person's own settings or login items: XDG_CONFIG_HOME on Linux and the other
// Unixes. The go command keeps reading its settings from where they were.
// It is for TestMain; the returned function removes the folder. On macOS,
// where the login items live under HOME (which also holds the Go caches), the
// tests that touch them set HOME themselves.
func PrivateConfig() (cleanup func(), err error) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return func() {}, nil
	}
	if os.Getenv("GOENV") == "" {
		if own, err := os.UserConfigDir(); err == nil {
			os.Setenv("GOENV", filepath.Join(own, "go", "env"))
		}
	}
	dir, err := os.MkdirTemp("", "reins-test-config")
	if err != nil {
		return nil, fmt.Errorf("a private configuration folder for the tests: %w", err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	return func() { os.RemoveAll(dir) }, nil
}

// Main runs a package's tests with PrivateConfig, for a TestMain that needs
// nothing else: func TestMain(m *testing.M) { testenv.Main(m) }.
func Main(m interface{ Run() int }) {
	cleanup, err := PrivateConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}
