package ui

import (
	"testing"

	"github.com/reins-app/reins/core"
)

func find(items []Item, label string) *Item {
	for i := range items {
		if items[i].Label == label {
			return &items[i]
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
	s := TrayState{Connected: true, Desktop: core.ReadOnly, Tabs: []core.TabInfo{
		{ID: "1", Title: "Cart — Shop", Origin: "https://shop.example.com", Level: core.Control},
		{ID: "2", Title: "Inbox", Origin: "https://mail.example.com", Level: core.None},
	}}
	items := BuildTray(s, TrayActions{SetShare: func(tab string, l core.Level) { shared = append(shared, tab+"="+l.String()) }})
	tabs := find(items, "Tabs")
	shop := find(tabs.Children, "Cart — Shop (shop.example.com)")
	mail := find(tabs.Children, "Inbox (mail.example.com)")
	if shop == nil || mail == nil {
		t.Fatalf("tabs submenu = %+v", tabs.Children)
	}
	if got := checked(shop.Children); len(got) != 1 || got[0] != "Control" {
		t.Fatalf("shop checked %v, want Control", got)
	}
	if got := checked(mail.Children); len(got) != 1 || got[0] != "Not shared" {
		t.Fatalf("mail checked %v, want Not shared", got)
	}
	if got := checked(find(items, "Desktop").Children); len(got) != 1 || got[0] != "Read" {
		t.Fatalf("desktop checked %v, want Read", got)
	}
	find(mail.Children, "Read").Do()
	find(find(items, "Desktop").Children, "Control").Do()
	if len(shared) != 2 || shared[0] != "2="+core.ReadOnly.String() || shared[1] != core.DesktopKey+"="+core.Control.String() {
		t.Fatalf("SetShare calls = %v", shared)
	}
}

func TestTrayReflectsAgentsPendingAndPause(t *testing.T) {
	var allowed []string
	s := TrayState{Connected: false, Pending: 2, Agents: []core.AgentInfo{
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
	cc := find(agents, "Claude Code · claude (pid 4121)")
	cx := find(agents, "Codex · codex (pid 5230)")
	if cc == nil || cx == nil || !cc.Checked || cx.Checked {
		t.Fatalf("agents = %+v", agents)
	}
	find(cx.Children, "Allow until Reins quits").Do()
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
