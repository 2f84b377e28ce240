package serve

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

// syncBuffer is the terminal's screen, read while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func (s *syncBuffer) waitFor(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the terminal never showed %q; it shows:\n%s", re, s.String())
	return nil
}

func TestTheTerminalSharesAndAnswers(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(3, coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Place order", 10, 10)),
	}})
	tab := e.WaitTab(t, "https://shop.example.com/")
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- (&Terminal{Engine: e, In: in, Out: out}).Run(ctx) }()
	out.waitFor(t, `Type "help"`)

	io.WriteString(typed, "tabs\n")
	out.waitFor(t, `\s`+tab+`\s+none\s+Cart — Shop\s+\(https://shop.example.com\)`)
	io.WriteString(typed, "share "+tab+" control\n")
	out.waitFor(t, "Tab "+tab+" is now shared: control")

	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"})
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	acted := make(chan error, 1)
	go func() {
		_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: "click"}})
		acted <- err
	}()
	m := out.waitFor(t, `APPROVAL (a\d+)\s+claude \(pid 4121\) · “Claude Code” asks:\n\s+Click “Place order”`)
	io.WriteString(typed, "allow "+m[1]+"\n")
	if err := <-acted; err != nil {
		t.Fatalf("the act the person allowed failed: %v", err)
	}
	if len(e.Exec.Fired()) != 1 {
		t.Fatal("the allowed click did not fire")
	}
	out.waitFor(t, `Click “Place order”\s+— done`)

	// A deny from the terminal stops the next one.
	go func() {
		_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: "click"}})
		acted <- err
	}()
	second := out.waitFor(t, `(?s)APPROVAL a\d+.*APPROVAL (a\d+)`)
	// A bare answer names no request, and answers none.
	io.WriteString(typed, "allow\n")
	out.waitFor(t, `Name the request: allow ID`)
	if len(e.Exec.Fired()) != 1 {
		t.Fatal("a bare allow fired the waiting click")
	}
	io.WriteString(typed, "deny "+second[1]+"\n")
	if err := <-acted; err == nil || !strings.Contains(err.Error(), vocab.CodeDenied) {
		t.Fatalf("want denied_by_user, got %v", err)
	}
	if len(e.Exec.Fired()) != 1 {
		t.Fatal("a denied click fired")
	}
	io.WriteString(typed, "audit 3\n")
	out.waitFor(t, `#\d+ .* click .*→ denied`)
	io.WriteString(typed, "quit\n")
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("quit did not stop the terminal")
	}
}

// An act held back because the person was at the mouse is asked about
// again; the terminal says why, so it does not read as the agent asking
// twice.
func TestTheTerminalSaysWhyAHeldActIsAskedAgain(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(3, coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Place order", 10, 10)),
	}})
	tab := e.WaitTab(t, "https://shop.example.com/")
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: in, Out: out}).Run(ctx)
	out.waitFor(t, `Type "help"`)

	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"})
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	acted := make(chan error, 1)
	go func() {
		_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: "click"}})
		acted <- err
	}()
	first := out.waitFor(t, `APPROVAL (a\d+)[^\n]*\n(?:[^\n]*\n)*?  Answer with`)
	if strings.Contains(first[0], "Asked again") {
		t.Fatalf("a first request says it is asked again:\n%s", first[0])
	}
	// The person is at the mouse as the allowed click is about to fire.
	e.Exec.SetLastInput(time.Now().Add(time.Hour))
	io.WriteString(typed, "allow "+first[1]+"\n")
	again := out.waitFor(t, `(?s)APPROVAL (a\d+)  claude \(pid 4121\) · “Claude Code” asks:\n\s+Click “Place order”\n[^\n]*\n`+
		`    Asked again: you were using the mouse or keyboard when it was about to happen, so nothing was done\.\n  Answer with`)
	if again[1] == first[1] {
		t.Fatalf("the request asked again kept its id %s", again[1])
	}
	io.WriteString(typed, "pending\n")
	out.waitFor(t, again[1]+`  claude \(pid 4121\) · “Claude Code”: Click “Place order” \(asked \d+s ago; asked again: you were using the mouse or keyboard`)

	e.Exec.SetLastInput(time.Time{})
	io.WriteString(typed, "allow "+again[1]+"\n")
	if err := <-acted; err != nil {
		t.Fatalf("the act allowed again failed: %v", err)
	}
	if n := len(e.Exec.Fired()); n != 1 {
		t.Fatalf("fired %d acts, want 1", n)
	}
}

// The terminal shares a tab with one agent by its number in "agents", and
// its tab list says with which.
func TestTheTerminalSharesATabWithOneAgent(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	e.Browser.Open(3, coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Place order", 10, 10)),
	}})
	tab := e.WaitTab(t, "https://shop.example.com/")
	alice := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Alice", PID: 4121, Exe: "claude"})
	bob := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Bob", PID: 4122, Exe: "codex"})
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: in, Out: out}).Run(ctx)
	out.waitFor(t, `Type "help"`)
	io.WriteString(typed, "agents\n")
	m := out.waitFor(t, `(\d+)\s+allowed\s+\d+ open\s+codex \(pid 4122\)`)
	io.WriteString(typed, "share "+tab+" control for "+m[1]+"\n")
	out.waitFor(t, `Tab `+tab+` is for codex \(pid 4122\) · “Bob” alone.`)
	io.WriteString(typed, "tabs\n")
	out.waitFor(t, `\s`+tab+`\s+control for `+m[1]+`\s+Cart — Shop`)
	if _, err := bob.Snapshot(ctx, tab); err != nil {
		t.Fatalf("Bob, who has the tab: %v", err)
	}
	if _, err := alice.Snapshot(ctx, tab); err == nil || !strings.HasPrefix(err.Error(), vocab.CodeShareRequired) {
		t.Fatalf("Alice, who has not: %v", err)
	}
	io.WriteString(typed, "share "+tab+" read for 9\n")
	out.waitFor(t, `There is no agent 9; type "agents" for the list.`)
	io.WriteString(typed, "share "+tab+" read for Alice\n")
	out.waitFor(t, `"Alice" is not an agent's number`)
}
