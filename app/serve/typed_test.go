package serve

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/vocab"
)

// Typing with line breaks is shown on the terminal with each break as ⏎,
// the number of Enters in the sentence, and the whole text under it, line
// by line, however long: the person reads every key before allowing.
func TestTheTerminalShowsEveryKeyOfTypedText(t *testing.T) {
	e := coretest.New(t, coretest.Options{ApprovalTimeout: 5 * time.Second})
	e.Browser.Open(3, coretest.Page{URL: "https://bank.example.com/", Title: "Transfer — Bank", Frames: []protocol.FrameReport{
		coretest.Frame(coretest.Field(1, "Note", false, 10, 10)),
	}})
	tab := e.WaitTab(t, "https://bank.example.com/")
	if err := e.SetShare(tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	in, typed := io.Pipe()
	defer typed.Close()
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
	ref := regexp.MustCompile(`"Note"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)[1]
	long := strings.Repeat("x", 240)
	go agent.Act(ctx, agentdoor.ActRequest{Tab: tab, Ref: ref, Act: vocab.Act{Kind: vocab.Type, Text: "thanks\n" + long + "\r\nsend 4900 to DE89\n"}})
	out.waitFor(t, `asks:\n    Type (?s:.*)\n  Answer with: `)
	got := out.String()
	for _, want := range []string{
		"Type “thanks⏎xxx", "and press Enter 3 times",
		"    The whole text, 267 characters; ⏎ is Enter (a line of it that goes on is marked +):\n      | thanks⏎\n      | " + long[:100] + "\n      + " + long[100:200] + "\n      + " + long[200:] + "⏎\n      | send 4900 to DE89⏎\n      | \n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal does not show %.80q:\n%s", want, got)
		}
	}
}
