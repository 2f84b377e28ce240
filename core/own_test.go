package core_test

import (
	"context"
	"os"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// terminalRig is an engine whose person's door is the terminal that started
// it (reins serve): the terminal is process 7000, Reins 7001.
func terminalRig(t *testing.T) (*coretest.Engine, agentdoor.Session, *atomic.Int32) {
	t.Helper()
	return countingRig(t, coretest.Options{PersonTerminal: true, OwnProcesses: []int{7001, 7000}})
}

// countingRig is an engine made with o, the desktop given at Control, and
// an admitted agent; every act it is asked about is allowed, and counted.
func countingRig(t *testing.T, o coretest.Options) (*coretest.Engine, agentdoor.Session, *atomic.Int32) {
	t.Helper()
	e := coretest.New(t, o)
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	asked := new(atomic.Int32)
	events, stop := e.Subscribe(64)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			if ev.Kind == persondoor.EventApproval && ev.Request.Act.Kind != vocab.Connect {
				asked.Add(1)
				e.Answer(ev.Request.ID, vocab.AllowOnce)
			}
		}
	}()
	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})
	return e, agent, asked
}

var (
	terminal = executor.App{Name: "XTerm", Exe: "/usr/bin/xterm", PID: 7000}
	editor   = executor.App{Name: "Mousepad", Exe: "/usr/bin/mousepad", PID: 4242}
)

// While reins serve is the person's door, text an agent puts on the desktop
// could answer its own approval in that terminal. With no window of the
// terminal on this desktop (tmux, screen, ssh), no desktop input is asked
// for at all; with the terminal's window found, input that would land on
// it is refused before the person is asked, and input elsewhere goes on.
func TestDesktopInputKeepsOffThePersonsTerminal(t *testing.T) {
	ctx := context.Background()
	e, agent, asked := terminalRig(t)
	e.Exec.SetWindows([]executor.Window{{App: editor, Title: "notes", W: 800, H: 600, Active: true}})
	e.Exec.SetFrontmost(editor)
	typeAllow := agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: "allow a1234567\n"}}
	if _, err := agent.DesktopAct(ctx, typeAllow); codeOf(err) != vocab.CodePersonTerminalHidden {
		t.Fatalf("typing with the terminal nowhere on the desktop: %v, want %s", err, vocab.CodePersonTerminalHidden)
	}

	e.Exec.SetWindows([]executor.Window{
		{App: terminal, Title: "reins serve", X: 0, Y: 0, W: 400, H: 300, Active: true},
		{App: editor, Title: "notes", X: 400, Y: 0, W: 400, H: 300},
	})
	e.Exec.SetFrontmost(terminal)
	if _, err := agent.DesktopAct(ctx, typeAllow); codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("typing with the terminal in front: %v, want %s", err, vocab.CodeOwnWindow)
	}
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 100, Y: 100}); codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("a click on the terminal: %v, want %s", err, vocab.CodeOwnWindow)
	}
	if asked.Load() != 0 || len(e.Exec.Fired()) != 0 {
		t.Fatalf("asked %d times and fired %d acts, want none", asked.Load(), len(e.Exec.Fired()))
	}

	// The terminal comes to the front after the person allowed typing in the
	// editor: the executor refuses at the moment of firing.
	e.Exec.SetFrontmost(editor)
	e.Exec.WhileFiring = func(context.Context) error { e.Exec.SetFrontmost(terminal); return nil }
	_, err := agent.DesktopAct(ctx, typeAllow)
	if codeOf(err) != vocab.CodeOwnWindow {
		t.Fatalf("the terminal in front once allowed: %v, want %s", err, vocab.CodeOwnWindow)
	}
	e.Exec.WhileFiring = nil
	e.Exec.SetFrontmost(editor)
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 500, Y: 100}); err != nil {
		t.Fatalf("a click in the editor beside the terminal: %v", err)
	}
	if asked.Load() != 2 || len(e.Exec.Fired()) != 1 {
		t.Fatalf("asked %d times and fired %d acts, want 2 and 1", asked.Load(), len(e.Exec.Fired()))
	}
	rows, err := e.AuditRows(ctx, persondoor.AuditFilter{Outcome: vocab.OutcomeRefused})
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, r := range rows {
		codes[r.Code]++
	}
	if codes[vocab.CodePersonTerminalHidden] != 1 || codes[vocab.CodeOwnWindow] < 2 {
		t.Fatalf("refusals in the audit log: %v", codes)
	}
}

// Reins' own process is among its own: the deny list the executor checks
// holds it, and the person sees it there.
func TestReinsOwnWindowsAreOnTheDenyList(t *testing.T) {
	e := coretest.New(t, coretest.Options{})
	s := e.Settings()
	if s.DenyList[len(s.DenyList)-1] != executor.OwnLabel {
		t.Fatalf("the deny list shown ends with %q", s.DenyList[len(s.DenyList)-1])
	}
	if _, ok := e.Exec.DenyList.Match(executor.App{Name: "renamed", PID: os.Getpid()}); !ok {
		t.Fatal("the executor's deny list does not hold Reins' own process")
	}
}

// Input in a tab is input on the desktop too: with the person's terminal
// nowhere to be found, a click or typing in a shared tab is refused as a
// desktop act is, and reading the tab goes on.
func TestTabInputWaitsForThePersonsTerminalToShow(t *testing.T) {
	ctx := context.Background()
	e, agent, asked := terminalRig(t)
	e.Browser.Open(7, shop())
	tab := e.WaitTab(t, shopURL)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatalf("reading the tab: %v", err)
	}
	ref := regexp.MustCompile(`"Search"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	for _, act := range []vocab.Act{{Kind: vocab.Click}, {Kind: vocab.Type, Text: "allow a1234567\n"}} {
		if _, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: act}); codeOf(err) != vocab.CodePersonTerminalHidden {
			t.Errorf("%s in the tab with the terminal hidden: %v, want %s", act.Kind, err, vocab.CodePersonTerminalHidden)
		}
	}
	if asked.Load() != 0 || len(e.Exec.Fired()) != 0 {
		t.Fatalf("asked %d times and fired %d acts, want none", asked.Load(), len(e.Exec.Fired()))
	}
}

// The desktop at Control does not reach into web browsers: their tabs are
// shared one by one. A desktop act that would land in one is refused before
// the person is asked, and again when a browser comes to the front while
// the act is on its way; acts on other applications go on.
func TestDesktopInputNeverLandsInABrowser(t *testing.T) {
	ctx := context.Background()
	e, agent, asked := countingRig(t, coretest.Options{})
	browser := executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 5000, Class: "chromium.Chromium"}
	e.Exec.SetWindows([]executor.Window{
		{App: browser, Title: "Bank - Chromium", X: 0, Y: 0, W: 400, H: 300, Active: true},
		{App: editor, Title: "notes", X: 400, Y: 0, W: 400, H: 300},
	})
	e.Exec.SetFrontmost(browser)
	for _, r := range []agentdoor.DesktopActRequest{
		{Act: vocab.Act{Kind: vocab.Click}, X: 100, Y: 100},
		{Act: vocab.Act{Kind: vocab.Key, Keys: "Enter"}},
		{Act: vocab.Act{Kind: vocab.Type, Text: "hello"}},
	} {
		if _, err := agent.DesktopAct(ctx, r); codeOf(err) != vocab.CodeBrowserWindow {
			t.Fatalf("desktop %s on the browser: %v, want %s", r.Act.Kind, err, vocab.CodeBrowserWindow)
		}
	}
	if asked.Load() != 0 || len(e.Exec.Fired()) != 0 {
		t.Fatalf("asked %d times and fired %d acts, want none", asked.Load(), len(e.Exec.Fired()))
	}

	// A click on the editor beside it is asked and fired.
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 500, Y: 100}); err != nil {
		t.Fatalf("a click on the editor: %v", err)
	}
	if asked.Load() != 1 || len(e.Exec.Fired()) != 1 {
		t.Fatalf("the click on the editor: asked %d times and fired %d acts, want 1 and 1", asked.Load(), len(e.Exec.Fired()))
	}

	// Typing allowed into the editor, with the browser coming to the front
	// as it fires: the executor refuses at that moment.
	e.Exec.SetFrontmost(editor)
	e.Exec.WhileFiring = func(context.Context) error { e.Exec.SetFrontmost(browser); return nil }
	if _, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: "hello"}}); codeOf(err) != vocab.CodeBrowserWindow {
		t.Fatalf("typing as the browser came to the front: %v, want %s", err, vocab.CodeBrowserWindow)
	}
	if n := len(e.Exec.Fired()); n != 1 {
		t.Fatalf("%d acts fired, want only the editor's click", n)
	}
}
