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

// maxTabsAsked bounds the tabs open to the agent whose windows' places the
// desktop view asks of the browser, to find those on screen.
const maxTabsAsked = 8

// tabsOnScreen says, for the desktop view, what the browser windows on
// screen behind the window in front show, when the tab a window shows is
// open to the agent: read from its page, with its tab refs, as the browser
// in front is (browserInFront). A window counts as on screen unless a
// single window in front of it covers it whole. A tab shows in a window
// when the browser says that tab's window lies exactly there, and no other
// window on screen lies there too: titles play no part, so that a page
// setting its title to a guess learns nothing of the windows it was not
// given. The tab in front, already in the view, is not read again; tabs not
// open to the agent are neither read nor named, nor asked where they are.
// budget bounds the whole text; NoBudget (or any negative) does not. read
// is when the first of them was read; zero when none was.
func (s *Session) tabsOnScreen(ctx context.Context, ws []executor.Window, front executor.App, budget int) (text string, read time.Time) {
	e := s.e
	var shown []executor.Window // browser windows on screen, behind the one in front
	for i, w := range ws {
		if !isBrowser(w.App) || covered(ws[:i], w) {
			continue
		}
		shown = append(shown, w)
	}
	if len(shown) == 0 {
		return "", time.Time{}
	}
	type open struct {
		id string
		t  *tabState
	}
	var candidates []open
	e.mu.Lock()
	for id, t := range e.tabs {
		if !e.connected[t.chrome.profile] || !t.info.Active || (isBrowser(front) && t.info.Focused) {
			continue
		}
		if e.shares.Get(id).To(s.key()).Level < vocab.ReadOnly {
			continue
		}
		candidates = append(candidates, open{id, t})
	}
	e.mu.Unlock()
	sort.Slice(candidates, func(i, j int) bool { return atoiOr0(candidates[i].id) < atoiOr0(candidates[j].id) })
	if len(candidates) > maxTabsAsked {
		candidates = candidates[:maxTabsAsked]
	}
	// Each window on screen that exactly one of these tabs' windows fits,
	// and that one tab.
	fitted := make([][]string, len(shown))
	for _, c := range candidates {
		w, _, err := e.shownSince(ctx, c.t, time.Now())
		if err != nil {
			continue
		}
		b := executor.Bounds{X: w.ScreenX, Y: w.ScreenY, W: w.OuterWidth, H: w.OuterHeight}
		var at []int
		for i, sw := range shown {
			if b.Fits(sw.X, sw.Y, sw.W, sw.H) {
				at = append(at, i)
			}
		}
		if len(at) == 1 {
			fitted[at[0]] = append(fitted[at[0]], c.id)
		}
	}
	var tabs []string
	for _, ids := range fitted {
		if len(ids) == 1 {
			tabs = append(tabs, ids[0])
		}
	}
	sort.Slice(tabs, func(i, j int) bool { return atoiOr0(tabs[i]) < atoiOr0(tabs[j]) })
	if len(tabs) > maxTabsOnScreen {
		tabs = tabs[:maxTabsOnScreen]
	}
	var b strings.Builder
	for i, id := range tabs {
		left := budget - b.Len()
		if budget > 0 && left < agentdoor.AnswerRoom {
			fmt.Fprintf(&b, "(%d more tabs open to you show on screen; read them with browser_snapshot)\n", len(tabs)-i)
			break
		}
		_, info, err := e.lookup(id)
		if err != nil || e.checkShare(s.key(), id, approvals.Origin(info.URL), vocab.ReadOnly) != nil {
			continue
		}
		per := left / (len(tabs) - i)
		if budget <= 0 {
			per = agentdoor.NoBudget
		}
		r, err := s.Read(ctx, agentdoor.ReadOptions{Tab: id, Mode: "interactive", MaxChars: per})
		if err != nil {
			fmt.Fprintf(&b, "Web browser window behind, tab %s (open to you): it could not be read: %s\n", id, plain.Text(err.Error(), plain.DetailMax))
			continue
		}
		if read.IsZero() {
			read = e.opts.Now()
		}
		fmt.Fprintf(&b, "Web browser window behind, tab %s (open to you), from the page: snapshot %s, its refs for browser_click and the other browser tools\n%s", id, r.ID, r.Text)
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
