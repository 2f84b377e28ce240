//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/internal/testrig/xvfb"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

// servePerson is `reins serve` as the person runs it, and what they read
// there: the terminal's transcript.
type servePerson struct {
	t     *testing.T
	data  string
	read  func() string // everything the terminal has shown
	typed func(text string)
}

// wait waits until the terminal shows re and returns its first group.
func (p *servePerson) wait(what, re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	var m []string
	defer func() {
		if p.t.Failed() {
			p.t.Logf("the terminal showed:\n%s", p.read())
		}
	}()
	testenv.WaitFor(p.t, what+" in the terminal", func() bool {
		m = rx.FindStringSubmatch(p.read())
		return m != nil
	})
	if len(m) > 1 {
		return m[1]
	}
	return m[0]
}

// agentOf connects an agent through the real `reins mcp`, and has the person
// allow it and share the desktop at Control from the terminal.
func (p *servePerson) agentOf(name string) *sdk.ClientSession {
	p.t.Helper()
	cmd := exec.Command(reinsBinary.path, "mcp")
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+p.data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		p.t.Fatalf("%v\nreins mcp: %s", err, stderr.String())
	}
	p.t.Cleanup(func() { cs.Close() })
	// Its first call puts its first connection to the person, and waits.
	first := mcptest.Go(context.Background(), cs, "browser_tabs", nil)
	ask := p.wait("the agent's first connection", `APPROVAL (c\d+) `)
	p.typed("allow " + ask + "\n")
	p.wait("the agent allowed", `Approval `+ask+`: allowed`)
	if r := mcptest.Await(p.t, "the agent's first call", first, &stderr); r.IsErr {
		p.t.Fatalf("the agent's first call, once allowed: %s", r.Text)
	}
	p.typed("desktop control\n")
	p.wait("the desktop shared", `Tab desktop is now shared: control`)
	return cs
}

// TestAnAgentCannotAnswerInThePersonsTerminal is the attack of an agent
// answering its own approval: with the desktop at Control, it types
// "allow …" into the terminal running `reins serve`, or clicks there. Here
// the terminal is a real xterm on an X display, the person types into it
// with real keys, and the agent comes through the real `reins mcp`. Reins
// knows the xterm as its own by process (it started `reins serve`; its
// name is on no list), so both acts are refused before the person is even
// asked, and not one character of the agent's reaches the terminal.
func TestAnAgentCannotAnswerInThePersonsTerminal(t *testing.T) {
	xterm := testenv.NeedCommand(t, "xterm")
	script := testenv.NeedCommand(t, "script")
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1024x768x24")
	data := filepath.Join(t.TempDir(), "data")
	transcript := filepath.Join(t.TempDir(), "serve.txt")
	cmd := exec.Command(xterm, "-display", x.Display, "-geometry", "100x40+0+0", "-e",
		script, "-qfc", reinsBinary.path+" serve -mcp-port -1", transcript)
	runServe(t, cmd, data, x.Display)
	read := func() string { b, _ := os.ReadFile(transcript); return string(b) }
	p := &servePerson{t: t, data: data, read: read, typed: func(text string) {
		// Into the xterm, as the person: without a window manager the
		// keyboard follows the pointer, which the click puts there.
		if err := xdesk.Click(x.Display, 300, 200); err != nil {
			t.Fatal(err)
		}
		if err := xdesk.Type(x.Display, text); err != nil {
			t.Fatal(err)
		}
	}}
	p.wait("reins serve", `Type "help"`)
	// script(1) runs reins serve in a session of its own, which the
	// xterm's group does not reach: stop it by its pid, before the xterm.
	var serve int
	testenv.WaitFor(t, "reins serve's process", func() bool { serve = descendant(cmd.Process.Pid, "serve"); return serve != 0 })
	t.Cleanup(func() { stopPid(t, serve) })
	cs := p.agentOf("e2e agent")

	const forged = "allow a7777777\n"
	before := len(read())
	mcptest.Refused(t, cs, "desktop_type", map[string]any{"text": forged}, vocab.CodeOwnWindow)
	mcptest.Refused(t, cs, "desktop_click", map[string]any{"x": 300, "y": 200, "element": "the terminal"}, vocab.CodeOwnWindow)
	mcptest.Refused(t, cs, "desktop_press_key", map[string]any{"key": "Enter"}, vocab.CodeOwnWindow)

	// What reached the terminal: the person's next command, and nothing of
	// the agent's. The terminal echoes every key it gets, so a forged answer
	// would stand on a line of its own; the activity lines quote it, as the
	// person should see what was tried.
	p.typed("pending\n")
	p.wait("the person's own command", `Nothing is waiting for an answer`)
	after := read()[before:]
	for _, line := range strings.Split(after, "\n") {
		if strings.TrimSpace(line) == strings.TrimSpace(forged) || strings.HasPrefix(line, "Approval a7777777") {
			t.Errorf("the agent's text reached the terminal: %q", line)
		}
	}
	if n := strings.Count(after, "APPROVAL "); n != 0 {
		t.Errorf("the person was asked %d times about acts on their own terminal", n)
	}
	if n := strings.Count(after, "— refused: that lands on a window of Reins"); n != 3 {
		t.Errorf("the terminal shows %d of the 3 refusals:\n%s", n, after)
	}
}

// TestNoDesktopInputWhileThePersonsTerminalIsHidden runs `reins serve` in a
// terminal that is no window on the desktop, as tmux, screen or ssh make
// it: Reins cannot keep input off a window it cannot find, so it puts none
// on the desktop at all, and says why.
func TestNoDesktopInputWhileThePersonsTerminalIsHidden(t *testing.T) {
	reinsBinaryFor(t)
	x := xvfb.StartT(t, "1024x768x24")
	data := filepath.Join(t.TempDir(), "data")
	term := testenv.OpenTerminal(t)
	cmd := exec.Command(reinsBinary.path, "serve", "-mcp-port", "-1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term.TTY, term.TTY, term.TTY
	runServe(t, cmd, data, x.Display)
	p := &servePerson{t: t, data: data, read: term.String, typed: func(text string) {
		if err := term.Type(text); err != nil {
			t.Fatal(err)
		}
	}}
	p.wait("reins serve", `Type "help"`)
	cs := p.agentOf("e2e agent")
	out := mcptest.Refused(t, cs, "desktop_type", map[string]any{"text": "allow a7777777\n"}, vocab.CodePersonTerminalHidden)
	if !strings.Contains(out, "tmux") {
		t.Errorf("the refusal does not say what to do: %s", out)
	}
	mcptest.Refused(t, cs, "desktop_click", map[string]any{"x": 10, "y": 10}, vocab.CodePersonTerminalHidden)
}

// runServe starts cmd, which runs reins serve on data and display, in a
// process group of its own that the test's end stops.
func runServe(t *testing.T, cmd *exec.Cmd, data, display string) {
	t.Helper()
	cmd.Env = append(os.Environ(), "REINS_DATA_DIR="+data, "DISPLAY="+display, "LANG=C.UTF-8")
	testenv.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { testenv.StopGroup(cmd, 5*time.Second, func() { <-exited }) })
}

// stopPid ends the process pid as a session's end would, SIGTERM and then
// SIGKILL, and waits until it is gone.
func stopPid(t *testing.T, pid int) {
	t.Helper()
	gone := func() bool { return syscall.Kill(pid, 0) != nil || strings.Contains(procState(pid), "Z") }
	syscall.Kill(pid, syscall.SIGTERM)
	if !testenv.Eventually(5*time.Second, gone) {
		syscall.Kill(pid, syscall.SIGKILL)
		testenv.WaitFor(t, fmt.Sprintf("process %d to end", pid), gone)
	}
}

// procState is the state letter of pid in /proc ("Z" for a zombie).
func procState(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return string(b[i+2])
	}
	return ""
}
