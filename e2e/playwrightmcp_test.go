package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// playwrightMCP is the peer the benchmarks run beside Reins: Playwright MCP
// as bench/package.json pins it (`cd bench && npm ci`), run by node.
type playwrightMCP struct{ node, cli string }

// needPlaywrightMCP finds node and Playwright MCP, skipping the benchmark
// when Playwright MCP is not installed.
func needPlaywrightMCP(b *testing.B) playwrightMCP {
	b.Helper()
	node := testenv.NeedCommand(b, "node")
	cli, err := filepath.Abs(filepath.Join("..", "bench", "node_modules", "@playwright", "mcp", "cli.js"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(cli); err != nil {
		b.Skipf("Playwright MCP is not installed (cd bench && npm ci): %v", err)
	}
	return playwrightMCP{node, cli}
}

// connect starts Playwright MCP on the Chromium whose DevTools listen on
// port, with args besides, as the MCP client named client; its version is
// logged as name's.
func (p playwrightMCP) connect(b *testing.B, port int, client, name string, args ...string) *sdk.ClientSession {
	b.Helper()
	cmd := exec.Command(p.node, append([]string{p.cli, "--cdp-endpoint", fmt.Sprintf("http://127.0.0.1:%d", port), "--output-dir", b.TempDir()}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pc, err := sdk.NewClient(&sdk.Implementation{Name: client, Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("%s: %v\n%s", name, err, stderr.String())
	}
	if res := pc.InitializeResult(); res != nil && res.ServerInfo != nil {
		b.Logf("%s is version %s (@playwright/mcp in bench/package.json)", name, res.ServerInfo.Version)
	}
	return pc
}
