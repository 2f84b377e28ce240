package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/extension"
	"github.com/reins-app/reins/internal/testrig/testenv"
)

// TestOneReinsPerDataFolder starts the real binary twice on one data folder,
// at the same moment, many times: exactly one runs, the other says who holds
// the folder and exits non-zero, and the first one's agents' socket is still
// its own.
func TestOneReinsPerDataFolder(t *testing.T) {
	bin := reinsBinary(t)
	t.Run("two starts at once", func(t *testing.T) { simultaneousStarts(t, bin) })
	t.Run("a second start leaves the first one's socket alone", func(t *testing.T) { secondStartLeavesSocket(t, bin) })
	t.Run("the helper modes work while Reins runs", func(t *testing.T) { helpersWhileRunning(t, bin) })
	t.Run("a Reins killed outright blocks no later start", func(t *testing.T) { killedReinsBlocksNoOne(t, bin) })
}

// pairs is how many simultaneous pairs of starts TestOneReinsPerDataFolder
// tries; SECURITY.md quotes the figures.
const pairs = 20

// started is one `reins serve` the test started.
type started struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuf
	lines  chan string   // stdout, line by line; closed at its end
	exited chan struct{} // closed once it has exited; err is then set
	err    error
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts `reins serve` under env, in its own process group, stopped
// by pid when the test ends.
func startServe(t *testing.T, bin string, env []string) *started {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-mcp-port", "-1")
	cmd.Env = env
	testenv.OwnGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd, stdin: stdin, stderr: &syncBuf{}, lines: make(chan string, 64), exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() { s.kill() })
	return s
}

// kill stops it at once and waits for it.
func (s *started) kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	testenv.KillGroup(s.cmd, func() { <-s.exited })
}

// quit asks it to stop as the person would, and waits.
func (s *started) quit(t *testing.T) {
	t.Helper()
	io.WriteString(s.stdin, "quit\n")
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		s.kill()
		t.Errorf("reins serve (pid %d) did not stop when its terminal closed", s.cmd.Process.Pid)
	}
}

// outcome waits until it either says it is running or exits, and reports
// which.
func (s *started) outcome(t *testing.T, within time.Duration) (running bool) {
	t.Helper()
	running, err := s.await(within)
	if err != nil {
		t.Fatal(err)
	}
	return running
}

// await is outcome for any goroutine: an error when it did neither in time.
func (s *started) await(within time.Duration) (running bool, err error) {
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				<-s.exited
				return false, nil
			}
			if strings.HasPrefix(l, "Reins is running") {
				return true, nil
			}
		case <-deadline:
			return false, fmt.Errorf("reins serve (pid %d) neither ran nor exited within %s\nstderr: %s", s.cmd.Process.Pid, within, s.stderr.String())
		}
	}
}

// heldBy is the start of what a refused start says about the one running.
func heldBy(dir string, pid int) string {
	return fmt.Sprintf("Reins is already running for %s (pid %d, ", dir, pid)
}

func dataDirOf(env []string) string {
	for _, e := range env {
		if d, ok := strings.CutPrefix(e, "REINS_DATA_DIR="); ok {
			return d
		}
	}
	return ""
}

// mcpReaches connects an MCP client through the real `reins mcp` and lists
// the tools, which needs no one's approval.
func mcpReaches(t *testing.T, bin string, env []string) error {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = env
	testenv.OwnGroup(cmd)
	stderr := &syncBuf{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "one-reins test", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("connecting: %v; reins mcp said: %s", err, stderr.String())
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing tools: %v; reins mcp said: %s", err, stderr.String())
	}
	if len(tools.Tools) == 0 {
		return fmt.Errorf("Reins offered no tools")
	}
	return nil
}

// simultaneousStarts races pairs of starts on one data folder: fresh for the
// first pair, and for the others as a Reins that quit left it.
func simultaneousStarts(t *testing.T, bin string) {
	env := bareEnv(t, "LANG=C.UTF-8")
	dir := dataDirOf(env)
	gotThrough := 0 // pairs where both ran, or the loser took the running one's socket
	for i := range pairs {
		a, b := startServe(t, bin, env), startServe(t, bin, env)
		var ra, rb bool
		var ea, eb error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); ra, ea = a.await(30 * time.Second) }()
		go func() { defer wg.Done(); rb, eb = b.await(30 * time.Second) }()
		wg.Wait()
		if err := errors.Join(ea, eb); err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		if ra == rb {
			if ra {
				gotThrough++
			}
			t.Errorf("pair %d: both ran = %v, neither = %v\nfirst's stderr: %s\nsecond's stderr: %s", i, ra, !ra, a.stderr.String(), b.stderr.String())
			a.kill()
			b.kill()
			continue
		}
		winner, loser := a, b
		if rb {
			winner, loser = b, a
		}
		if loser.err == nil {
			t.Errorf("pair %d: the refused start exited with status 0", i)
		}
		if want := heldBy(dir, winner.cmd.Process.Pid); !strings.Contains(loser.stderr.String(), want) {
			t.Errorf("pair %d: the refused start does not say %q:\n%s", i, want, loser.stderr.String())
		}
		// The loser is gone: what answers on the socket is the winner.
		disturbed := false
		if c, err := net.Dial("unix", filepath.Join(dir, "mcp.sock")); err != nil {
			disturbed = true
			t.Errorf("pair %d: the running Reins' agents' socket does not answer: %v", i, err)
		} else {
			c.Close()
		}
		if i%5 == 0 {
			if err := mcpReaches(t, bin, env); err != nil {
				disturbed = true
				t.Errorf("pair %d: an agent cannot reach the running Reins: %v", i, err)
			}
		}
		if disturbed {
			gotThrough++
		}
		winner.quit(t)
	}
	t.Logf("two simultaneous starts: %d tries, %d got through, should be 0", pairs, gotThrough)
}

func secondStartLeavesSocket(t *testing.T, bin string) {
	env := bareEnv(t, "LANG=C.UTF-8")
	dir := dataDirOf(env)
	first := startServe(t, bin, env)
	if !first.outcome(t, 30*time.Second) {
		t.Fatalf("the first Reins did not start: %v\n%s", first.err, first.stderr.String())
	}
	sock := filepath.Join(dir, "mcp.sock")
	before, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	second := startServe(t, bin, env)
	if second.outcome(t, 30*time.Second) {
		t.Fatal("a second Reins runs on the same data folder")
	}
	if want := heldBy(dir, first.cmd.Process.Pid); second.err == nil || !strings.Contains(second.stderr.String(), want) {
		t.Errorf("the second start: %v, saying:\n%s\nwant a non-zero exit saying %q", second.err, second.stderr.String(), want)
	}
	// The tray takes the same folder the same way.
	out, errOut, err := run(t, bin, env, nil)
	if want := heldBy(dir, first.cmd.Process.Pid); err == nil || !strings.Contains(string(errOut), want) {
		t.Errorf("the tray started beside a running Reins: %v\nstdout: %s\nstderr: %s\nwant a non-zero exit saying %q", err, out, errOut, want)
	}
	after, err := os.Stat(sock)
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the first Reins' socket was replaced or removed: %v", err)
	}
	if err := mcpReaches(t, bin, env); err != nil {
		t.Errorf("an agent cannot reach the first Reins after the second start: %v", err)
	}
	first.quit(t)
}

func helpersWhileRunning(t *testing.T, bin string) {
	env := bareEnv(t, "LANG=C.UTF-8")
	s := startServe(t, bin, env)
	if !s.outcome(t, 30*time.Second) {
		t.Fatalf("Reins did not start: %v\n%s", s.err, s.stderr.String())
	}
	pid := s.cmd.Process.Pid

	out, errOut, err := run(t, bin, env, nil, "audit")
	if err != nil {
		t.Errorf("reins audit while Reins runs: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = run(t, bin, env, nil, "audit", "-verify")
	if err != nil || !strings.Contains(string(out), "intact") {
		t.Errorf("reins audit -verify while Reins runs: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = run(t, bin, env, nil, "doctor")
	if want := fmt.Sprintf("Reins is running for this data folder (pid %d, ", pid); err != nil || !strings.Contains(string(out), want) {
		t.Errorf("reins doctor while Reins runs: %v, want it to say %q\n%s%s", err, want, out, errOut)
	}
	out, errOut, err = run(t, bin, env, nil, "extension", filepath.Join(t.TempDir(), "ext"))
	if err != nil {
		t.Errorf("reins extension while Reins runs: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = run(t, bin, env, bytes.NewReader(nativeMessage(map[string]string{"type": "pair"})), extension.Origin)
	if err != nil || !bytes.Contains(out, []byte(`"port"`)) || bytes.Contains(out, []byte(`"error"`)) {
		t.Errorf("the pairing helper while Reins runs: %v\nstdout: %q\nstderr: %s", err, out, errOut)
	}
	if err := mcpReaches(t, bin, env); err != nil {
		t.Errorf("reins mcp while Reins runs: %v", err)
	}
	s.quit(t)

	// Once it has quit, doctor says none runs, and the next start runs.
	out, _, _ = run(t, bin, env, nil, "doctor")
	if !strings.Contains(string(out), "none is running") {
		t.Errorf("reins doctor after Reins quit:\n%s", out)
	}
	next := startServe(t, bin, env)
	if !next.outcome(t, 30*time.Second) {
		t.Errorf("Reins did not start after the last one quit: %v\n%s", next.err, next.stderr.String())
	}
	next.quit(t)
}

func killedReinsBlocksNoOne(t *testing.T, bin string) {
	env := bareEnv(t, "LANG=C.UTF-8")
	dir := dataDirOf(env)
	const kills = 3
	for i := range kills + 1 {
		s := startServe(t, bin, env)
		if !s.outcome(t, 30*time.Second) {
			t.Fatalf("start %d: Reins did not start after %d were killed: %v\n%s", i, i, s.err, s.stderr.String())
		}
		if i == kills {
			s.quit(t)
			return
		}
		if err := mcpReaches(t, bin, env); err != nil {
			t.Errorf("start %d: an agent cannot reach it: %v", i, err)
		}
		s.kill() // SIGKILL: nothing of Reins' own runs on the way out
		if b, err := os.ReadFile(filepath.Join(dir, "reins.lock")); err != nil || !strings.Contains(string(b), fmt.Sprintf(`"pid":%d,`, s.cmd.Process.Pid)) {
			t.Fatalf("start %d: the killed Reins left no record to step over (%v): %s", i, err, b)
		}
	}
}
