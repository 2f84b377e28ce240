package core

import (
	"context"
	"slices"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// A browser run is one browser's life, start to quit. The extension names it in its
// hello (protocol.Hello.BrowserSession) and keeps it in
// chrome.storage.session, so that it outlives restarts of the service
// worker and ends when the browser quits. A profile keeps its id across
// runs of the browser, and a new run numbers its tabs from the start again:
// without the run, a tab of the new run would take the place, and the
// share, of the old tab that had its number. Shares end with the browser.

// browserRestarted is the words for a share that ended because its browser
// quit.
const browserRestarted = "the browser restarted"

// browserConnected notes the browser run a profile connected under.
// When the profile last connected under another one, its browser quit
// since: every tab of the profile is dropped as a closed tab is, and every
// share of those tabs ends, written in the audit log and told to the
// person. The same run again is a restarted service worker, and keeps
// everything.
//
// The bridge refuses a hello that names no run; a Browser that names
// none at all (run "" every time) keeps its tabs across reconnections.
func (e *Engine) browserConnected(profile, run string) {
	type gone struct {
		id, title string
		share     approvals.Share
	}
	var dropped []gone
	e.mu.Lock()
	if e.browserRuns == nil {
		e.browserRuns = map[string]string{}
	}
	last, known := e.browserRuns[profile]
	e.browserRuns[profile] = run
	if !known || last == run {
		e.mu.Unlock()
		return
	}
	for id, t := range e.tabs {
		if t.chrome.profile != profile {
			continue
		}
		delete(e.tabs, id)
		delete(e.byChrome, t.chrome)
		dropped = append(dropped, gone{id: id, title: t.info.Title, share: e.shares.Get(id)})
		e.shares.Forget(id)
	}
	// The closed tabs' numbers are kept to give a tab back the id it was
	// known by; in the new run those numbers name other tabs, which get
	// ids and refs of their own.
	e.closed.forgetProfile(profile)
	e.mu.Unlock()
	slices.SortFunc(dropped, func(a, b gone) int { return atoiOr0(a.id) - atoiOr0(b.id) })
	ids := make([]string, len(dropped))
	for i, d := range dropped {
		ids[i] = d.id
	}
	e.handoffTabsClosed(ids)
	for _, d := range dropped {
		e.broker.ForgetTab(d.id)
		e.plans.end(d.id, browserRestarted)
		if d.share.Level == vocab.None {
			continue
		}
		// The row sits with the person's share changes: Reins ended the
		// share for them, and the detail says why.
		e.record(context.Background(), audit.Entry{
			Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share},
			Target:  vocab.Target{Tab: d.id, TabTitle: d.title, Origin: d.share.Origin},
			Outcome: vocab.OutcomeDone, Detail: "Reins ended the share: " + browserRestarted,
		})
		e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: d.id, Level: vocab.None, Detail: browserRestarted})
	}
	if len(dropped) > 0 {
		e.publish(persondoor.Event{Kind: persondoor.EventTabs})
	}
}

// forgetProfile drops the closed tabs of profile.
func (c *closedTabs) forgetProfile(profile string) {
	c.order = slices.DeleteFunc(c.order, func(k chromeTab) bool {
		if k.profile != profile {
			return false
		}
		delete(c.tabs, k)
		return true
	})
}
