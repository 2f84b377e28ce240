package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

// playwrightToolsList is the size of the tools/list result of Playwright
// MCP 0.0.83 (@playwright/mcp in bench/package.json, started with
// --headless --browser chromium): 25 tools in 20,296 characters of JSON,
// measured by BenchmarkToolsListAgainstPlaywrightMCP as toolsListSize
// measures Reins. Reins' tools are described in no more than that.
const playwrightToolsList = 20296

// toolsListSize speaks to an MCP server over its stdio, one JSON-RPC
// message a line, as an agent starts: initialize, then tools/list. It
// returns the server's name and version, how many tools it lists and the
// number of characters of the tools/list result's JSON, as the server sent
// it and compacted.
func toolsListSize(ctx context.Context, to io.Writer, from io.Reader) (server string, tools, size int, err error) {
	lines := bufio.NewScanner(from)
	lines.Buffer(nil, 16<<20)
	call := func(id int, method string, params any) (json.RawMessage, error) {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := to.Write(append(req, '\n')); err != nil {
			return nil, err
		}
		for lines.Scan() {
			var res struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &res) != nil || res.ID == nil || *res.ID != id {
				continue // a notification or a log line
			}
			if res.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, res.Error)
			}
			return res.Result, nil
		}
		if err := lines.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: the server closed its output", method)
	}
	type result struct {
		raw json.RawMessage
		err error
	}
	done := make(chan result, 1)
	var info struct {
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	}
	go func() {
		init, err := call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "tools/list size", "version": "1"}})
		if err == nil {
			err = json.Unmarshal(init, &info)
		}
		if err != nil {
			done <- result{err: err}
			return
		}
		raw, err := call(2, "tools/list", map[string]any{})
		done <- result{raw, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return "", 0, 0, r.err
		}
		var list struct{ Tools []json.RawMessage }
		var b bytes.Buffer
		if err := json.Unmarshal(r.raw, &list); err != nil {
			return "", 0, 0, err
		}
		if err := json.Compact(&b, r.raw); err != nil {
			return "", 0, 0, err
		}
		return info.ServerInfo.Name + " " + info.ServerInfo.Version, len(list.Tools), utf8.RuneCount(b.Bytes()), nil
	case <-ctx.Done():
		return "", 0, 0, ctx.Err()
	}
}

// reinsToolsListSize measures Reins' own server as toolsListSize measures
// any: over a pipe, one line a message.
func reinsToolsListSize(tb testing.TB) int {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss, err := NewServer(ServerOptions{}).Connect(ctx, &sdk.IOTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		inW.Close()
		ss.Close()
	}()
	_, tools, n, err := toolsListSize(ctx, inW, outR)
	if err != nil {
		tb.Fatal(err)
	}
	if tools != len(toolTable) {
		tb.Fatalf("tools/list lists %d tools, the table %d", tools, len(toolTable))
	}
	return n
}

// TestToolsListIsNoLargerThanPlaywrightMCPs holds the words every agent
// reads before its first call to the size of Playwright MCP's.
func TestToolsListIsNoLargerThanPlaywrightMCPs(t *testing.T) {
	n := reinsToolsListSize(t)
	t.Logf("tools/list: %d characters of JSON (Playwright MCP's: %d)", n, playwrightToolsList)
	if n > playwrightToolsList {
		t.Errorf("tools/list is %d characters of JSON, more than Playwright MCP's %d: say it in fewer words", n, playwrightToolsList)
	}
}

// BenchmarkToolsListAgainstPlaywrightMCP measures both tools/list results
// side by side: Reins' own and that of Playwright MCP
// (bench/node_modules/@playwright/mcp, `cd bench && npm ci`), started as an
// agent would start it, on the machine's Chromium.
func BenchmarkToolsListAgainstPlaywrightMCP(b *testing.B) {
	node := testenv.NeedCommand(b, "node")
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	testenv.Need(b, chromium != "", "Chromium")
	cli, err := filepath.Abs(filepath.Join("..", "bench", "node_modules", "@playwright", "mcp", "cli.js"))
	if err != nil {
		b.Fatal(err)
	}
	_, err = os.Stat(cli)
	testenv.Need(b, err == nil, "Playwright MCP (cd bench && npm ci)")

	cmd := exec.Command(node, cli, "--headless", "--browser", "chromium", "--executable-path", chromium, "--output-dir", b.TempDir())
	testenv.OwnGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	to, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	from, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer testenv.StopGroup(cmd, 5*time.Second, func() { cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	server, pwTools, pw, err := toolsListSize(ctx, to, from)
	if err != nil {
		b.Fatalf("Playwright MCP: %v\n%s", err, stderr.String())
	}
	var pkg struct{ Version string }
	if raw, err := os.ReadFile(filepath.Join(filepath.Dir(cli), "package.json")); err == nil {
		json.Unmarshal(raw, &pkg)
	}
	reins := 0
	for b.Loop() {
		reins = reinsToolsListSize(b)
	}
	b.ReportMetric(float64(reins), "reins-chars")
	b.ReportMetric(float64(pw), "pw-chars")
	b.Logf("tools/list JSON: Reins %s, %d tools, %d characters; Playwright MCP %s (%s), %d tools, %d characters (the test's budget: %d)",
		Version, len(toolTable), reins, pkg.Version, server, pwTools, pw, playwrightToolsList)
}
