package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

func find(items []Item, label string) *Item {
	for i := range items {
		if items[i].Label == label {
			return &items[i]
		}
	}
	return nil
}

// under is the group a heading row leads inside a submenu: the items
// after the disabled row labelled heading, up to the next separator.
func under(items []Item, heading string) []Item {
	for i, it := range items {
		if it.Label == heading && it.Disabled {
			group := items[i+1:]
			for j, g := range group {
				if g.Separator {
					return group[:j]
				}
			}
			return group
		}
	}
	return nil
}

func checked(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Checked {
			out = append(out, it.Label)
		}
	}
	return out
}

func TestTrayReflectsShareLevels(t *testing.T) {
	var shared []string
	s := TrayState{Connected: true, Desktop: vocab.ReadOnly, Tabs: []vocab.TabInfo{
		{ID: "1", Title: "Cart — Shop", Origin: "https://shop.example.com", Level: vocab.Control},
		{ID: "2", Title: "Inbox", Origin: "https://mail.example.com", Level: vocab.None},
	}}
	items := BuildTray(s, TrayActions{SetShare: func(tab string, l vocab.Level) { shared = append(shared, tab+"="+l.String()) }})
	tabs := find(items, "Tabs")
	shop := under(tabs.Children, "Cart — Shop (shop.example.com)")
	mail := under(tabs.Children, "Inbox (mail.example.com)")
	if len(shop) != 3 || len(mail) != 3 {
		t.Fatalf("tabs submenu = %+v", tabs.Children)
	}
	if got := checked(shop); len(got) != 1 || got[0] != "Control" {
		t.Fatalf("shop checked %v, want Control", got)
	}
	if got := checked(mail); len(got) != 1 || got[0] != "Not shared" {
		t.Fatalf("mail checked %v, want Not shared", got)
	}
	if d := find(items, "Desktop").Children; d[0].Label != DesktopLevels || !d[0].Disabled {
		t.Errorf("the Desktop menu does not open with what its levels give: %+v", d[0])
	}
	if got := checked(find(items, "Desktop").Children); len(got) != 1 || got[0] != "Read" {
		t.Fatalf("desktop checked %v, want Read", got)
	}
	if depth(items) > 2 {
		t.Fatalf("the menu is %d levels deep; hosts on libdbusmenu lose a third level", depth(items))
	}
	find(mail, "Read").Do()
	find(find(items, "Desktop").Children, "Control").Do()
	if len(shared) != 2 || shared[0] != "2="+vocab.ReadOnly.String() || shared[1] != vocab.DesktopKey+"="+vocab.Control.String() {
		t.Fatalf("SetShare calls = %v", shared)
	}
}

func TestTrayReflectsAgentsPendingAndPause(t *testing.T) {
	var allowed []string
	s := TrayState{Connected: false, Pending: 2, Agents: []persondoor.AgentInfo{
		{Key: "cc", Name: "Claude Code", PID: 4121, Exe: "/usr/bin/claude", Allowed: true, Sessions: 1},
		{Key: "cx", Name: "Codex", PID: 5230, Exe: "/usr/bin/codex", Sessions: 1, Asking: true},
	}}
	items := BuildTray(s, TrayActions{AllowAgent: func(k string) { allowed = append(allowed, k) }})
	if items[0].Label != "Reins — 2 agents connected" || !items[0].Disabled {
		t.Fatalf("header = %+v", items[0])
	}
	if items[1].Label != "Chrome extension: not connected — Install…" || items[1].Disabled {
		t.Fatalf("extension line = %+v", items[1])
	}
	if find(items, "Pending approvals (2)…") == nil {
		t.Fatal("no pending line with the count")
	}
	agents := find(items, "Agents").Children
	cc := find(agents, "claude (pid 4121) · “Claude Code”")
	cx := find(agents, "codex (pid 5230) · “Codex”")
	if cc == nil || cx == nil || !cc.Checked || cx.Checked {
		t.Fatalf("agents = %+v", agents)
	}
	if find(under(agents, cc.Label), "Forget (ask again next time)") == nil {
		t.Fatalf("an allowed agent cannot be forgotten: %+v", agents)
	}
	find(under(agents, cx.Label), "Allow until Reins quits").Do()
	if len(allowed) != 1 || allowed[0] != "cx" {
		t.Fatalf("AllowAgent calls = %v", allowed)
	}
	if IconFor(s) != IconWaiting {
		t.Fatalf("icon = %v, want waiting", IconFor(s))
	}
	s.Paused = true
	items = BuildTray(s, TrayActions{})
	if find(items, "Resume agents") == nil || items[0].Label != "Reins — all agents paused" || IconFor(s) != IconPaused {
		t.Fatalf("paused menu = %+v, icon %v", items, IconFor(s))
	}
	if IconFor(TrayState{}) != IconIdle || IconFor(TrayState{Agents: s.Agents}) != IconConnected {
		t.Fatal("idle/connected icons wrong")
	}
	quit := items[len(items)-1]
	if !quit.Quit || FyneMenu(items).Items[len(items)-1].IsQuit != true {
		t.Fatal("the last item must be the tray's only Quit")
	}
}

func TestTrayIconsDiffer(t *testing.T) {
	seen := map[string]Icon{}
	for i := IconIdle; i <= IconPaused; i++ {
		c := string(TrayIcon(i).Content())
		if prev, ok := seen[c]; ok {
			t.Fatalf("icons %v and %v are the same", prev, i)
		}
		seen[c] = i
	}
}

// depth is how many levels of menus items make.
func depth(items []Item) int {
	d := 0
	for _, it := range items {
		d = max(d, depth(it.Children))
	}
	if len(items) == 0 {
		return 0
	}
	return d + 1
}

// TestTraySharesWithOneAgent offers each allowed agent its own Read and
// Control on every tab, checks the one the tab is shared with, and names the
// agent by its process first, whatever name it declared.
func TestTraySharesWithOneAgent(t *testing.T) {
	codex := persondoor.AgentInfo{Key: "Codex · /usr/bin/codex", Name: "Codex", Exe: "/usr/bin/codex", PID: 41, Allowed: true, Sessions: 1}
	claude := persondoor.AgentInfo{Key: "Claude · /usr/bin/claude", Name: "Claude\u202e Control", Exe: "/usr/bin/claude", PID: 42, Allowed: true, Sessions: 1}
	stranger := persondoor.AgentInfo{Key: "X · /tmp/x", Name: "X", Exe: "/tmp/x", PID: 43, Asking: true, Sessions: 1}
	s := TrayState{Connected: true, Agents: []persondoor.AgentInfo{codex, claude, stranger}, Tabs: []vocab.TabInfo{
		{ID: "1", Title: "Shop", Origin: "https://shop.example.com", Level: vocab.Control, Agent: codex.Key},
		{ID: "2", Title: "Mail", Origin: "https://mail.example.com", Level: vocab.ReadOnly},
	}}
	var calls []string
	items := BuildTray(s, TrayActions{
		SetShare:  func(tab string, l vocab.Level) { calls = append(calls, tab+"="+l.String()) },
		ShareWith: func(tab string, l vocab.Level, agent string) { calls = append(calls, tab+"="+l.String()+"@"+agent) },
	})
	tabs := find(items, "Tabs").Children
	shop, mail := under(tabs, "Shop (shop.example.com)"), under(tabs, "Mail (mail.example.com)")
	// Not shared, Read, Control, then Read and Control for each of the two
	// allowed agents; the agent still asking is offered nothing.
	if len(shop) != 7 || len(mail) != 7 {
		t.Fatalf("tab groups: shop %d items, mail %d; want 7 each: %+v", len(shop), len(mail), tabs)
	}
	codexControl := "Control for " + plain.Who(codex.Exe, codex.PID, codex.Name)
	if got := checked(shop); len(got) != 1 || got[0] != codexControl {
		t.Fatalf("shop checked %v, want %q", got, codexControl)
	}
	if got := checked(mail); len(got) != 1 || got[0] != "Read" {
		t.Fatalf("mail checked %v, want Read (every allowed agent)", got)
	}
	for _, it := range mail {
		if strings.Contains(it.Label, "/tmp/x") {
			t.Fatalf("an agent not allowed is offered a share: %q", it.Label)
		}
		if strings.ContainsRune(it.Label, '\u202e') {
			t.Fatalf("an agent's declared name reaches the menu raw: %q", it.Label)
		}
	}
	find(mail, "Read for "+plain.Who(claude.Exe, claude.PID, claude.Name)).Do()
	find(shop, "Control").Do()
	if want := []string{"2=" + vocab.ReadOnly.String() + "@" + claude.Key, "1=" + vocab.Control.String()}; !slices.Equal(calls, want) {
		t.Fatalf("calls = %v, want %v", calls, want)
	}
}
