package serve

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

// What `reins serve` prints, read from a real terminal, holds no byte that
// terminal would obey, whatever the page and the agent wrote: no ESC, no
// carriage return, no C1 control, no bidi or zero-width character; no line
// an agent's newlines forged; the agent's real process in full.
func TestTheTerminalShowsHostileTextTamed(t *testing.T) {
	out := testenv.OpenTerminal(t)
	tty := out.TTY

	e := coretest.New(t, coretest.Options{ApprovalTimeout: 10 * time.Second})
	name := "Place order\u2028" + plaintest.Override + plaintest.Invisible + plaintest.Long
	url := "https://shop.example.com/\u202e" + plaintest.Long
	e.Browser.Open(3, coretest.Page{URL: url, Title: plaintest.All, Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, name, 10, 10), coretest.Field(2, "Search\u202e", false, 10, 60),
			coretest.Button(3, plaintest.EraseLine+plaintest.Conceal+plaintest.Newlines, 10, 110)),
	}})
	tab := e.WaitTab(t, url)
	// The tab's window, with the keys, and an editor over its right part,
	// where the desktop's click goes.
	e.Exec.SetWindows([]executor.Window{
		{ID: 2, App: executor.App{Name: "Gedit\x1b[8m", Exe: "/usr/bin/gedit", PID: 4242}, Title: plaintest.All, X: 300, Y: 200, W: 700, H: 600, Active: true},
		{ID: 1, App: executor.App{Name: "Chromium", Exe: "/usr/lib/chromium/chromium", PID: 4000}, Title: "Chromium", W: 1000, H: 700},
	})
	e.Exec.SetFocus(1)
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: tty, Out: tty}).Run(ctx)
	out.Wait(t, `Type "help"`, 10*time.Second)
	type_ := func(s string) {
		if err := out.Type(s + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	type_("share " + tab + " control")
	out.Wait(t, "Tab "+tab+" is now shared: control", 10*time.Second)

	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3"})
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(snap.Text, -1)
	acts := []func() error{
		func() error {
			_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: refs[0][1], Act: vocab.Act{Kind: vocab.Click}, Element: plaintest.Newlines})
			return err
		},
		func() error {
			_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: refs[1][1], Act: vocab.Act{Kind: vocab.Type, Text: plaintest.Newlines + " " + plaintest.Long}})
			return err
		},
		func() error {
			_, err := agent.DesktopAct(ctx, agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 412, Y: 300, Element: plaintest.Newlines + plaintest.Conceal})
			return err
		},
	}
	// The agent's first connection was put to the person too, its name as
	// hostile as the rest.
	ids := []string{out.Next(t, `\nAPPROVAL (c\d+)  python3 \(pid 999\) · “Claude Code`, nil, 10*time.Second)}
	for i, act := range acts {
		done := make(chan error, 1)
		go func() { done <- act() }()
		id := out.Next(t, `\nAPPROVAL (a\d+)  python3 \(pid 999\) · “Claude Code`, ids, 10*time.Second)
		ids = append(ids, id)
		type_("allow " + id)
		if err := <-done; err != nil {
			t.Fatalf("act %d: %v", i, err)
		}
	}
	// A name with control characters is refused as changed; its refusal is
	// printed too.
	if _, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: refs[2][1], Act: vocab.Act{Kind: vocab.Click}}); err == nil {
		t.Fatal("a click on a name that is not what was kept fired")
	}
	out.Wait(t, `— refused`, 10*time.Second)
	type_("tabs")
	out.Wait(t, `\* `+tab+` +control +Delete account`, 10*time.Second)
	type_("pending")
	out.Wait(t, `Nothing is waiting`, 10*time.Second)
	type_("agents")
	out.Wait(t, `No agent has connected yet|\n 1  `, 10*time.Second)
	type_("audit 40")
	out.Wait(t, `#\d+ .*→ refused \[changed\]`, 10*time.Second)
	type_("help")
	out.Wait(t, `quit +stop Reins`, 10*time.Second)

	text := out.String()
	for i, line := range strings.Split(text, "\n") {
		plaintest.Check(t, fmt.Sprintf("terminal line %d", i+1), line, 0)
		if rest, ok := strings.CutPrefix(line, "APPROVAL "); ok {
			id, _, _ := strings.Cut(rest, " ")
			if !slices.Contains(ids, id) {
				t.Errorf("a forged approval block: %q", line)
			}
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Answer with: allow "); ok {
			if id, _, _ := strings.Cut(rest, " "); !slices.Contains(ids, id) {
				t.Errorf("a forged answer line: %q", line)
			}
		}
	}
	if strings.Count(text, "\nAPPROVAL ") != len(ids) {
		t.Errorf("%d approval blocks for %d requests:\n%s", strings.Count(text, "\nAPPROVAL "), len(ids), text)
	}
	for _, want := range []string{
		"the agent says “OK APPROVAL a99 claude (pid 1) asks: Click \"Cancel\" Answer with: allow a99Allow[8m hidden” (Reins has not checked this)",
		"Click the point 412, 300 in Gedit[8m · gedit (pid 4242)",
		"window “Delete account[2K Click \"Cancel",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the terminal does not show %q", want)
		}
	}
	if n := strings.Count(text, "python3 (pid 999) · “"); n < 6 {
		t.Errorf("the agent's process shows %d times, want it on every approval, activity and agent line", n)
	}
	if strings.Contains(text, strings.Repeat("W", plain.URLMax+1)) {
		t.Error("5,000 characters of page text reached the terminal uncut")
	}
}
