package core_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// seen collects what the person's door is told while a test runs.
type seen struct {
	mu         sync.Mutex
	requests   []vocab.Request
	activities []persondoor.Activity
	done       chan struct{} // closed at the first activity with a final outcome
	once       sync.Once
}

func watch(t *testing.T, e *coretest.Engine, answer vocab.Decision) *seen {
	s := &seen{done: make(chan struct{})}
	events, stop := e.Subscribe(256)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			switch ev.Kind {
			case persondoor.EventApproval:
				s.mu.Lock()
				s.requests = append(s.requests, *ev.Request)
				s.mu.Unlock()
				e.Answer(ev.Request.ID, answer)
			case persondoor.EventActivity:
				s.mu.Lock()
				s.activities = append(s.activities, *ev.Activity)
				s.mu.Unlock()
				if ev.Activity.Outcome != "firing" && ev.Activity.Outcome != vocab.OutcomeRead {
					s.once.Do(func() { close(s.done) })
				}
			}
		}
	}()
	return s
}

func (s *seen) wait(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("no act ended")
	}
}

// checkActivity checks every text of the strip's lines.
func (s *seen) checkActivity(t *testing.T, process string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.activities) == 0 {
		t.Fatal("the strip heard of no activity")
	}
	for _, a := range s.activities {
		plaintest.Check(t, "the strip's agent", a.Agent, 0)
		plaintest.Check(t, "the strip's act", a.Act, 400)
		plaintest.Check(t, "the strip's detail", a.Detail, plain.DetailMax)
		plaintest.Check(t, "the strip's kind", a.Kind, plain.NameMax)
		if !strings.HasPrefix(a.Agent, process+" · “") {
			t.Errorf("the strip names the agent %q, not by its process %s first", a.Agent, process)
		}
	}
}

var hostileURL = "https://shop.example.com/\u202e" + plaintest.Long

// hostilePage's title carries every trick; its button's name every trick
// but control characters, which the extension drops before Reins sees them.
func hostilePage(name string) coretest.Page {
	return coretest.Page{URL: hostileURL, Title: plaintest.All,
		Frames: []protocol.FrameReport{coretest.Frame(coretest.Button(1, name, 100, 200))}}
}

func TestHostilePageAndAgentTextIsRenderedForThePerson(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	name := "Place order\u2028" + plaintest.Override + plaintest.Invisible + plaintest.Long
	e.Browser.Open(7, hostilePage(name))
	tab := e.WaitTab(t, hostileURL)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	s := watch(t, e, vocab.AllowOnce)
	agent := e.Connect(vocab.Agent{Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3"})
	snap, err := agent.Snapshot(context.Background(), tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	if _, err := agent.Act(context.Background(), agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}, Element: plaintest.All}); err != nil {
		t.Fatalf("the click was not done: %v", err)
	}
	s.wait(t)

	s.mu.Lock()
	if len(s.requests) != 1 {
		t.Fatalf("want one approval request, got %d", len(s.requests))
	}
	r := s.requests[0]
	s.mu.Unlock()
	plaintest.Check(t, "the request's sentence", r.Sentence(), plain.NameMax+10)
	if want := "Click “Place order Cancelredro ecalPPayPalWWWW"; !strings.HasPrefix(r.Sentence(), want) {
		t.Errorf("sentence = %q, want it to start %q", r.Sentence(), want)
	}
	if got := r.Agent.Label(); !strings.HasPrefix(got, "python3 (pid 999) · “Claude Code") {
		t.Errorf("the request's agent = %q", got)
	}
	plaintest.Check(t, "the request's agent", r.Agent.Label(), 0)
	s.checkActivity(t, "python3 (pid 999)")

	rows, err := e.AuditRows(context.Background(), persondoor.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	checkAuditRows(t, rows, "python3 (pid 999)")
}

// A control character that reaches Reins in an element's name is dropped
// from what Reins keeps. An extension that still reports it then shows a
// name other than the one kept, and the act is refused as changed: nothing
// fires on a name the person never saw. The refusal's words are rendered.
func TestAControlCharacterInANameIsNeverShownAndNeverFiredOn(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(7, hostilePage(plaintest.EraseLine+plaintest.Conceal+plaintest.Newlines))
	tab := e.WaitTab(t, hostileURL)
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	s := watch(t, e, vocab.AllowOnce)
	agent := e.Connect(vocab.Agent{Name: plaintest.AgentName, PID: 999, Exe: "/usr/bin/python3"})
	snap, err := agent.Snapshot(context.Background(), tab)
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	_, err = agent.Act(context.Background(), agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: vocab.Click}})
	var ce *vocab.Error
	if err == nil || !errors.As(err, &ce) || ce.Code != vocab.CodeChanged {
		t.Fatalf("want %s, got %v", vocab.CodeChanged, err)
	}
	if n := len(e.Exec.Fired()); n != 0 {
		t.Fatalf("%d acts fired", n)
	}
	s.wait(t)
	s.checkActivity(t, "python3 (pid 999)")
	rows, err := e.AuditRows(context.Background(), persondoor.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	checkAuditRows(t, rows, "python3 (pid 999)")
}

func TestADesktopActShowsTheAgentsWordsAsItsClaimBesideWhatReinsSees(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Exec.SetWindows([]executor.Window{
		{App: executor.App{Name: "Terminal", Exe: "/usr/bin/xterm", PID: 31}, Title: "elsewhere", X: 0, Y: 0, W: 100, H: 100},
		{App: executor.App{Name: "gedit", Exe: "/usr/bin/gedit", PID: 4242}, Title: plaintest.All, X: 0, Y: 0, W: 1000, H: 800, Active: true},
	})
	if err := e.SetShare(vocab.DesktopKey, vocab.Control); err != nil {
		t.Fatal(err)
	}
	s := watch(t, e, vocab.AllowOnce)
	agent := e.Connect(vocab.Agent{Name: "Claude Code", PID: 999, Exe: "/usr/bin/python3"})
	claim := "the OK button\nAPPROVAL a99\x1b[8m"
	if _, err := agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Click}, X: 412, Y: 300, Element: claim}); err != nil {
		t.Fatalf("the desktop click was not done: %v", err)
	}
	s.wait(t)
	s.mu.Lock()
	r := s.requests[0]
	s.mu.Unlock()
	if got, want := r.Sentence(), "Click the point 412, 300 in gedit (pid 4242)"; got != want {
		t.Errorf("sentence = %q, want %q", got, want)
	}
	if r.Target.App != "gedit (pid 4242)" || r.Target.Window != plaintest.All || r.Target.Claim != claim {
		t.Errorf("target = app %q, window %.40q, claim %q", r.Target.App, r.Target.Window, r.Target.Claim)
	}
	if strings.Contains(r.Sentence(), "OK button") {
		t.Errorf("the agent's words are in Reins' own sentence: %q", r.Sentence())
	}
	s.checkActivity(t, "python3 (pid 999)")

	// Typing goes to the application in front.
	e.Exec.SetFrontmost(executor.App{Name: "gedit", Exe: "/usr/bin/gedit", PID: 4242})
	if _, err := agent.DesktopAct(context.Background(), agentdoor.DesktopActRequest{Act: vocab.Act{Kind: vocab.Type, Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	r = s.requests[1]
	s.mu.Unlock()
	if got, want := r.Sentence(), "Type “hi” into gedit (pid 4242)"; got != want || r.Target.Window != plaintest.All {
		t.Errorf("typing: sentence %q (want %q), window %.30q", got, want, r.Target.Window)
	}
}

func checkAuditRows(t *testing.T, rows []persondoor.AuditRow, process string) {
	t.Helper()
	if len(rows) == 0 {
		t.Fatal("no audit rows")
	}
	for _, row := range rows {
		line := persondoor.FormatAuditRow(row)
		plaintest.Check(t, "reins audit", line, 600)
		if row.AgentName != "person" && !strings.Contains(line, " "+process+" · “") {
			t.Errorf("reins audit does not show the process %s first: %s", process, line)
		}
		j, err := persondoor.AuditJSON(row)
		if err != nil {
			t.Fatal(err)
		}
		plaintest.Check(t, "reins audit -json", strings.TrimSuffix(string(j), "\n"), 0)
	}
}
