package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

func TestATabOfADisconnectedBrowserIsNeverTheDefault(t *testing.T) {
	f := newFixture(t, time.Second)
	f.SetShare(f.tab, vocab.ReadOnly)
	ctx := context.Background()
	if tab, err := f.agent.CurrentTab(ctx); err != nil || tab != f.tab {
		t.Fatalf("connected: %q %v", tab, err)
	}
	f.Browser.Disconnect()
	testenv.WaitFor(t, "the extension to be gone", func() bool { return !f.Connected() })
	if tab, err := f.agent.CurrentTab(ctx); codeOf(err) != vocab.CodeDisconnected {
		t.Fatalf("a tab of a browser that is not connected was the default: %q %v", tab, err)
	}
	tabs, err := f.agent.ListTabs(ctx)
	if err != nil || len(tabs) != 1 || tabs[0].Connected {
		t.Fatalf("the tab list while the browser is away: %+v %v", tabs, err)
	}
	f.Browser.Connect()
	testenv.WaitFor(t, "the extension to be back", f.Connected)
	if tab, err := f.agent.CurrentTab(ctx); err != nil || tab != f.tab {
		t.Fatalf("reconnected: %q %v", tab, err)
	}
}
