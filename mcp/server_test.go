package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

var claude = Process{PID: 4242, Exe: "/usr/local/bin/claude"}

// TestNoToolApprovesSharesOrPauses lists every tool and fails if its name,
// description or input schema so much as mentions the person's powers.
func TestNoToolApprovesSharesOrPauses(t *testing.T) {
	r := newRig(t)
	cs := r.client("Claude Code", claude)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"browser_tabs", "browser_snapshot", "browser_find", "browser_click", "browser_type", "browser_press_key",
		"browser_hover", "browser_select_option", "browser_scroll", "browser_wait_for", "browser_navigate", "browser_screenshot",
		"desktop_observe", "desktop_click", "desktop_type", "desktop_press_key", "browser_run_plan", "browser_handoff", "browser_set_max_chars", "browser_drag", "desktop_screenshot", "browser_handle_dialog", "browser_file_upload"}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		b, _ := json.Marshal(tool)
		text := strings.ToLower(string(b))
		for _, bad := range []string{"approv", "grant", "share", "pause", "resume", "policy", "allow", "permit", "answer"} {
			if strings.Contains(text, bad) {
				t.Errorf("tool %s mentions %q: %s", tool.Name, bad, b)
			}
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	for _, name := range want {
		if !got[name] {
			t.Errorf("tool %s is missing", name)
		}
	}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want exactly the %d listed: a new tool must be added to this test", len(res.Tools), len(want))
	}
}

func TestFirstConnectionIsAskedOnceAndLabelledWithTheProcess(t *testing.T) {
	r := newRig(t)
	r.setAnswer(vocab.Deny)
	events, stop := r.e.Subscribe(64)
	defer stop()
	cs := r.client("Claude Code", claude)
	text := mcptest.Refused(t, cs, "browser_tabs", nil, vocab.CodeAgentNotAllowed)
	agentsEvents := 0
	for len(events) > 0 {
		if ev := <-events; ev.Kind == persondoor.EventAgents {
			agentsEvents++
		}
	}
	if agentsEvents == 0 {
		t.Fatal("the person's door was not told that an agent arrived")
	}
	// The real process first, the name the agent gave after it.
	if proc, name := strings.Index(text, "claude (pid 4242)"), strings.Index(text, "Claude Code"); proc < 0 || name < proc {
		t.Errorf("the refusal does not name the agent's process, then its name: %q", text)
	}
	// Denied: the rest of this session is refused without asking again.
	mcptest.Refused(t, cs, "browser_snapshot", nil, vocab.CodeAgentNotAllowed)
	if n := r.askedAbout("connect"); n != 1 {
		t.Fatalf("the person was asked %d times, want once", n)
	}
	agents := r.e.Agents()
	if len(agents) != 1 || agents[0].Name != "Claude Code" || agents[0].Version != "1.2" || agents[0].PID != 4242 ||
		agents[0].Exe != claude.Exe || agents[0].Allowed || agents[0].Sessions != 1 {
		t.Fatalf("Agents() = %+v", agents)
	}
	// The person allows it from their door: no new question, tools work.
	if err := r.e.AllowAgent(agents[0].Key); err != nil {
		t.Fatal(err)
	}
	cs2 := r.client("Claude Code", claude)
	mcptest.MustCall(t, cs2, "browser_tabs", nil)
	if n := r.askedAbout("connect"); n != 1 {
		t.Fatalf("an allowed agent was asked about again (%d questions)", n)
	}
	// The same name from another program is another agent.
	r.setAnswer(silent)
	impostor := r.client("Claude Code", Process{PID: 999, Exe: "/tmp/evil"})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := impostor.CallTool(ctx, &sdk.CallToolParams{Name: "browser_tabs"})
	if err == nil && !res.IsError {
		t.Fatal("another program under an allowed name was let in")
	}
	if err := r.e.ForgetAgent(agents[0].Key); err != nil {
		t.Fatal(err)
	}
	r.setAnswer(vocab.Deny)
	mcptest.Refused(t, cs2, "browser_tabs", nil, vocab.CodeAgentNotAllowed)
	rows, err := r.log.Rows(context.Background(), audit.Filter{Act: string(vocab.Connect)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 {
		t.Fatalf("the connection decisions are not all in the log: %d rows", len(rows))
	}
}

func TestSnapshotClickTypeAndKeyThroughMCP(t *testing.T) {
	r := newRig(t)
	cs := r.client("Claude Code", claude)
	mcptest.Refused(t, cs, "browser_snapshot", nil, vocab.CodeShareRequired)
	tabs := mcptest.MustCall(t, cs, "browser_tabs", nil)
	if strings.Contains(tabs, "Cart") {
		t.Fatalf("the title of a tab the agent may not read was listed: %q", tabs)
	}
	r.e.SetShare(r.tab, vocab.ReadOnly)
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	ref := mcptest.Ref(t, snap, "button", "Place order")
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": ref}, vocab.CodeControlRequired)

	r.e.SetShare(r.tab, vocab.Control)
	out := mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": ref, "element": "the order button"})
	if !strings.Contains(out, "Done: Click “Place order”") || !strings.Contains(out, "Changes on the page") || !strings.Contains(out, "Order placed") {
		t.Fatalf("the click's result does not say what fired and what changed:\n%s", out)
	}
	if !strings.Contains(out, "The click reached button “Place order”.\n") {
		t.Errorf("the click's result does not say where the click arrived:\n%s", out)
	}
	t.Logf("click result:\n%s", out)
	r.b.divert.Store(true)
	missed := mcptest.MustCall(t, cs, "browser_click", map[string]any{"ref": ref})
	r.b.divert.Store(false)
	if !strings.HasPrefix(missed, "Fired, but missed: Click “Place order”") || !strings.Contains(missed, "The click fired but landed on div#sheet, not on button “Place order”") {
		t.Errorf("a diverted click's result does not say it missed:\n%s", missed)
	}
	field := mcptest.Ref(t, snap, "textbox", "Search")
	mcptest.MustCall(t, cs, "browser_type", map[string]any{"ref": field, "text": "socks", "submit": true, "clear": true})
	mcptest.MustCall(t, cs, "browser_press_key", map[string]any{"key": "Control+Shift+K"})
	mcptest.MustCall(t, cs, "browser_hover", map[string]any{"ref": ref})
	mcptest.MustCall(t, cs, "browser_scroll", map[string]any{"ref": ref, "dy": 2})
	mcptest.MustCall(t, cs, "browser_select_option", map[string]any{"ref": field, "option": "Blue"})
	fired := r.exec.Fired()
	if len(fired) != 7 {
		t.Fatalf("fired %d acts, want 7: %+v", len(fired), fired)
	}
	fired = append(fired[:1], fired[2:]...) // the diverted click
	if a := fired[1].Act; a.Kind != vocab.Type || a.Text != "socks" || !a.Submit || !a.Clear {
		t.Fatalf("type fired as %+v", a)
	}
	if a := fired[2].Act; a.Kind != vocab.Key || a.Keys != "Control+Shift+K" {
		t.Fatalf("key fired as %+v", a)
	}
	// Every row carries the client's name and process.
	rows, err := r.log.Rows(context.Background(), audit.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.AgentName == "person" {
			continue
		}
		if row.AgentName != "Claude Code" || row.AgentPID != 4242 || row.AgentExe != claude.Exe {
			t.Fatalf("a row does not carry the agent: %s", persondoor.FormatAuditRow(persondoor.AuditRow(row)))
		}
	}
}

func TestRefusalsCarryStableCodes(t *testing.T) {
	r := newRig(t)
	cs := r.client("Codex", claude)
	r.e.SetShare(r.tab, vocab.Control)
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": "e1"}, vocab.CodeStaleRef)
	snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"max_chars": 40})
	if !strings.Contains(snap, "cut at") {
		t.Fatalf("a budget did not cut the snapshot:\n%s", snap)
	}
	ref := mcptest.Ref(t, mcptest.MustCall(t, cs, "browser_snapshot", nil), "button", "Place order")
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": ref, "snapshot": "s9.99"}, vocab.CodeStaleRef)
	mcptest.Refused(t, cs, "browser_snapshot", map[string]any{"tab": "99"}, vocab.CodeNoTab)
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": ref, "button": "middle"}, vocab.CodeBadRequest)
	mcptest.Refused(t, cs, "browser_navigate", map[string]any{"url": "file:///etc/passwd"}, vocab.CodeBadRequest)

	r.setAnswer(vocab.Deny)
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": ref}, vocab.CodeDenied)
	r.setAnswer(vocab.AllowOnce)
	r.e.Pause(true)
	mcptest.Refused(t, cs, "browser_click", map[string]any{"ref": ref}, vocab.CodePaused)
	r.e.Pause(false)
	if len(r.exec.Fired()) != 0 {
		t.Fatal("something fired")
	}
	// Subtree, diff and find.
	sub := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"ref": ref})
	if strings.Contains(sub, "Search") {
		t.Fatalf("the subtree shows more than the button:\n%s", sub)
	}
	diff := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"diff": true})
	if !strings.Contains(diff, "nothing changed") {
		t.Fatalf("an unchanged page has a diff:\n%s", diff)
	}
	found := mcptest.MustCall(t, cs, "browser_find", map[string]any{"text": "search", "role": "textbox"})
	if !strings.Contains(found, "1 matching lines") || !strings.Contains(found, `textbox "Search"`) {
		t.Fatalf("find: %s", found)
	}
	wait := mcptest.MustCall(t, cs, "browser_wait_for", map[string]any{"text_gone": "Order placed"})
	if !strings.HasPrefix(wait, "Gone after") {
		t.Fatalf("wait: %s", wait)
	}
	wait = mcptest.MustCall(t, cs, "browser_wait_for", map[string]any{"text": "Order placed", "time": 0.6})
	if !strings.HasPrefix(wait, "Not met") {
		t.Fatalf("wait: %s", wait)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "browser_screenshot"})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("screenshot: %v %+v", err, res)
	}
	if img, ok := res.Content[0].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" || len(img.Data) < 8 {
		t.Fatalf("screenshot is not a PNG: %+v", res.Content[0])
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "browser_screenshot", Arguments: map[string]any{"ref": ref}})
	if err != nil || res.IsError {
		t.Fatalf("element screenshot: %v %+v", err, res)
	}
}

func TestDesktopToolsNeedTheDesktopAndRespectTheDenyList(t *testing.T) {
	r := newRig(t)
	cs := r.client("Cursor", claude)
	mcptest.Refused(t, cs, "desktop_observe", nil, vocab.CodeShareRequired)
	r.exec.SetWindows([]executor.Window{{App: executor.App{Name: "Terminal", Exe: "/usr/bin/xterm"}, Title: "shell", X: 0, Y: 0, W: 500, H: 400, Active: true}})
	r.e.SetShare(vocab.DesktopKey, vocab.ReadOnly)
	view := mcptest.MustCall(t, cs, "desktop_observe", nil)
	if !strings.Contains(view, `"shell" — Terminal at 0,0 size 500×400`) {
		t.Fatalf("observe: %s", view)
	}
	mcptest.Refused(t, cs, "desktop_click", map[string]any{"x": 10, "y": 10}, vocab.CodeControlRequired)
	r.e.SetShare(vocab.DesktopKey, vocab.Control)
	mcptest.MustCall(t, cs, "desktop_click", map[string]any{"x": 10, "y": 20, "element": "the shell"})
	mcptest.MustCall(t, cs, "desktop_type", map[string]any{"text": "ls", "submit": true})
	mcptest.MustCall(t, cs, "desktop_press_key", map[string]any{"key": "Control+C"})
	fired := r.exec.Fired()
	if len(fired) != 3 || fired[0].Plan.X != 10 || fired[0].Plan.Y != 20 || fired[1].Act.Text != "ls" || fired[2].Act.Keys != "Control+C" {
		t.Fatalf("fired %+v", fired)
	}
	r.exec.SetWindows([]executor.Window{{App: executor.App{Name: "KeePassXC", Exe: "/usr/bin/keepassxc", Class: "keepassxc.KeePassXC"}, Title: "vault", X: 0, Y: 0, W: 500, H: 400}})
	mcptest.Refused(t, cs, "desktop_click", map[string]any{"x": 10, "y": 20}, vocab.CodeDenyListed)
	if len(r.exec.Fired()) != 3 {
		t.Fatal("a click landed on a deny-listed application")
	}
	rows, _ := r.log.Rows(context.Background(), audit.Filter{Limit: 20})
	desktop := 0
	for _, row := range rows {
		if row.Desktop {
			desktop++
		}
	}
	if desktop < 4 {
		t.Fatalf("desktop acts are not marked as such in the log (%d rows)", desktop)
	}
}

// TestEightClientsGetTheirOwnAnswers runs eight agents at once, each reading
// the tab over and over while one of them acts: each sees its own snapshots
// and its own diffs, and sees the act's effect exactly once.
func TestEightClientsGetTheirOwnAnswers(t *testing.T) {
	r := newRig(t)
	r.e.SetShare(r.tab, vocab.Control)
	const n = 8
	clients := make([]*sdk.ClientSession, n)
	for i := range clients {
		clients[i] = r.client(fmt.Sprintf("agent-%d", i), Process{PID: 5000 + i, Exe: "/usr/bin/agent"})
	}
	var mu sync.Mutex
	owner := map[string]int{} // snapshot id → client
	var wg sync.WaitGroup
	errs := make(chan error, n*40)
	seen := make([]int, n) // how many diffs showed the order being placed
	for i, cs := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 15; k++ {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "browser_snapshot", Arguments: map[string]any{"diff": k > 0}})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("client %d: %v %+v", i, err, res)
					return
				}
				text := res.Content[0].(*sdk.TextContent).Text
				id := snapshotID.FindStringSubmatch(text)[1]
				mu.Lock()
				if prev, ok := owner[id]; ok {
					errs <- fmt.Errorf("snapshot %s went to clients %d and %d", id, prev, i)
				}
				owner[id] = i
				mu.Unlock()
				if k > 0 && strings.Contains(text, "+ ") && strings.Contains(text, "Order placed") {
					seen[i]++
				}
				if i == 0 && k == 5 {
					// The click's own result reads the tab too: its diff is the
					// acting client's one sighting of the change.
					res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "browser_click", Arguments: map[string]any{"ref": "e1"}})
					if err != nil || res.IsError {
						errs <- fmt.Errorf("the acting client was refused: %v %+v", err, res)
						return
					}
					if text := res.Content[0].(*sdk.TextContent).Text; strings.Contains(text, "Order placed") {
						seen[i]++
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, s := range seen {
		if s != 1 {
			t.Errorf("client %d saw the order appear in %d diffs, want exactly 1", i, s)
		}
	}
	if len(r.exec.Fired()) != 1 {
		t.Fatalf("fired %d acts, want 1", len(r.exec.Fired()))
	}
}

// TestExtensionDroppedMidRequest: the extension goes away while a snapshot is
// in flight; the agent gets extension_disconnected promptly, not a hang.
func TestExtensionDroppedMidRequest(t *testing.T) {
	r := newRig(t)
	r.e.SetShare(r.tab, vocab.ReadOnly)
	cs := r.client("Claude Code", claude)
	mcptest.MustCall(t, cs, "browser_tabs", nil)
	r.b.stall.Store(true)
	done := make(chan string, 1)
	go func() {
		text, _ := mcptest.Call(t, cs, "browser_snapshot", nil)
		done <- text
	}()
	select {
	case <-r.b.stalled:
	case <-time.After(5 * time.Second):
		t.Fatal("the snapshot never reached the browser")
	}
	start := time.Now()
	close(r.b.unstall)
	r.b.push("bridge.disconnected", nil)
	select {
	case text := <-done:
		if !strings.HasPrefix(text, vocab.CodeDisconnected+": ") {
			t.Fatalf("want extension_disconnected, got %q", text)
		}
		t.Logf("answered %v after the drop", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("the call hung after the extension dropped")
	}
	// And while it is gone, calls are refused at once.
	mcptest.Refused(t, cs, "browser_snapshot", map[string]any{"tab": r.tab}, vocab.CodeDisconnected)
}

// browser_tabs selects and closes a tab as acts the person is asked about
// and the log holds; without control of the tab it refuses.
func TestBrowserTabsSelectsAndClosesATab(t *testing.T) {
	r := newRig(t)
	cs := r.client("Claude Code", claude)
	r.e.SetShare(r.tab, vocab.ReadOnly)
	mcptest.Refused(t, cs, "browser_tabs", map[string]any{"action": "close", "tab": r.tab}, vocab.CodeControlRequired)
	r.e.SetShare(r.tab, vocab.Control)
	if out := mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "select", "tab": r.tab}); !strings.Contains(out, "Done: Bring the tab to the front, tab "+r.tab) {
		t.Errorf("select: %s", out)
	}
	if out := mcptest.MustCall(t, cs, "browser_tabs", map[string]any{"action": "close", "tab": r.tab}); !strings.Contains(out, "Done: Close the tab, tab "+r.tab) || !r.b.closed.Load() {
		t.Errorf("close: %s (closed %v)", out, r.b.closed.Load())
	}
	mcptest.Refused(t, cs, "browser_tabs", map[string]any{"action": "new"}, vocab.CodeBadRequest)
	rows, err := r.log.Rows(context.Background(), audit.Filter{Act: string(vocab.CloseTab)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || rows[0].Outcome != vocab.OutcomeDone {
		t.Errorf("close rows %+v, want the fire row and done", rows)
	}
	if r.askedAbout(string(vocab.CloseTab)) != 1 || r.askedAbout(string(vocab.Activate)) != 1 {
		t.Errorf("the person was asked %d times about closing and %d about selecting, want once each", r.askedAbout(string(vocab.CloseTab)), r.askedAbout(string(vocab.Activate)))
	}
}

// A part of the desktop view read more than 2 s before the answer is said
// to the agent, with its age; fresh parts are not.
func TestTheDesktopViewSaysWhatIsOld(t *testing.T) {
	v := &agentdoor.DesktopView{Frontmost: agentdoor.App{Name: "gedit"}, Ages: []agentdoor.Age{
		{Part: "the window list", Age: 3200 * time.Millisecond, Stale: true},
		{Part: "the window in front", Age: 40 * time.Millisecond},
	}}
	got := formatDesktop(v)
	if !strings.Contains(got, "may have changed: the window list (3.2 s). Look again with desktop_observe") || strings.Contains(got, "the window in front (") {
		t.Fatalf("a view with an old window list reads:\n%s", got)
	}
	v.Ages[0].Stale = false
	if got := formatDesktop(v); strings.Contains(got, "may have changed") {
		t.Fatalf("a fresh view reads:\n%s", got)
	}
}

// desktop_observe keeps to the max_chars a call gives, or else the
// session's, as browser_snapshot does.
func TestDesktopObserveKeepsToMaxChars(t *testing.T) {
	r := newRig(t)
	cs := r.client("Cursor", claude)
	app := executor.App{Name: "gedit", Exe: "/usr/bin/gedit", PID: 4242}
	r.exec.SetFrontmost(app)
	tree := &gdesktop.Tree{App: "gedit", PID: 4242, Root: gdesktop.Element{ID: "/w", Role: "frame", Name: "notes", State: gdesktop.States{Enabled: true, Showing: true}}}
	for i := range 400 {
		tree.Root.Children = append(tree.Root.Children, gdesktop.Element{ID: fmt.Sprintf("/w/%d", i), Role: "push button", Name: fmt.Sprintf("Button number %d", i), State: gdesktop.States{Enabled: true, Showing: true}, Box: gdesktop.Rect{X: 1, Y: 1, W: 10, H: 10}})
	}
	r.read.SetAccessible(4242, tree)
	r.e.SetShare(vocab.DesktopKey, vocab.ReadOnly)
	if whole := mcptest.MustCall(t, cs, "desktop_observe", map[string]any{"max_chars": -1}); !strings.Contains(whole, `"Button number 399"`) {
		t.Fatalf("with no limit the view lacks the last button (%d characters)", len(whole))
	}
	if cut := mcptest.MustCall(t, cs, "desktop_observe", map[string]any{"max_chars": 8000}); len(cut) > 8000 || !strings.Contains(cut, "left out") {
		t.Fatalf("with max_chars 8000 the view is %d characters and says nothing is left out", len(cut))
	}
	mcptest.MustCall(t, cs, "browser_set_max_chars", map[string]any{"max_chars": 8000})
	if cut := mcptest.MustCall(t, cs, "desktop_observe", nil); len(cut) > 8000 {
		t.Fatalf("with the session's budget at 8000 the view is %d characters", len(cut))
	}
}
