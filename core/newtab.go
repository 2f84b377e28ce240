package core

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// newTabWait is how long a new tab may take to be reported and to show its
// site.
const newTabWait = 10 * time.Second

// OpenTab opens url in a new tab beside tab, which the agent must control,
// once the person allows it. When url is on tab's site the person is asked
// whether the new tab is shared at Control like tab, and their yes shares
// it; on another site the new tab is not shared, and the person is told so.
func (s *Session) OpenTab(ctx context.Context, tab, url string) (*agentdoor.OpenTabResult, error) {
	origin := approvals.Origin(url)
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.NewTab, URL: url}, Target: vocab.Target{Tab: tab}}
	res, err := s.openTab(ctx, tab, url, origin, &en)
	if err != nil {
		return nil, s.refuse(ctx, en, err)
	}
	return res, nil
}

func (s *Session) openTab(ctx context.Context, tab, url, origin string, en *audit.Entry) (*agentdoor.OpenTabResult, error) {
	e := s.e
	if err := s.admitted(ctx); err != nil {
		return nil, err
	}
	if e.Paused() {
		return nil, errorf(vocab.CodePaused, "the person has paused all agents; wait and try again later")
	}
	if origin == "" {
		return nil, errorf(vocab.CodeBadRequest, "only http and https addresses can be opened")
	}
	release, err := e.reserveOpenTab(s.key())
	if err != nil {
		return nil, err
	}
	defer release()
	t, info, err := e.lookup(tab)
	if err != nil {
		return nil, err
	}
	here := approvals.Origin(info.URL)
	en.Target.TabTitle, en.Target.Origin, en.Target.Name = info.Title, here, info.Title
	if err := e.checkShare(s.key(), tab, here, vocab.Control); err != nil {
		en.Target.TabTitle, en.Target.Name = "", ""
		return nil, err
	}
	en.Act.Shares = origin == here
	// On another site the address is what the person must read, to its
	// end: whatever it carries goes there. The question shows at most
	// plain.URLMax characters of it.
	if n := utf8.RuneCountInString(plain.Text(url, 0)); !en.Act.Shares && n > plain.URLMax {
		return nil, errorf(vocab.CodeBadRequest, "the address is %d characters long; a new tab on another site than tab %s is opened only with an address of at most %d characters, which the person can read whole before allowing it", n, tab, plain.URLMax)
	}
	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: en.Act, Target: en.Target}
	var opened protocol.NewTabResult
	var like approvals.Share // tab's share as the act fired: the new tab's, on its site
	res, err := s.decideAndFire(ctx, firing{
		tab: tab, req: req, en: en,
		ready: func(context.Context) (audit.Landing, error) {
			_, info, err := e.lookup(tab)
			if err != nil {
				return audit.Landing{}, err
			}
			like = e.shares.Get(tab)
			return audit.Landing{Scale: 1}, e.checkShare(s.key(), tab, approvals.Origin(info.URL), vocab.Control)
		},
		perform: func(ctx context.Context, _ audit.Ticket) error {
			return e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodNewTab, protocol.NewTabParams{Tab: t.chrome.id, URL: url}, &opened)
		},
	})
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.openedBy == nil {
		e.openedBy = map[string][]openedTab{}
	}
	e.openedBy[s.key()] = append(e.openedBy[s.key()], openedTab{tab: chromeTab{t.chrome.profile, opened.Tab}, at: time.Now()})
	e.mu.Unlock()
	out := &agentdoor.OpenTabResult{Done: res.Done, Audit: res.Audit}
	// The new tab as Reins knows it, once the extension reports it.
	var id string
	pollUntil(ctx, newTabWait, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		id = e.byChrome[chromeTab{t.chrome.profile, opened.Tab}]
		return id != ""
	})
	out.Tab = id
	switch {
	case id == "":
		out.Note = "the new tab was opened, but Reins has not heard of it yet; list the tabs in a moment"
	case !en.Act.Shares:
		out.Note = "the new tab is on another site than tab " + tab + ", so it is not shared with you: ask the person to share it"
	default:
		// The person's yes was the share, given once the tab shows the site
		// it was asked for.
		onSite := pollUntil(ctx, newTabWait, func() bool {
			_, info, err := e.lookup(id)
			return err == nil && approvals.Origin(info.URL) == origin
		})
		if !onSite {
			out.Note = fmt.Sprintf("the new tab did not show %s in time, so it was not shared: ask the person to share it", origin)
			break
		}
		// Like tab as it was shared when the act fired, while it is still
		// shared so, at Control with this agent.
		if now := e.shares.Get(tab); now.Agent != like.Agent || now.To(s.key()).Level < vocab.Control {
			out.Note = "tab " + tab + " is no longer yours at Control, so the new tab was not shared: ask the person to share it"
			break
		}
		if err := e.ShareWith(id, vocab.Control, like.Agent); err != nil {
			out.Note = "the new tab could not be shared: " + err.Error()
			break
		}
		out.Shared = true
	}
	return out, nil
}

// openedTab is a tab an agent opened.
type openedTab struct {
	tab  chromeTab
	at   time.Time // when it was opened
	seen bool      // the extension has reported it
}

// unseenKept is how long a tab an agent opened counts before the extension
// has reported it: it may be on its way.
const unseenKept = 30 * time.Second

// reserveOpenTab holds one of the agent of key's open tabs for a tab on
// its way, until release; it refuses when the agent's tabs open and on
// their way (in any of its sessions) are as many as it may have.
func (e *Engine) reserveOpenTab(key string) (release func(), err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, coming := e.openTabsOf(key), e.opening[key]
	if n+coming >= agentdoor.MaxOpenedTabs {
		if coming > 0 {
			return nil, errorf(vocab.CodeBadRequest, "%d tabs you opened are open and %d more on their way, the most an agent may have; close some first", n, coming)
		}
		return nil, errorf(vocab.CodeBadRequest, "%d tabs you opened are open, the most an agent may have; close some first", n)
	}
	if e.opening == nil {
		e.opening = map[string]int{}
	}
	e.opening[key]++
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.opening[key]--; e.opening[key] == 0 {
			delete(e.opening, key)
		}
	}, nil
}

// openTabsOf counts the tabs the agent of key opened that are open still:
// those open, and those not reported yet but opened lately. It forgets
// those closed. e.mu must be held.
func (e *Engine) openTabsOf(key string) int {
	open := e.openedBy[key][:0]
	for _, o := range e.openedBy[key] {
		_, ok := e.byChrome[o.tab]
		o.seen = o.seen || ok
		if ok || (!o.seen && time.Since(o.at) < unseenKept) {
			open = append(open, o)
		}
	}
	if e.openedBy != nil {
		e.openedBy[key] = open
	}
	return len(open)
}
