package core

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// maxTabsOnScreen bounds the tabs the desktop view reads besides the window
// in front: each is a read of its page.
const maxTabsOnScreen = 3

// tabsOnScreen says, for the desktop view, what the browser windows on
// screen behind the window in front show, when the tab a window shows is
// open to the agent: read from its page, with its tab refs, as the browser
// in front is (browserInFront). A window counts as on screen unless a
// single window in front of it covers it whole; its tab is the one visible
// in a browser window whose title is that tab's title. The tab in front,
// already in the view, is not read again; tabs not open to the agent are
// neither read nor named. budget bounds the whole text; NoBudget (or any
// negative) does not. read is when the
// first of them was read; zero when none was.
func (s *Session) tabsOnScreen(ctx context.Context, ws []executor.Window, front executor.App, budget int) (text string, read time.Time) {
	e := s.e
	var titles []string // of browser windows on screen, behind the one in front
	for i, w := range ws {
		if !isBrowser(w.App) || w.Title == "" || covered(ws[:i], w) {
			continue
		}
		titles = append(titles, w.Title)
	}
	if len(titles) == 0 {
		return "", time.Time{}
	}
	type shown struct{ id, title string }
	var tabs []shown
	e.mu.Lock()
	for id, t := range e.tabs {
		if !e.connected[t.chrome.profile] || !t.info.Active || t.info.Title == "" || (isBrowser(front) && t.info.Focused) {
			continue
		}
		if e.grants.Get(id).To(s.key()).Level < vocab.ReadOnly {
			continue
		}
		for _, wt := range titles {
			if strings.HasPrefix(wt, t.info.Title+" - ") {
				tabs = append(tabs, shown{id, t.info.Title})
				break
			}
		}
	}
	e.mu.Unlock()
	sort.Slice(tabs, func(i, j int) bool { return atoiOr0(tabs[i].id) < atoiOr0(tabs[j].id) })
	if len(tabs) > maxTabsOnScreen {
		tabs = tabs[:maxTabsOnScreen]
	}
	var b strings.Builder
	for i, t := range tabs {
		left := budget - b.Len()
		if budget > 0 && left < agentdoor.AnswerRoom {
			fmt.Fprintf(&b, "(%d more tabs open to you show on screen; read them with browser_snapshot)\n", len(tabs)-i)
			break
		}
		_, info, err := e.lookup(t.id)
		if err != nil || e.checkGrant(s.key(), t.id, approvals.Origin(info.URL), vocab.ReadOnly) != nil {
			continue
		}
		per := left / (len(tabs) - i)
		if budget <= 0 {
			per = agentdoor.NoBudget
		}
		r, err := s.Read(ctx, agentdoor.ReadOptions{Tab: t.id, Mode: "interactive", MaxChars: per})
		if err != nil {
			fmt.Fprintf(&b, "Web browser window behind, tab %s (open to you): it could not be read: %s\n", t.id, plain.Text(err.Error(), plain.DetailMax))
			continue
		}
		if read.IsZero() {
			read = e.opts.Now()
		}
		fmt.Fprintf(&b, "Web browser window behind, tab %s (open to you), from the page: snapshot %s, its refs for browser_click and the other browser tools\n%s", t.id, r.ID, r.Text)
		if !strings.HasSuffix(r.Text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), read
}

// covered reports whether one of the windows above covers w whole.
func covered(above []executor.Window, w executor.Window) bool {
	for _, a := range above {
		if a.X <= w.X && a.Y <= w.Y && a.X+a.W >= w.X+w.W && a.Y+a.H >= w.Y+w.H {
			return true
		}
	}
	return false
}
