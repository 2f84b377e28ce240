package serve

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/internal/plain/plaintest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// A click on a button whose label says it commits something is asked with
// the warning and without allow-tab, every time; "allow-tab" typed anyway
// answers nothing and says why. A click on an ordinary button offers
// allow-tab and shows no warning.
func TestTheTerminalWarnsOfAnActAlwaysAskedOnItsOwn(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(3, coretest.Page{URL: "https://shop.example.com/", Title: "Cart — Shop", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Button(1, "Place order", 10, 10), coretest.Button(2, "Continue", 10, 60)),
	}})
	tab := e.WaitTab(t, "https://shop.example.com/")
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: e, In: in, Out: out}).Run(ctx)
	out.waitFor(t, `Type "help"`)

	agent := coretest.Admitted(t, e.AgentDoor(), e.PersonDoor(), vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"})
	snap, err := agent.Snapshot(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	refOf := func(name string) string {
		return regexp.MustCompile(`"` + name + `"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	}
	click := func(name string) chan error {
		acted := make(chan error, 1)
		go func() {
			_, err := agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: refOf(name), Act: vocab.Act{Kind: vocab.Click}})
			acted <- err
		}()
		return acted
	}
	block := `\nAPPROVAL (a\d+)  [^\n]* asks:\n    Click “Place order”\n[^\n]*\n  Answer with: allow (a\d+) \| deny (a\d+)   \(no answer = deny\)\n` +
		`  ⚠ Its label says it buys, pays, sends or deletes, so it is asked every time\. The page or application wrote that label and Reins can miss such buttons: look before you allow\.\n`

	acted := click("Place order")
	m := out.waitFor(t, block)
	if m[1] != m[2] || m[1] != m[3] {
		t.Fatalf("the block names requests %v", m[1:])
	}
	io.WriteString(typed, "pending\n")
	out.waitFor(t, m[1]+`  claude \(pid 4121\) · “Claude Code”: Click “Place order” \(asked \d+s ago\)\n  ⚠ Its label says`)
	io.WriteString(typed, "allow-tab "+m[1]+"\n")
	out.waitFor(t, m[1]+` cannot be allowed on its tab for a while, only once: answer allow `+m[1]+` or deny `+m[1]+`\.`)
	io.WriteString(typed, "allow "+m[1]+"\n")
	if err := <-acted; err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "Approval "+m[1]+": allowed once")

	// Asked again: nothing was remembered.
	acted = click("Place order")
	again := out.waitFor(t, `(?s)APPROVAL `+m[1]+`.*`+block)
	if again[1] == m[1] {
		t.Fatal("the second click was not asked")
	}
	io.WriteString(typed, "allow "+again[1]+"\n")
	if err := <-acted; err != nil {
		t.Fatal(err)
	}

	acted = click("Continue")
	plainBlock := out.waitFor(t, `\nAPPROVAL (a\d+)  [^\n]* asks:\n    Click “Continue”\n[^\n]*\n  Answer with: allow (a\d+) \| allow-tab (a\d+) \| deny (a\d+)   \(no answer = deny\)\n([^\n]*)`)
	io.WriteString(typed, "deny "+plainBlock[1]+"\n")
	<-acted
	out.waitFor(t, "Approval "+plainBlock[1]+": denied")
	if tail := out.String()[strings.Index(out.String(), "Click “Continue”"):]; strings.Contains(tail, "⚠") {
		t.Fatalf("an ordinary click shows a warning:\n%s", tail)
	}
}

// riskCore is the terminal's engine in the test below: it puts one
// request, whatever it holds, before the terminal.
type riskCore struct {
	events chan persondoor.Event
	req    vocab.Request
}

func (c *riskCore) Subscribe(int) (<-chan persondoor.Event, func()) { return c.events, func() {} }
func (c *riskCore) Tabs() []vocab.TabInfo                           { return nil }
func (c *riskCore) SetShare(string, vocab.Level) error              { return nil }
func (c *riskCore) ShareWith(string, vocab.Level, string) error     { return nil }
func (c *riskCore) Pending() []vocab.Request                        { return []vocab.Request{c.req} }
func (c *riskCore) Answer(string, vocab.Decision) error             { return nil }
func (c *riskCore) Pause(bool)                                      {}
func (c *riskCore) AuditRows(context.Context, persondoor.AuditFilter) ([]persondoor.AuditRow, error) {
	return nil, nil
}
func (c *riskCore) Agents() []persondoor.AgentInfo { return nil }
func (c *riskCore) AllowAgent(string) error        { return nil }
func (c *riskCore) ForgetAgent(string) error       { return nil }

var _ Core = (*riskCore)(nil)

// The warning is printed through the renderer as everything else is: were
// it ever to hold page text, no escape, line break or bidi control of it
// would reach the terminal, and no length.
func TestAWarningOnTheTerminalIsRenderedLikeAllText(t *testing.T) {
	req := vocab.Request{ID: "a7", Agent: vocab.Agent{Name: "Claude Code", PID: 4121, Exe: "claude"}, Act: vocab.Act{Kind: vocab.Click},
		Target: vocab.Target{Tab: "3", Origin: "https://shop.example.com", Role: "button", Name: "Place order"}, Asked: time.Now(),
		Risk: plaintest.All}
	c := &riskCore{events: make(chan persondoor.Event, 1), req: req}
	c.events <- persondoor.Event{Kind: persondoor.EventApproval, Request: &req}
	in, typed := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Terminal{Engine: c, In: in, Out: out}).Run(ctx)
	out.waitFor(t, `  Answer with: allow a7 \| deny a7 `)
	io.WriteString(typed, "pending\n")
	out.waitFor(t, `a7  claude \(pid 4121\) · “Claude Code”: Click “Place order” \(asked`)
	want := "  ⚠ " + plain.Text(plaintest.All, plain.DetailMax)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), want+"\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	text := out.String()
	if n := strings.Count(text, want+"\n"); n != 2 {
		t.Fatalf("the warning shows %d times as %q, want in the block and under pending:\n%s", n, want, text)
	}
	for i, line := range strings.Split(text, "\n") {
		plaintest.Check(t, fmt.Sprintf("terminal line %d", i+1), line, 0)
		if strings.HasPrefix(line, "APPROVAL ") && !strings.HasPrefix(line, "APPROVAL a7 ") {
			t.Errorf("a forged approval block: %q", line)
		}
	}
	if strings.Contains(text, strings.Repeat("W", plain.DetailMax+1)) {
		t.Error("the warning reached the terminal uncut")
	}

	// An "allow on this tab" that reached the engine from elsewhere is
	// told as what the broker makes of it.
	c.events <- persondoor.Event{Kind: persondoor.EventApprovalEnd, Request: &req, Decision: vocab.AllowTab}
	out.waitFor(t, `Approval a7: allowed once\.`)
}
