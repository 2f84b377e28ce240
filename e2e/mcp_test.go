package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/mcp"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// TestAgentThroughReinsMCP drives the real page the way an agent does: an
// MCP client starts the real `reins mcp`, which pipes to this Reins; it takes
// a snapshot, clicks by ref, types into a field and presses Enter, and the
// page's own handlers confirm each act. The audit rows carry the client's
// name and the process that started `reins mcp`.
func TestAgentThroughReinsMCP(t *testing.T) {
	r := setup(t, "1280x800x24", 0, 5*time.Second)
	r.assertNoProcessesLeft()
	ctx := context.Background()
	door, err := mcp.Start(ctx, mcp.Options{Agents: r.rt.AgentDoor(), DataDir: r.data, HTTPPort: -1, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(reinsBinary.path, "mcp")
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+r.data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e MCP agent", Version: "0.9"}, nil)
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cs, err := client.Connect(cctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\nreins mcp: %s", err, stderr.String())
	}
	defer cs.Close()

	t0 := time.Now()
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	t.Logf("browser_snapshot through reins mcp: %v", time.Since(t0))
	button := mcptest.Ref(t, snap, "button", "Main button")
	field := mcptest.Ref(t, snap, "textbox", "Search")

	t0 = time.Now()
	out := mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": button, "element": "the main button"})
	t.Logf("browser_click (approval answered at once, settle and diff included): %v", time.Since(t0))
	if !strings.Contains(out, "Done: Click “Main button”") {
		t.Fatalf("click result: %s", out)
	}
	c := r.wait(ctx, "click", func(m map[string]any) bool { return m["id"] == "main" && m["frame"] == "top" })
	if c["trusted"] != true {
		t.Fatalf("the click was not trusted: %v", c)
	}

	out = mcptest.MustCall(t, cs, "browser_type", map[string]any{"ref": field, "text": "socks"})
	if !strings.Contains(out, "Type “socks” into “Search”") {
		t.Fatalf("type result: %s", out)
	}
	r.wait(ctx, "input", func(m map[string]any) bool {
		return m["id"] == "field" && m["value"] == "socks" && m["trusted"] == true
	})
	mcptest.MustCall(t, cs, "browser_press_key", map[string]any{"key": "Enter"})
	r.wait(ctx, "enter", func(m map[string]any) bool { return m["id"] == "field" && m["trusted"] == true })
	r.assertFiredChecked()

	// Every row of this agent names it and the process that started reins mcp.
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	rows := r.auditRows(persondoor.AuditFilter{Limit: 200})
	var acts int
	for _, row := range rows {
		if row.AgentName != "e2e MCP agent" {
			continue
		}
		if row.AgentPID != os.Getpid() || row.AgentExe != exe || row.AgentVersion != "0.9" {
			t.Fatalf("row %d does not carry the agent's process: %s (want pid %d %s)", row.Seq, persondoor.FormatAuditRow(row), os.Getpid(), exe)
		}
		if row.Phase == "fire" {
			acts++
		}
	}
	if acts != 3 {
		t.Fatalf("want 3 fired acts of the MCP agent in the log, got %d", acts)
	}

	// The extension goes away: the agent is told so at once, not left hanging.
	r.browser.Stop()
	t0 = time.Now()
	text, isErr := mcptest.Call(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
	if !isErr || !strings.HasPrefix(text, vocab.CodeDisconnected+": ") {
		t.Fatalf("after Chromium quit: want extension_disconnected, got %q", text)
	}
	t.Logf("extension_disconnected after Chromium quit: %v", time.Since(t0))
}

// agentThroughMCP opens rt's agents' door and connects an MCP client that says it
// is who through the real `reins mcp`, as an agent's program does; both
// close when the test ends.
func agentThroughMCP(t testing.TB, rt *core.Runtime, data string, who sdk.Implementation) *sdk.ClientSession {
	t.Helper()
	return agentsThroughMCP(t, rt, data, who)[0]
}

// agentsThroughMCP is agentThroughMCP for several agents at once, each its
// own reins mcp process, all through one agents' door.
func agentsThroughMCP(t testing.TB, rt *core.Runtime, data string, who ...sdk.Implementation) []*sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	door, err := mcp.Start(ctx, mcp.Options{Agents: rt.AgentDoor(), DataDir: data, HTTPPort: -1, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	var out []*sdk.ClientSession
	for _, w := range who {
		cmd := exec.Command(reinsBinary.path, "mcp")
		cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		cs, err := sdk.NewClient(&w, nil).Connect(cctx, &sdk.CommandTransport{Command: cmd}, nil)
		cancel()
		if err != nil {
			t.Fatalf("%v\nreins mcp: %s", err, stderr.String())
		}
		t.Cleanup(func() { cs.Close() })
		out = append(out, cs)
	}
	return out
}
