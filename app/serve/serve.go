// Package serve is the person's door on a terminal: it lists tabs as the
// extension reports them, lets the person share a tab, answers each approval
// from typed commands, and prints the activity as it happens. It is what
// `reins serve` runs on machines without a desktop.
//
// A terminal obeys what it is sent. Everything a page or an agent wrote is
// printed through the renderer people read (internal/plain): one line per
// field, no escape sequence, no carriage return, no bidi control, so that
// no name can erase a line, hide the process asking, or forge an APPROVAL
// block of its own.
package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// Core is what the terminal needs of Reins; *core.Runtime has it.
type Core interface {
	Subscribe(buf int) (<-chan persondoor.Event, func())
	Tabs() []vocab.TabInfo
	SetShare(tab string, level vocab.Level) error
	ShareWith(tab string, level vocab.Level, agent string) error
	Pending() []vocab.Request
	Answer(id string, d vocab.Decision) error
	Pause(on bool)
	AuditRows(ctx context.Context, f persondoor.AuditFilter) ([]persondoor.AuditRow, error)
	Agents() []persondoor.AgentInfo
	AllowAgent(key string) error
	ForgetAgent(key string) error
}

// HandoffCore is what the terminal needs of Reins for hand-offs: the tabs
// agents handed to the person, and their Done and Stop. A Core without it
// shows no hand-offs; the person's door of *core.Runtime has it.
type HandoffCore interface {
	Handoffs() []persondoor.Handoff
	FinishHandoff(id string, done bool, confirm string) error
}

// Terminal reads the person's commands from In and writes to Out.
type Terminal struct {
	Engine  Core      // required
	In      io.Reader // required
	Out     io.Writer // required
	Port    int       // optional: the bridge's port, for the banner
	DataDir string    // optional: for the banner

	mu sync.Mutex // serialises writes to Out
}

func (t *Terminal) printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, format, args...)
}

// Run prints events and obeys commands until ctx ends. The end of input
// leaves Reins running: approvals then time out, which denies them.
func (t *Terminal) Run(ctx context.Context) error {
	events, stop := t.Engine.Subscribe(256)
	defer stop()
	if t.Port != 0 {
		t.printf("Reins is running. The extension pairs on 127.0.0.1:%d; data in %s.\n", t.Port, t.DataDir)
	}
	if line := t.policyBanner(); line != "" {
		t.printf("%s\n", line)
	}
	t.printf("Type \"help\" for commands.\n")
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(t.In)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			t.event(ev)
		case line, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			if quit := t.command(strings.Fields(line)); quit {
				return nil
			}
		}
	}
}

func (t *Terminal) event(ev persondoor.Event) {
	switch ev.Kind {
	case persondoor.EventConnection:
		if ev.Connected {
			t.printf("Chrome extension connected.\n")
		} else {
			t.printf("Chrome extension disconnected.\n")
		}
	case persondoor.EventTabs:
		// Listed on request; a busy browser would flood the terminal.
	case persondoor.EventShare:
		msg := fmt.Sprintf("Tab %s is now shared: %s", plain.Text(ev.Tab, plain.NameMax), ev.Level)
		if d := plain.Text(ev.Detail, plain.DetailMax); d != "" {
			msg += " (" + d + ")"
		}
		t.printf("%s.\n", msg)
	case persondoor.EventActivity:
		a := ev.Activity
		line := fmt.Sprintf("%s  tab %s  %s  %s  — %s", a.Time.Format("15:04:05"), orDash(plain.Text(ev.Tab, plain.NameMax)),
			plain.Text(a.Agent, 0), plain.Text(a.Act, 0), plain.Text(a.Outcome, plain.NameMax))
		if d := plain.Text(a.Detail, plain.DetailMax); d != "" && a.Outcome != vocab.OutcomeDone && a.Outcome != vocab.OutcomeRead {
			line += ": " + d
		}
		t.printf("%s\n", line)
	case persondoor.EventApproval:
		r := ev.Request
		if r.Act.Kind == vocab.Connect {
			t.printf("\nAPPROVAL %s  %s asks to connect to Reins for the first time.\n  Answer with: allow %s | deny %s   (no answer = deny)\n",
				r.ID, r.Agent.Label(), r.ID, r.ID)
			return
		}
		if r.Act.Kind == vocab.Plan {
			t.printf("%s", planBlock(r))
			return
		}
		t.printf("\nAPPROVAL %s  %s asks:\n    %s\n%s    %s\n%s%s  Answer with: %s   (no answer = deny)\n%s",
			r.ID, r.Agent.Label(), r.Sentence(), wholeNote(r.Act, "    "), whereLine(r.Target), claimNote(r.Target), heldNote(r), answers(r), riskNote(r))
	case persondoor.EventApprovalEnd:
		d := ev.Decision
		if d == vocab.AllowTab && !ev.Request.Rememberable {
			d = vocab.AllowOnce // what the broker makes of it
		}
		t.printf("Approval %s: %s.\n", ev.Request.ID, d)
	case persondoor.EventHandoff, persondoor.EventHandoffEnd:
		t.handoffEvent(ev)
	case persondoor.EventPolicy:
		t.printf("The organisation's policy changed: %s.\n", plain.Text(t.policy().Words(), 0))
	case persondoor.EventPause:
		if ev.Paused {
			t.printf("All agents paused.\n")
		} else {
			t.printf("Agents resumed.\n")
		}
	}
}

// whereLine is "role · origin · “title”" for a tab's target, or "window
// “title” · desktop" for a desktop act: the page's and the application's
// words rendered, the role quoted unless it is a plain token.
func whereLine(t vocab.Target) string {
	if t.Desktop {
		w := "desktop"
		if t.Window != "" {
			w = "window " + plain.Quote(t.Window, plain.TitleMax) + " · desktop"
		}
		return w
	}
	role := plain.Role(t.Role)
	if role == "" {
		role = "—"
	}
	where := orDash(plain.Text(t.Origin, plain.URLMax))
	if t.FrameOrigin != "" {
		where += " (in a frame from " + plain.Text(t.FrameOrigin, plain.URLMax) + ")"
	}
	return role + " · " + where + " · " + plain.Quote(t.TabTitle, plain.TitleMax)
}

// claimNote is the line with the agent's own words for the target, marked
// as the agent's; "" when it gave none.
// wholeNote is, for an act that types text its sentence cannot show whole
// (longer than the sentence's quote, or with line breaks, each an Enter),
// the whole text a line at a time under the sentence, each line break
// shown as ⏎ and every line rendered; "" for any other act, and for a
// secret field, whose text no one is shown.
func wholeNote(a vocab.Act, indent string) string {
	typing := a.Kind == vocab.Type || a.Kind == vocab.Dialog && a.Text != ""
	if !typing || a.Secret || a.Text == "" {
		return ""
	}
	n := utf8.RuneCountInString(a.Text)
	if vocab.LineBreaks(a.Text) == 0 && n <= plain.TypedMax {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sThe whole text, %d characters; ⏎ is Enter (a line of it that goes on is marked +):\n", indent, n)
	for _, l := range plain.TypedLines(a.Text) {
		mark := "|"
		for {
			// Cut into terminal lines no wider than other rendered text,
			// so that no line of it pushes the rest out of sight.
			head, rest := cutRunes(l, wholeWidth)
			fmt.Fprintf(&b, "%s  %s %s\n", indent, mark, head)
			if rest == "" {
				break
			}
			l, mark = rest, "+"
		}
	}
	return b.String()
}

// wholeWidth is how many characters of typed text one terminal line shows.
const wholeWidth = 100

// cutRunes splits s after n characters.
func cutRunes(s string, n int) (head, rest string) {
	i := 0
	for j := range s {
		if i == n {
			return s[:j], s[j:]
		}
		i++
	}
	return s, ""
}

func claimNote(t vocab.Target) string {
	if c := plain.Claim(t.Claim); c != "" {
		return "    " + c + " (Reins has not checked this)\n"
	}
	return ""
}

// answers is how request r may be answered: "allow-tab" only where the
// broker offers "allow on this tab".
func answers(r *vocab.Request) string {
	if r.Rememberable {
		return fmt.Sprintf("allow %s | allow-tab %s | deny %s", r.ID, r.ID, r.ID)
	}
	return fmt.Sprintf("allow %s | deny %s", r.ID, r.ID)
}

// riskNote is the line with the warning of an act always asked on its own,
// or "". It closes the block, next to where the person types the answer,
// which is where a terminal's reader looks. The words are Reins' own, from
// the broker's table, and rendered all the same, as all text on the
// terminal is.
func riskNote(r *vocab.Request) string {
	if w := plain.Text(r.Risk, plain.DetailMax); w != "" {
		return "  ⚠ " + w + "\n"
	}
	return ""
}

// rememberable reports whether the pending request id, if it waits, may be
// allowed on its tab; an id that waits for nothing is left to the engine
// to refuse.
func rememberable(pending []vocab.Request, id string) bool {
	for _, r := range pending {
		if r.ID == id {
			return r.Rememberable
		}
	}
	return true
}

// heldNote is the line that marks a request asked again because its act was
// held back, so it does not read as the agent asking twice; "" for a first
// request.
func heldNote(r *vocab.Request) string {
	if r.Busy == 0 {
		return ""
	}
	return "    Asked again: " + heldWhy + ".\n"
}

const heldWhy = "you were using the mouse or keyboard when it was about to happen, so nothing was done"

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

const help = `Commands:
  tabs                          list open tabs and how each is shared
  share TAB none|read|control   share a tab (bound to the site it shows now)
  share TAB read|control for N  share a tab with agent N of "agents" alone: other
                                agents cannot see or use it
  desktop none|read|control     share the desktop tools
  allow ID                      allow a pending act once
  allow ID to N                 allow steps 1 to N of a pending plan
  allow-tab ID                  allow acts of that kind on that tab for a while
                                (not for acts asked every time, marked ⚠)
  deny ID                       deny a pending act
  pending                       list pending approvals
  agents                        list agents that connected, and whether they are allowed
  allow-agent N | forget-agent N
                                allow agent N of that list for the life of Reins, or forget it
  handoffs                      list the tabs agents handed to you for a step of your own
  done ID | stop ID             end a hand-off: Done lets agents act on the tab again,
                                Stop ends it without that
  done ID SITE                  Done for a tab now on another site than it was shared on:
                                it is shared on SITE from then on
  policy                        show the organisation's policy in force, and what it receives
  pause | resume                stop or restart all agents' acts
  audit [N]                     show the last N audit rows (default 10)
  quit                          stop Reins
`

func (t *Terminal) command(f []string) (quit bool) {
	if len(f) == 0 {
		return false
	}
	e := t.Engine
	switch f[0] {
	case "help", "?":
		t.printf("%s", help)
	case "tabs":
		tabs := e.Tabs()
		if len(tabs) == 0 {
			t.printf("No tabs yet (is the Chrome extension connected?).\n")
		}
		agents := e.Agents()
		for _, tab := range tabs {
			mark := " "
			if tab.Active {
				mark = "*"
			}
			share := tab.Share
			if tab.Agent != "" {
				// The agent by its number in "agents", not its name.
				share += " for ?"
				for i, a := range agents {
					if a.Key == tab.Agent {
						share = fmt.Sprintf("%s for %d", tab.Share, i+1)
					}
				}
			}
			t.printf("%s %-3s %-8s %s  (%s)%s\n", mark, tab.ID, share, plain.Text(tab.Title, plain.TitleMax), plain.Text(tab.Origin, plain.URLMax), t.managedMark(tab.Origin))
		}
	case "share", "desktop":
		args := f[1:]
		if f[0] == "desktop" {
			args = append([]string{vocab.DesktopKey}, args...)
		}
		forAgent := len(args) == 4 && args[2] == "for" && f[0] == "share"
		if len(args) != 2 && !forAgent {
			t.printf("usage: share TAB none|read|control [for N]\n")
			return false
		}
		level, err := vocab.ParseLevel(args[1])
		switch {
		case err != nil:
		case forAgent:
			var a persondoor.AgentInfo
			if a, err = agentNumbered(e.Agents(), args[3]); err == nil {
				if err = e.ShareWith(args[0], level, a.Key); err == nil {
					// The list may have changed since it was read: say
					// whom the number named.
					t.printf("Tab %s is for %s alone.\n", plain.Text(args[0], plain.NameMax), plain.Who(a.Exe, a.PID, a.Name))
				}
			}
		default:
			err = e.SetShare(args[0], level)
		}
		if err != nil {
			t.printf("%s\n", plain.Text(err.Error(), plain.DetailMax))
		}
	case "allow", "allow-tab", "deny":
		d := vocab.Deny
		switch f[0] {
		case "allow":
			d = vocab.AllowOnce
		case "allow-tab":
			d = vocab.AllowTab
		}
		// An answer names its request: text that reached this terminal
		// from anywhere else cannot know which request is waiting.
		if len(f) < 2 {
			if len(e.Pending()) == 0 {
				t.printf("Nothing is waiting for an answer.\n")
			} else {
				t.printf("Name the request: %s ID, with the ID its APPROVAL block shows; \"pending\" lists them.\n", f[0])
			}
			return false
		}
		id := f[1]
		if plan := pendingPlan(e.Pending(), id); plan != nil && d != vocab.Deny {
			if d == vocab.AllowTab {
				t.printf("A plan is not allowed on its tab for a while: answer allow %s, allow %s to N or deny %s.\n", plain.Text(id, plain.NameMax), plain.Text(id, plain.NameMax), plain.Text(id, plain.NameMax))
				return false
			}
			if len(f) > 2 {
				t.answerPlan(plan, f[2:])
				return false
			}
		}
		if d == vocab.AllowTab && !rememberable(e.Pending(), id) {
			id := plain.Text(id, plain.NameMax)
			t.printf("%s cannot be allowed on its tab for a while, only once: answer allow %s or deny %s.\n", id, id, id)
			return false
		}
		if err := e.Answer(id, d); err != nil {
			t.printf("%s: %s\n", plain.Text(id, plain.NameMax), plain.Text(err.Error(), plain.DetailMax))
		}
	case "pending":
		p := e.Pending()
		if len(p) == 0 {
			t.printf("Nothing is waiting for an answer.\n")
		}
		for _, r := range p {
			again := ""
			if r.Busy > 0 {
				again = "; asked again: " + heldWhy
			}
			t.printf("%s  %s: %s (asked %s ago%s)\n%s", r.ID, r.Agent.Label(), r.Sentence(), time.Since(r.Asked).Round(time.Second), again, riskNote(&r))
		}
	case "agents":
		agents := e.Agents()
		if len(agents) == 0 {
			t.printf("No agent has connected yet.\n")
		}
		// Agents go by number: a key holds the name an agent gave itself,
		// which cannot be printed as it is nor always typed back.
		for i, a := range agents {
			state := "not allowed"
			if a.Allowed {
				state = "allowed"
			} else if a.Asking {
				state = "waiting for you"
			}
			t.printf("%2d  %-15s %d open  %s\n", i+1, state, a.Sessions, plain.Who(a.Exe, a.PID, a.Name))
		}
	case "allow-agent", "forget-agent":
		if len(f) < 2 {
			t.printf("usage: %s N (the agent's number in: agents)\n", f[0])
			return false
		}
		key := strings.Join(f[1:], " ")
		if a, err := agentNumbered(e.Agents(), key); err == nil {
			key = a.Key
		} else if _, ok := err.(noAgent); ok {
			t.printf("%s\n", err)
			return false
		}
		var err error
		if f[0] == "allow-agent" {
			err = e.AllowAgent(key)
		} else {
			err = e.ForgetAgent(key)
		}
		if err != nil {
			t.printf("%s\n", plain.Text(err.Error(), plain.DetailMax))
		}
	case "handoffs", "done", "stop":
		t.handoffCommand(f)
	case "policy":
		t.printPolicy()
	case "pause":
		e.Pause(true)
	case "resume":
		e.Pause(false)
	case "audit":
		n := 10
		if len(f) > 1 {
			fmt.Sscan(f[1], &n)
		}
		rows, err := e.AuditRows(context.Background(), persondoor.AuditFilter{Limit: n})
		if err != nil {
			t.printf("%s\n", plain.Text(err.Error(), plain.DetailMax))
			return false
		}
		for i := len(rows) - 1; i >= 0; i-- {
			t.printf("%s\n", persondoor.FormatAuditRow(rows[i]))
		}
	case "quit", "exit":
		return true
	default:
		t.printf("Unknown command %q. Type \"help\".\n", f[0])
	}
	return false
}

// handoffEvent prints a hand-off as it starts and as it ends.
func (t *Terminal) handoffEvent(ev persondoor.Event) {
	id := plain.Text(ev.Detail, plain.NameMax)
	if ev.Kind == persondoor.EventHandoffEnd {
		t.printf("Hand-off %s is over.\n", id)
		return
	}
	r := ev.Request
	if r == nil {
		return
	}
	t.printf("\nHAND-OFF %s  %s hands you tab %s for a step of your own:\n    %s\n    %s · %s\n  Agents cannot act on the tab until you type: done %s | stop %s\n",
		id, r.Agent.Label(), plain.Text(r.Target.Tab, plain.NameMax), orDash(plain.Claim(r.Act.Text)),
		orDash(plain.Text(r.Target.Origin, plain.URLMax)), plain.Quote(r.Target.TabTitle, plain.TitleMax), id, id)
}

// handoffCommand obeys handoffs, done and stop.
func (t *Terminal) handoffCommand(f []string) {
	hc, ok := t.Engine.(HandoffCore)
	if !ok {
		t.printf("This Reins has no hand-offs.\n")
		return
	}
	if f[0] == "handoffs" {
		list := hc.Handoffs()
		if len(list) == 0 {
			t.printf("No tab is handed to you.\n")
		}
		for _, h := range list {
			where := plain.Text(h.Origin, plain.URLMax)
			if h.Moved() {
				where = "shared on " + orDash(where) + ", now on " + orDash(plain.Text(h.Now, plain.URLMax))
			}
			t.printf("%s  tab %s  %s: %s  (%s · %s, since %s)\n", plain.Text(h.ID, plain.NameMax), plain.Text(h.Tab, plain.NameMax),
				h.Agent.Label(), orDash(plain.Claim(h.Reason)), where, plain.Quote(h.Title, plain.TitleMax), h.Since.Format("15:04:05"))
		}
		return
	}
	// Like an answer, a Done or Stop names its hand-off.
	if len(f) < 2 || len(f) > 3 || (f[0] == "stop" && len(f) > 2) {
		t.printf("usage: done ID | stop ID | done ID SITE, with the ID its HAND-OFF block shows; \"handoffs\" lists them.\n")
		return
	}
	id, confirm := f[1], ""
	if len(f) == 3 {
		confirm = f[2]
	}
	err := hc.FinishHandoff(id, f[0] == "done", confirm)
	var co *persondoor.ConfirmOriginError
	switch {
	case errors.As(err, &co):
		now := plain.Text(co.Now, plain.URLMax)
		if confirm != "" {
			t.printf("The tab shows %s, not %s; nothing changed.\n", orDash(now), plain.Text(confirm, plain.URLMax))
		}
		t.printf("The tab was shared on %s and now shows %s. To share it on %s from now on, type: done %s %s — or stop %s.\n",
			orDash(plain.Text(co.Shared, plain.URLMax)), orDash(now), orDash(now), plain.Text(id, plain.NameMax), now, plain.Text(id, plain.NameMax))
	case err != nil:
		t.printf("%s: %s\n", plain.Text(id, plain.NameMax), plain.Text(err.Error(), plain.DetailMax))
	}
}

// noAgent is a number that names no agent of the list.
type noAgent int

func (n noAgent) Error() string {
	return fmt.Sprintf("There is no agent %d; type \"agents\" for the list.", int(n))
}

// agentNumbered is agent n of the agents list ("1" the first). Agents go
// by number: a key holds the name an agent gave itself, which cannot be
// printed as it is nor always typed back.
func agentNumbered(agents []persondoor.AgentInfo, n string) (persondoor.AgentInfo, error) {
	var i int
	if _, err := fmt.Sscanf(n, "%d", &i); err != nil || fmt.Sprint(i) != n {
		return persondoor.AgentInfo{}, fmt.Errorf("%q is not an agent's number; type \"agents\" for the list", plain.Text(n, plain.NameMax))
	}
	if i < 1 || i > len(agents) {
		return persondoor.AgentInfo{}, noAgent(i)
	}
	return agents[i-1], nil
}
