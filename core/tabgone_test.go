package core_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/vocab"
)

// closingBrowser is the fake browser with one more turn: after the nth
// answer to a method, it runs then before the engine sees the answer.
type closingBrowser struct {
	*coretest.Browser
	mu     sync.Mutex
	method string
	n      int
	then   func()
}

func (b *closingBrowser) afterCall(method string, n int, then func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.method, b.n, b.then = method, n, then
}

func (b *closingBrowser) Call(ctx context.Context, profile, method string, params, out any) error {
	err := b.Browser.Call(ctx, profile, method, params, out)
	b.mu.Lock()
	var then func()
	if method == b.method && b.then != nil {
		if b.n--; b.n == 0 {
			then, b.then = b.then, nil
		}
	}
	b.mu.Unlock()
	if then != nil {
		then()
	}
	return err
}

// tabGoneFixture is the shop shared at Control on a closingBrowser, and a
// way to close its tab right after the browser answered a call, waiting
// until the engine has dropped it.
func tabGoneFixture(t *testing.T) (*fixture, *closingBrowser) {
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	br := &closingBrowser{Browser: coretest.NewBrowser()}
	ex := &executor.Fake{}
	e := core.New(core.Options{Browser: br, Audit: log, Executor: ex, ApprovalTimeout: 2 * time.Second, PersonWait: 500 * time.Millisecond, Logf: t.Logf})
	coretest.Run(t, e, log)
	br.Connect()
	ce := &coretest.Engine{Engine: e, Browser: br.Browser, Exec: ex, Log: log}
	br.Open(7, shop())
	tab := ce.WaitTab(t, shopURL)
	f := &fixture{Engine: ce, t: t, tab: tab, agent: ce.Connect(vocab.Agent{Name: "Test agent", PID: 4121, Exe: "/usr/bin/claude"})}
	f.SetShare(tab, vocab.Control)
	return f, br
}

// closeTab closes the fixture's tab and waits until the engine no longer
// lists it.
func (f *fixture) closeTab() {
	f.Browser.Close(7)
	testenv.WaitFor(f.t, "the engine to drop the closed tab", func() bool {
		for _, tab := range f.Tabs() {
			if tab.ID == f.tab {
				return false
			}
		}
		return true
	})
}

// A tab that closes after an act looked it up, and before the act finds
// its element in the snapshot, answers no_tab: the engine does not fall
// over.
func TestATabClosedBeforeItsElementIsFoundAnswersNoTab(t *testing.T) {
	t.Run("between two steps of a plan", func(t *testing.T) {
		f, br := tabGoneFixture(t)
		p := f.plan()
		// The first step is found on the page; the tab closes before the
		// second is looked for.
		br.afterCall(protocol.MethodResolve, 1, f.closeTab)
		_, err := f.agent.RunPlan(context.Background(), p)
		if codeOf(err) != vocab.CodeNoTab || !strings.Contains(err.Error(), "step 2") {
			t.Fatalf("got %v, want no_tab at step 2", err)
		}
		if n := len(f.Exec.Fired()); n != 0 {
			t.Errorf("%d acts fired", n)
		}
	})
	t.Run("between a screenshot and its element", func(t *testing.T) {
		f, br := tabGoneFixture(t)
		ref, snap := f.snapRef("Place order")
		// The screenshot reads where secret fields are before and after
		// its capture; the tab closes after the second read.
		br.afterCall(protocol.MethodSnapshot, 2, f.closeTab)
		_, err := f.agent.ScreenshotOf(context.Background(), f.tab, ref, snap)
		if codeOf(err) != vocab.CodeNoTab || !strings.Contains(err.Error(), "list tabs first") {
			t.Fatalf("got %v, want no_tab", err)
		}
	})
}
