package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"short-lived agent","version":"1"}}}` + "\n"

// A short session: the agent asks to initialize, reads the answer and
// exits, which closes the pipe's stdin; Reins then ends the connection.
// Pipe must return nil every time: Reins closed the connection only
// because the agent had.
func TestPipeIsQuietWhenTheAgentExits(t *testing.T) {
	r := newRig(t)
	_, dir := startListener(t, r)
	const sessions = 300
	for i := range sessions {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- Pipe(context.Background(), PipeOptions{DataDir: dir, Stdin: inR, Stdout: outW})
			outW.Close()
		}()
		go io.WriteString(inW, initialize)
		line, err := bufio.NewReader(outR).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) {
			t.Fatalf("session %d: no answer to initialize: %q, %v", i, line, err)
		}
		inW.Close() // the agent exits
		go io.Copy(io.Discard, outR)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("session %d of %d: the agent exited and reins mcp said: %v", i+1, sessions, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("session %d: reins mcp did not end after the agent closed its stdin", i)
		}
	}
}

// When Reins goes away while the agent is still there, the agent (and the
// person reading its log) is told.
func TestPipeSaysWhenReinsClosesTheConnection(t *testing.T) {
	r := newRig(t)
	d, dir := startListener(t, r)
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Pipe(context.Background(), PipeOptions{DataDir: dir, Stdin: inR, Stdout: outW})
		outW.Close()
	}()
	go io.WriteString(inW, initialize)
	if line, err := bufio.NewReader(outR).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("no answer to initialize: %q, %v", line, err)
	}
	go io.Copy(io.Discard, outR)
	d.Close() // Reins quits
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "Reins closed the connection") {
			t.Fatalf("Reins closed the connection and reins mcp said: %v", err)
		}
		if !strings.Contains(err.Error(), "start it again") {
			t.Fatalf("the message does not say what to do: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reins mcp did not end when Reins closed the connection")
	}
}

// The same through the real binary, as agents run it: stderr stays empty
// when the agent simply exits.
func TestReinsMCPIsQuietWhenTheAgentExits(t *testing.T) {
	r := newRig(t)
	_, dir := startListener(t, r)
	bin := reins(t)
	const sessions = 40
	for i := range sessions {
		cmd := exec.Command(bin, "mcp")
		cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+dir)
		testenv.OwnGroup(cmd)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, initialize)
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("session %d: no answer to initialize: %q, %v; stderr: %s", i, line, err, stderr.String())
		}
		stdin.Close() // the agent exits
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case err = <-waited:
		case <-time.After(10 * time.Second):
			testenv.KillGroup(cmd, func() { <-waited })
			t.Fatalf("session %d: reins mcp did not end after its stdin closed", i)
		}
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if err != nil || stderr.Len() != 0 {
			t.Fatalf("session %d of %d: the agent exited and reins mcp said (%v): %s", i+1, sessions, err, stderr.String())
		}
	}
}
