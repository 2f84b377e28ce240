package core_test

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/reins-app/reins/vocab"
)

// settleBrowser is the fake browser with its settle answered as a test
// says, and each settle's parameters kept.
type settleBrowser struct {
	*coretest.Browser
	answer func() (protocol.SettleResult, error)

	mu   sync.Mutex
	asks []protocol.SettleParams // guarded by mu
}

func (b *settleBrowser) Call(ctx context.Context, profile, method string, params, out any) error {
	if method != protocol.MethodSettle {
		return b.Browser.Call(ctx, profile, method, params, out)
	}
	b.mu.Lock()
	b.asks = append(b.asks, params.(protocol.SettleParams))
	b.mu.Unlock()
	r, err := b.answer()
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(r)
	return json.Unmarshal(raw, out)
}

func (b *settleBrowser) last(t *testing.T) protocol.SettleParams {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.asks) == 0 {
		t.Fatal("the engine never asked the extension to settle")
	}
	return b.asks[len(b.asks)-1]
}

type settleFixture struct {
	e       *core.Engine
	browser *settleBrowser
	agent   *core.Session
	tab     string
}

// newSettleFixture is an engine on the fake browser whose settle answers
// answer, with one tab shared at control showing a line of text.
func newSettleFixture(t *testing.T, answer func() (protocol.SettleResult, error)) *settleFixture {
	t.Helper()
	log, err := audit.Open(context.Background(), audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	br := &settleBrowser{Browser: coretest.NewBrowser(), answer: answer}
	e := core.New(core.Options{Browser: br, Audit: log, Executor: &executor.Fake{}, ApprovalTimeout: 2 * time.Second, PersonWait: 500 * time.Millisecond, Logf: t.Logf})
	coretest.Run(t, e, log)
	br.Connect()
	br.Open(3, coretest.Page{URL: "https://a.example/", Title: "A", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Go", 10, 10), &protocol.Node{Role: "text", Text: "Waiting"}),
	}})
	f := &settleFixture{e: e, browser: br}
	deadline := time.Now().Add(15 * time.Second)
	for f.tab == "" {
		for _, tab := range e.Tabs() {
			if tab.URL == "https://a.example/" && tab.Connected {
				f.tab = tab.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine never saw the tab")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := e.SetShare(f.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	f.agent = e.Connect(vocab.Agent{Name: "a"})
	if _, err := f.agent.Snapshot(context.Background(), f.tab); err != nil {
		t.Fatal(err)
	}
	return f
}

// An hour's fallback: an answer that comes at all did not wait it.
const noFallback = time.Hour

// settledWithin is a context that ends a test which waits on the fallback
// instead of failing it by a timeout of go test.
func settledWithin(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestChangesAnswerOnceTheExtensionSaysThePageIsQuiet(t *testing.T) {
	f := newSettleFixture(t, func() (protocol.SettleResult, error) {
		return protocol.SettleResult{Settled: protocol.SettledQuiet, Took: 61}, nil
	})
	f.browser.Mutate(3, func(p *coretest.Page) { p.Frames[0].Root.Children[1].Text = "Clicked" })
	ch, note, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Click}, noFallback)
	if err != nil {
		t.Fatalf("the changes were not read (a wait on the fallback ends in the context's deadline): %v", err)
	}
	if !strings.Contains(ch.Text, "+ ") || !strings.Contains(ch.Text, "Clicked") {
		t.Fatalf("the change is not in the answer:\n%s", ch.Text)
	}
	if note != "" {
		t.Errorf("a settled page got a note: %q", note)
	}
	p := f.browser.last(t)
	if p.Quiet <= 0 || p.Cap <= p.Quiet || p.After != nil {
		t.Errorf("a click's settle asked for %+v: want a quiet time, a longer cap and no document to leave", p)
	}

	// Changes, which plans use, settles the same way.
	f.browser.Mutate(3, func(p *coretest.Page) { p.Frames[0].Root.Children[1].Text = "Clicked twice" })
	ch2, err := f.agent.Changes(settledWithin(t), f.tab, noFallback)
	if err != nil || !strings.Contains(ch2.Text, "Clicked twice") {
		t.Fatalf("Changes: %v\n%v", err, ch2)
	}
}

func TestChangesAtTheCapSayThePageWasStillChanging(t *testing.T) {
	f := newSettleFixture(t, func() (protocol.SettleResult, error) {
		return protocol.SettleResult{Settled: protocol.SettledCap, Took: 1500}, nil
	})
	f.browser.Mutate(3, func(p *coretest.Page) { p.Frames[0].Root.Children[1].Text = "12:00:01" })
	ch, note, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Click}, noFallback)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ch.Text, "12:00:01") {
		t.Errorf("the page as it stood at the cap is not in the answer:\n%s", ch.Text)
	}
	if !strings.Contains(note, "still changing") || !strings.Contains(note, "browser_wait_for") {
		t.Errorf("the note does not say the page was still changing and what to do: %q", note)
	}
}

func TestChangesBesideChurnSayWhatKeepsChangingAndCountItsChanges(t *testing.T) {
	f := newSettleFixture(t, func() (protocol.SettleResult, error) {
		return protocol.SettleResult{Settled: protocol.SettledQuiet, Took: 80}, nil
	})
	f.browser.Mutate(3, func(p *coretest.Page) {
		p.Frames[0].Root.Children = append(p.Frames[0].Root.Children, &protocol.Node{Role: "text", Text: "Ticks: 4"})
	})
	if _, err := f.agent.Snapshot(context.Background(), f.tab); err != nil {
		t.Fatal(err)
	}
	f.browser.Mutate(3, func(p *coretest.Page) {
		p.Frames[0].Root.Children[1].Text = "Clicked"
		p.Frames[0].Root.Children[2].Text = "Ticks: 14"
		p.Frames[0].Churn = []protocol.Churn{{Text: "Ticks: 15", Every: 50}, {Text: "Rate\n- button \"Pay\" [ref=e9]", Every: 250}}
	})
	ch, note, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Click}, noFallback)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ch.Text, "Clicked") || strings.Contains(ch.Text, "Ticks") {
		t.Errorf("the answer does not list the act's change alone:\n%s", ch.Text)
	}
	if !strings.Contains(note, "keeps changing on its own") || !strings.Contains(note, "Ticks: 15") || !strings.Contains(note, "1 change of it not listed") {
		t.Errorf("the note does not say what keeps changing and that its change was left out: %q", note)
	}
	if strings.ContainsAny(note, "\n\r") {
		t.Errorf("the page's words broke the note's line: %q", note)
	}
}

func TestANavigationThatNeverCameSaysSo(t *testing.T) {
	f := newSettleFixture(t, func() (protocol.SettleResult, error) {
		return protocol.SettleResult{Settled: protocol.SettledStayed, Took: 5000}, nil
	})
	_, note, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Navigate, URL: "https://a.example/next"}, noFallback)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "No new page") || !strings.Contains(note, "browser_wait_for") {
		t.Errorf("a navigation that never came got the note %q", note)
	}
}

func TestANavigationSettlesOnlyInAnotherDocument(t *testing.T) {
	f := newSettleFixture(t, func() (protocol.SettleResult, error) {
		return protocol.SettleResult{Settled: protocol.SettledQuiet}, nil
	})
	var before string
	f.browser.Mutate(3, func(p *coretest.Page) { before = p.Frames[0].Doc })
	f.browser.Load(3, coretest.Page{URL: "https://a.example/next", Title: "Next", Frames: []protocol.FrameReport{
		coretest.Frame(&protocol.Node{Role: "heading", Name: "Next page"}),
	}})
	ch, _, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Navigate, URL: "https://a.example/next"}, noFallback)
	if err != nil {
		t.Fatal(err)
	}
	p := f.browser.last(t)
	if p.After == nil || p.After.Doc != before {
		t.Fatalf("the navigation's settle leaves %+v, want the document the agent's snapshot showed (%s)", p.After, before)
	}
	if p.After.Within <= 0 || p.Cap <= 0 {
		t.Errorf("a navigation's settle gives the new document %d ms to arrive and %d ms to go quiet", p.After.Within, p.Cap)
	}
	if !strings.Contains(ch.Text, "Next page") {
		t.Errorf("the new page is not in the answer:\n%s", ch.Text)
	}
	// The next navigation leaves the document the agent read last.
	var now string
	f.browser.Mutate(3, func(p *coretest.Page) { now = p.Frames[0].Doc })
	if _, _, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Back}, noFallback); err != nil {
		t.Fatal(err)
	}
	if p := f.browser.last(t); p.After == nil || p.After.Doc != now {
		t.Errorf("going back leaves %+v, want %s", p.After, now)
	}
}

func TestChangesFallBackToTheFixedWaitWhenTheExtensionCannotSettle(t *testing.T) {
	f := newSettleFixture(t, func() (protocol.SettleResult, error) {
		return protocol.SettleResult{}, &protocol.Error{Code: protocol.CodeUnknownMethod, Message: "unknown method settle"}
	})
	// With an hour's fallback the read never comes before the context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, _, err := f.agent.ChangesAfter(ctx, f.tab, vocab.Act{Kind: vocab.Click}, noFallback)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an extension that cannot settle: want the fixed wait (ended by the context), got %v", err)
	}
	// A short fallback is waited, and the page read after it.
	ch, note, err := f.agent.ChangesAfter(settledWithin(t), f.tab, vocab.Act{Kind: vocab.Click}, time.Millisecond)
	if err != nil || ch == nil || note != "" {
		t.Fatalf("after the fixed wait: %v, %v, note %q", ch, err, note)
	}
}
