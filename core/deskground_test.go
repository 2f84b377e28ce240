package core_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// askCounter is the fake executor, counting the questions Reins asks it
// about the desktop.
type askCounter struct {
	*executor.Fake
	mu    sync.Mutex
	asked map[string]int
}

func (c *askCounter) count(q string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked[q]++
}

// take returns the counts so far and starts again from none.
func (c *askCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.asked
	c.asked = map[string]int{}
	return m
}

func (c *askCounter) Frontmost(ctx context.Context) (executor.App, error) {
	c.count("Frontmost")
	return c.Fake.Frontmost(ctx)
}

func (c *askCounter) AppAt(ctx context.Context, x, y float64) (executor.App, error) {
	c.count("AppAt")
	return c.Fake.AppAt(ctx, x, y)
}

func (c *askCounter) Windows(ctx context.Context) ([]executor.Window, error) {
	c.count("Windows")
	return c.Fake.Windows(ctx)
}

func (c *askCounter) Screens(ctx context.Context) ([]executor.Screen, error) {
	c.count("Screens")
	return c.Fake.Screens(ctx)
}

// askRig is desktopRig on an executor that counts what it is asked, with
// reins serve as the person's door in a terminal window of its own, beside
// the fixture's window.
func askRig(t *testing.T) (*coretest.Engine, *askCounter, agentdoor.Session) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.db")
	log, err := audit.Open(context.Background(), audit.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	br := coretest.NewBrowser()
	ex := &executor.Fake{}
	c := &askCounter{Fake: ex, asked: map[string]int{}}
	rd := deskread.NewFake(ex)
	terminal := executor.App{Name: "xterm", Exe: "/usr/bin/xterm", PID: 7070}
	ce := core.New(core.Options{Browser: br, Audit: log, Executor: c, Reader: rd, ApprovalTimeout: 5 * time.Second, PersonWait: 500 * time.Millisecond, Logf: t.Logf,
		PersonTerminal: true, OwnProcesses: []int{terminal.PID}})
	coretest.Run(t, ce, log)
	br.Connect()
	e := &coretest.Engine{Engine: ce, Browser: br, Exec: ex, Read: rd, Log: log, LogPath: path}
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	ex.SetWindows([]executor.Window{
		{ID: 1, App: fixtureApp, Title: "Fixture window", X: 0, Y: 0, W: 300, H: 200, Active: true},
		{ID: 2, App: terminal, Title: "reins serve", X: 1000, Y: 0, W: 300, H: 200},
	})
	ex.SetFrontmost(fixtureApp)
	ex.SetAppAt(fixtureApp)
	rd.SetAccessible(fixtureApp.PID, fixtureTree("Press me"))
	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	return e, c, agent
}

// Before the person is asked about a desktop act, Reins asks the desktop
// once each which application is in front or under the point and which
// windows are on screen, and shows the person what it found there.
func TestADesktopActAsksTheDesktopOnceBeforeThePerson(t *testing.T) {
	e, c, agent := askRig(t)
	ctx := context.Background()
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := deskRefOf(t, v, "button", "Press me")
	events, stop := e.Subscribe(16)
	defer stop()
	for _, r := range []agentdoor.DesktopActRequest{
		{Act: vocab.Act{Kind: vocab.Click}, Ref: ref},
		{Act: vocab.Act{Kind: vocab.Type, Text: "hello"}, Ref: ref},
		{Act: vocab.Act{Kind: vocab.Click}, X: 50, Y: 30},
		{Act: vocab.Act{Kind: vocab.Type, Text: "hello"}},
		{Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}},
	} {
		c.take()
		done := make(chan error, 1)
		go func() {
			_, err := agent.DesktopAct(ctx, r)
			done <- err
		}()
		for ev := range events {
			if ev.Kind != persondoor.EventApproval || ev.Request.Act.Kind != r.Act.Kind {
				continue
			}
			asked := c.take()
			t.Logf("%s (ref %q): asked %v before the person", r.Act.Kind, r.Ref, asked)
			for _, q := range []string{"Frontmost", "AppAt", "Windows", "Screens"} {
				if asked[q] > 1 {
					t.Errorf("%s (ref %q): %s asked %d times before the person was", r.Act.Kind, r.Ref, q, asked[q])
				}
			}
			if got := ev.Request.Target; got.Window != "Fixture window" || got.App == "" || got.Terminal {
				t.Errorf("%s (ref %q): the person is shown app %q, window %q, terminal %v; want the fixture's window", r.Act.Kind, r.Ref, got.App, got.Window, got.Terminal)
			}
			e.Answer(ev.Request.ID, vocab.AllowOnce)
			break
		}
		if err := <-done; err != nil {
			t.Fatalf("%s (ref %q): %v", r.Act.Kind, r.Ref, err)
		}
	}
	if n := len(e.Exec.Fired()); n != 5 {
		t.Errorf("%d acts fired, want 5", n)
	}
}

// The desktop's share is checked again right before the row: taken back
// while the person looks at the act, it refuses the act they then allow.
func TestADesktopShareTakenBackWhileThePersonLooksRefusesTheAct(t *testing.T) {
	e, _, agent := askRig(t)
	ctx := context.Background()
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := deskRefOf(t, v, "button", "Press me")
	err = actWhileAsked(t, e, agent, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, Ref: ref}, func(vocab.Request) {
		if err := e.SetShare(vocab.DesktopKey, vocab.None); err != nil {
			t.Fatal(err)
		}
	})
	if code := codeOf(err); code != vocab.CodeShareRequired {
		t.Errorf("the click = %v (%s), want %s", err, code, vocab.CodeShareRequired)
	}
	if n := len(e.Exec.Fired()); n != 0 {
		t.Errorf("%d acts fired", n)
	}
}

// Text typed into a password field and refused before the desktop is read
// where it lands (here, the desktop open read-only) is kept in no row:
// typed where the focus is, or by ref.
func TestTypingARefusedSecretKeepsItOutOfTheRow(t *testing.T) {
	e, agent := desktopRig(t)
	ctx := context.Background()
	tree := fixtureTree("Press me")
	tree.Root.Children[1].State.Focused = true
	e.Read.SetAccessible(fixtureApp.PID, tree)
	v, err := agent.Desktop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := deskRefOf(t, v, "textbox", "Password")
	if err := e.SetShare(vocab.DesktopKey, vocab.ReadOnly); err != nil {
		t.Fatal(err)
	}
	for _, r := range []agentdoor.DesktopActRequest{
		{Act: vocab.Act{Kind: vocab.Type, Text: "hunter2"}},
		{Act: vocab.Act{Kind: vocab.Type, Text: "hunter2"}, Ref: ref},
	} {
		if _, err := agent.DesktopAct(ctx, r); codeOf(err) != vocab.CodeControlRequired {
			t.Errorf("typing (ref %q) on a read-only desktop: %v, want %s", r.Ref, err, vocab.CodeControlRequired)
		}
	}
	rows, err := core.ReadAudit(ctx, e.Log, persondoor.AuditFilter{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if strings.Contains(string(r.Act), "hunter2") || strings.Contains(r.Detail, "hunter2") {
			t.Errorf("row %d keeps the typed secret: %s", r.Seq, r.Act)
		}
	}
}
