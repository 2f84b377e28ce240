package mcp

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/testrig/browsertest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

var reinsBin struct {
	once sync.Once
	path string
}

// reins builds the reins binary once for the package's tests, in a folder
// anyone may read, so that it can also run as another user.
func reins(t *testing.T) string {
	t.Helper()
	reinsBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "reins-mcp-bin")
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		reinsBin.path = browsertest.BuildReins(t, dir)
	})
	if reinsBin.path == "" {
		t.Fatal("the reins binary could not be built")
	}
	return reinsBin.path
}

func startListener(t *testing.T, r *rig) (*Listener, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Start(context.Background(), Options{Agents: r.e.AgentDoor(), DataDir: dir, Settle: 20 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, dir
}

func TestSocketIsOwnerOnly(t *testing.T) {
	r := newRig(t)
	_, dir := startListener(t, r)
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, SocketFile): 0o600, filepath.Join(dir, TokenFile): 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
}

// TestStdioThroughTheReinsBinary speaks MCP to `reins mcp`, which pipes to
// the listener; the agent is the process that started `reins mcp` (this test),
// as the OS says, whatever the client calls itself.
func TestStdioThroughTheReinsBinary(t *testing.T) {
	r := newRig(t)
	_, dir := startListener(t, r)
	r.e.SetShare(r.tab, vocab.Control)
	cmd := exec.Command(reins(t), "mcp")
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "stdio test agent", Version: "7"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	t.Logf("reins mcp start → first snapshot: %v", time.Since(start))
	out := mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": mcptest.Ref(t, snap, "button", "Place order")})
	if !strings.Contains(out, "Order placed") {
		t.Fatalf("click: %s", out)
	}
	const rounds = 50
	t0 := time.Now()
	for range rounds {
		mcptest.MustCall(t, cs, "browser_tabs", nil)
	}
	t.Logf("browser_tabs round trip through reins mcp: %v", time.Since(t0)/rounds)
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	var found bool
	for _, a := range r.e.Agents() {
		if a.Name == "stdio test agent" {
			found = true
			if a.PID != os.Getpid() || a.Exe != exe || !a.Allowed || a.Sessions != 1 {
				t.Fatalf("agent %+v; want pid %d exe %s", a, os.Getpid(), exe)
			}
		}
	}
	if !found {
		t.Fatalf("the agent is not listed: %+v", r.e.Agents())
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.e.Agents()[0].Sessions != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the session did not end with the pipe: %+v", r.e.Agents())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReinsMCPSaysWhenReinsIsNotRunning(t *testing.T) {
	cmd := exec.Command(reins(t), "mcp")
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+t.TempDir())
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("reins mcp succeeded without Reins: %s", out)
	}
	if !strings.Contains(string(out), "Reins is not running") || !strings.Contains(string(out), "reins serve") {
		t.Fatalf("the message does not say what to do: %s", out)
	}
}

// TestAnotherUsersProcessIsRefused runs `reins mcp` as nobody against a
// socket whose file modes would let it in, so that only the peer credential
// check stands in its way.
func TestAnotherUsersProcessIsRefused(t *testing.T) {
	testenv.Need(t, os.Geteuid() == 0, "root (to run a process as another user)")
	r := newRig(t)
	_, dir := startListener(t, r)
	for p := dir; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	os.Chmod(filepath.Join(dir, SocketFile), 0o666)
	cmd := exec.Command(reins(t), "mcp")
	cmd.Env = []string{"REINS_DATA_DIR=" + dir, "HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"intruder","version":"1"}}}` + "\n")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatalf("another user's reins mcp succeeded: %s", stdout.String())
	}
	if stdout.Len() != 0 {
		t.Fatalf("another user got an answer: %s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "serves only the user who runs Reins") {
		t.Fatalf("refused for the wrong reason (file modes?): %s", stderr.String())
	}
	for _, a := range r.e.Agents() {
		t.Fatalf("another user's process became an agent: %+v", a)
	}
	rows, _ := r.log.Rows(context.Background(), audit.Filter{Outcome: vocab.OutcomeRefused})
	if len(rows) != 1 || rows[0].ActKind != string(vocab.Connect) || !strings.Contains(rows[0].AgentName, "65534") {
		t.Fatalf("the refusal is not in the log: %+v", rows)
	}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func TestHTTPListener(t *testing.T) {
	r := newRig(t)
	d, _ := startListener(t, r)
	url := "http://127.0.0.1:" + strconv.Itoa(d.Port()) + "/mcp"
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	post := func(mod func(*http.Request)) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+d.Token())
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cases := []struct {
		name string
		mod  func(*http.Request)
		want int
	}{
		{"no token", func(r *http.Request) { r.Header.Del("Authorization") }, 401},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", 64)) }, 401},
		{"token without Bearer", func(r *http.Request) { r.Header.Set("Authorization", d.Token()) }, 401},
		{"a web page's request", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403},
		{"a web page's fetch metadata", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, 403},
		{"a rebound host name", func(r *http.Request) { r.Host = "evil.example:" + strconv.Itoa(d.Port()) }, 403},
		{"another port", func(r *http.Request) { r.Host = "127.0.0.1:1" }, 403},
		{"localhost", func(r *http.Request) { r.Host = "localhost:" + strconv.Itoa(d.Port()) }, 200},
		{"all right", func(r *http.Request) {}, 200},
	}
	for _, c := range cases {
		if got := post(c.mod); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, got, c.want)
		}
	}

	r.e.SetShare(r.tab, vocab.ReadOnly)
	c := sdk.NewClient(&sdk.Implementation{Name: "http agent", Version: "3"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: bearer{d.Token(), http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	if !strings.Contains(snap, "Place order") {
		t.Fatalf("snapshot over HTTP: %s", snap)
	}
	for _, a := range r.e.Agents() {
		if a.Name == "http agent" && a.PID != os.Getpid() {
			t.Errorf("the HTTP agent's process is %d %s, want this test (%d)", a.PID, a.Exe, os.Getpid())
		}
	}
}
