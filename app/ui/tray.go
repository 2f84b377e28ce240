package ui

import (
	"fmt"

	"fyne.io/fyne/v2"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/vocab"
)

// TrayState is what the tray menu shows, read from the engine.
type TrayState struct {
	Tabs      []vocab.TabInfo
	Desktop   vocab.Level
	Agents    []persondoor.AgentInfo
	Pending   int
	Paused    bool
	Connected bool // the Chrome extension
	Handoffs  []persondoor.Handoff
	// Unanchored says no copy of the audit log leaves this computer.
	Unanchored bool
	// Policy is the organisation's policy in force: the menu offers no
	// share above what it allows.
	Policy policy.State
}

// ReadTrayState reads the tray's state from the engine.
func ReadTrayState(e persondoor.Door) TrayState {
	s := TrayState{
		Tabs: e.Tabs(), Desktop: e.Share(vocab.DesktopKey), Agents: e.Agents(),
		Pending: len(e.Pending()), Paused: e.Paused(), Connected: e.Connected(), Handoffs: e.Handoffs(),
	}
	if a, ok := e.(persondoor.Anchorer); ok {
		s.Unanchored = !a.AuditAnchor().Anchored
	}
	s.Policy = persondoor.PolicyOf(e)
	return s
}

// TrayActions are what the menu's items do.
type TrayActions struct {
	SetShare     func(tab string, level vocab.Level)
	ShareWith    func(tab string, level vocab.Level, agent string) // one agent alone, by its key
	AllowAgent   func(key string)
	ForgetAgent  func(key string)
	Install      func() // the extension is not connected: first run
	ShowPending  func()
	ShowActivity func()
	ShowAudit    func()
	SetPaused    func(on bool)
	ShowPrefs    func()
	ShowFirstRun func()
	RunSelfTest  func() // nil: no self-test item
	Quit         func()
	Handoff      func(id string, done bool) // the person's Done or Stop on a hand-off
	ShowHandoff  func(id string)
}

// Item is one line of the tray menu, as plain data so tests can read it.
type Item struct {
	Label     string
	Disabled  bool
	Checked   bool
	Separator bool
	Quit      bool // the item that quits; the tray adds none of its own
	Children  []Item
	Do        func()
}

// Icon is the tray icon's state.
type Icon int

const (
	IconIdle      Icon = iota // outline: no agent connected
	IconConnected             // filled: an agent is connected
	IconWaiting               // a dot: an approval waits
	IconPaused                // a slash: every act is refused
)

func (i Icon) String() string {
	return [...]string{"idle", "connected", "waiting", "paused"}[i]
}

// IconFor picks the icon: paused first, then a waiting approval or a tab
// handed to the person, then whether an agent is connected.
func IconFor(s TrayState) Icon {
	switch {
	case s.Paused:
		return IconPaused
	case s.Pending > 0 || len(s.Handoffs) > 0:
		return IconWaiting
	case connectedAgents(s.Agents) > 0:
		return IconConnected
	}
	return IconIdle
}

func connectedAgents(as []persondoor.AgentInfo) int {
	n := 0
	for _, a := range as {
		if a.Sessions > 0 {
			n++
		}
	}
	return n
}

var levels = []struct {
	level vocab.Level
	label string
}{{vocab.None, "Not shared"}, {vocab.ReadOnly, "Read"}, {vocab.Control, "Control"}}

// levelItems are the None / Read / Control choices for one tab (or the
// desktop), the current one checked.
// DesktopLevels says in one line what the desktop's levels give agents.
const DesktopLevels = "Read: see the app in front, not browsers or deny-listed apps · Control: click and type there, each act asked"

func levelItems(key string, cur vocab.Level, limit policy.Limit, a TrayActions) []Item {
	out := make([]Item, 0, len(levels))
	for _, l := range levels {
		l := l
		if !limit.Allows(l.level) {
			out = append(out, Item{Label: l.label + ManagedMark, Checked: cur == l.level, Disabled: true})
			continue
		}
		out = append(out, Item{Label: l.label, Checked: cur == l.level, Do: func() {
			if a.SetShare != nil {
				a.SetShare(key, l.level)
			}
		}})
	}
	return out
}

// ManagedMark follows a choice the organisation's policy does not allow,
// which the menu shows but does not offer.
const ManagedMark = " — not allowed by your organisation"

// tabLevelItems are a tab's choices: None / Read / Control for every
// allowed agent, then Read and Control for each allowed agent alone (and
// for the agent the tab is shared with, allowed or not, so the menu shows
// where it stands).
func tabLevelItems(t vocab.TabInfo, as []persondoor.AgentInfo, limit policy.Limit, a TrayActions) []Item {
	cur := t.Level
	if t.Agent != "" {
		cur = -1 // none of the every-agent choices is the current one
	}
	out := levelItems(t.ID, cur, limit, a)
	for _, ag := range as {
		if !ag.Allowed && ag.Key != t.Agent {
			continue
		}
		who := plain.Who(ag.Exe, ag.PID, ag.Name)
		for _, l := range levels[1:] {
			l := l
			if !limit.Allows(l.level) {
				continue // said once, above
			}
			out = append(out, Item{
				Label:   l.label + " for " + who,
				Checked: t.Agent == ag.Key && t.Level == l.level,
				Do: func() {
					if a.ShareWith != nil {
						a.ShareWith(t.ID, l.level, ag.Key)
					}
				},
			})
		}
	}
	return out
}

// TabLabel is how a tab is named in the menu: "Title (origin)", the title
// being the page's words, rendered and cut short so the origin stays in
// sight.
func TabLabel(t vocab.TabInfo) string {
	title := plain.Text(t.Title, tabTitleMax)
	if title == "" {
		title = "Untitled"
	}
	origin := plain.Text(displayOrigin(t.Origin), tabOriginMax)
	if origin == "" {
		return title
	}
	return fmt.Sprintf("%s (%s)", title, origin)
}

// A menu line is short: the title gives way first, the origin is cut only
// when it is absurdly long itself.
const (
	tabTitleMax  = 48
	tabOriginMax = 64
)

// BuildTray is the tray menu for a state.
func BuildTray(s TrayState, a TrayActions) []Item {
	call := func(f func()) func() {
		return func() {
			if f != nil {
				f()
			}
		}
	}
	n := connectedAgents(s.Agents)
	header := "Reins — no agents connected"
	switch {
	case n == 1:
		header = "Reins — 1 agent connected"
	case n > 1:
		header = fmt.Sprintf("Reins — %d agents connected", n)
	}
	if s.Paused {
		header = "Reins — all agents paused"
	}
	items := []Item{{Label: header, Disabled: true}}
	if line := ManagedLine(s.Policy); line != "" {
		items = append(items, Item{Label: line, Disabled: true})
	}
	if s.Connected {
		items = append(items, Item{Label: "Chrome extension: connected", Disabled: true})
	} else {
		items = append(items, Item{Label: "Chrome extension: not connected — Install…", Do: call(a.Install)})
	}
	items = append(items, Item{Separator: true})
	items = append(items, handoffItems(s.Handoffs, a)...)

	// The menu is two levels deep at most: each tab's name heads its three
	// choices inside Tabs. Hosts built on libdbusmenu (Xfce, Cinnamon,
	// GNOME's extension) lose the items of a submenu inside a submenu when
	// the menu changes, which a tray that follows the tabs does often.
	var tabs []Item
	for i, t := range s.Tabs {
		if i > 0 {
			tabs = append(tabs, Item{Separator: true})
		}
		tabs = append(tabs, Item{Label: TabLabel(t), Disabled: true})
		tabs = append(tabs, tabLevelItems(t, s.Agents, s.Policy.Effective().Site(t.Origin), a)...)
	}
	if len(tabs) == 0 {
		msg := "No tabs yet"
		if !s.Connected {
			msg = "No tabs: the extension is not connected"
		}
		tabs = []Item{{Label: msg, Disabled: true}}
	}
	items = append(items,
		Item{Label: "Tabs", Children: tabs},
		Item{Label: "Desktop", Children: append([]Item{{Label: DesktopLevels, Disabled: true}, {Separator: true}}, levelItems(vocab.DesktopKey, s.Desktop, s.Policy.Effective().Desktop(), a)...)},
		Item{Label: "Agents", Children: agentItems(s.Agents, a)},
		Item{Separator: true},
	)
	pending := "Pending approvals (0)"
	if s.Pending > 0 {
		pending = fmt.Sprintf("Pending approvals (%d)…", s.Pending)
	}
	items = append(items,
		Item{Label: pending, Disabled: s.Pending == 0, Do: call(a.ShowPending)},
		Item{Label: "Activity…", Do: call(a.ShowActivity)},
		Item{Label: AuditItemLabel(s.Unanchored), Do: call(a.ShowAudit)},
		Item{Separator: true},
	)
	pause := Item{Label: "Pause all agents", Do: func() {
		if a.SetPaused != nil {
			a.SetPaused(true)
		}
	}}
	if s.Paused {
		pause = Item{Label: "Resume agents", Checked: false, Do: func() {
			if a.SetPaused != nil {
				a.SetPaused(false)
			}
		}}
	}
	items = append(items, pause,
		Item{Label: "Preferences…", Do: call(a.ShowPrefs)},
		Item{Label: "Getting started…", Do: call(a.ShowFirstRun)},
	)
	if a.RunSelfTest != nil {
		items = append(items, Item{Label: "Run self-test…", Do: a.RunSelfTest})
	}
	items = append(items, Item{Label: "Quit Reins", Quit: true, Do: call(a.Quit)})
	return items
}

func agentItems(as []persondoor.AgentInfo, a TrayActions) []Item {
	if len(as) == 0 {
		return []Item{{Label: "No agent has connected yet", Disabled: true}}
	}
	var out []Item
	for i, ag := range as {
		if i > 0 {
			out = append(out, Item{Separator: true})
		}
		// The process first, whole; the declared name after it, cut first.
		label := plain.Who(ag.Exe, ag.PID, ag.Name)
		state := "not allowed yet"
		switch {
		case ag.Allowed:
			state = "allowed until Reins quits"
		case ag.Asking:
			state = "asking to connect"
		}
		if ag.Sessions == 0 {
			state += ", not connected"
		}
		// The agent's name heads its line and the one thing to do about it,
		// as a tab's name heads its choices.
		out = append(out, Item{Label: label, Checked: ag.Allowed, Disabled: true}, Item{Label: state, Disabled: true})
		if ag.Allowed {
			out = append(out, Item{Label: "Forget (ask again next time)", Do: func() {
				if a.ForgetAgent != nil {
					a.ForgetAgent(ag.Key)
				}
			}})
		} else {
			out = append(out, Item{Label: "Allow until Reins quits", Do: func() {
				if a.AllowAgent != nil {
					a.AllowAgent(ag.Key)
				}
			}})
		}
	}
	return out
}

// FyneMenu turns the menu's items into a fyne menu for the tray.
func FyneMenu(items []Item) *fyne.Menu {
	return fyne.NewMenu("Reins", fyneItems(items)...)
}

func fyneItems(items []Item) []*fyne.MenuItem {
	out := make([]*fyne.MenuItem, 0, len(items))
	for _, it := range items {
		if it.Separator {
			out = append(out, fyne.NewMenuItemSeparator())
			continue
		}
		mi := fyne.NewMenuItem(it.Label, it.Do)
		mi.Disabled, mi.Checked, mi.IsQuit = it.Disabled, it.Checked, it.Quit
		if len(it.Children) > 0 {
			mi.ChildMenu = fyne.NewMenu("", fyneItems(it.Children)...)
		}
		out = append(out, mi)
	}
	return out
}
