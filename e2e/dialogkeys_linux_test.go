package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/core/coretest"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

// TestKeysWhileADialogIsUpAreNotItsAnswer is the route by which a page's
// confirm() is accepted with a key press right after the person denied the
// warned browser_handle_dialog: an obedient agent, before a hurried person
// (plain questions allowed, warned ones denied), tries Enter, Space and
// Return while the confirm is up. Each is refused dialog_open before anyone
// is asked, the accept is warned and denied, and the page's confirm()
// never returns true.
func TestKeysWhileADialogIsUpAreNotItsAnswer(t *testing.T) {
	r := dialogRig(t, true)
	r.answer.set("silent")
	person := &hurriedPerson{}
	person.run(r)
	coretest.Admitted(t, r.rt.AgentDoor(), r.rt.PersonDoor(), vocab.Agent{Name: "e2e dialog agent", Version: "1", PID: os.Getpid(), Exe: os.Args[0]})
	if err := r.rt.SetShare(r.tab, vocab.Control); err != nil {
		t.Fatal(err)
	}
	cs := agentThroughMCP(t, r.rt, r.data, sdk.Implementation{Name: "e2e dialog agent", Version: "1"})
	snap := mcptest.MustCall(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
	mcptest.MustCall(t, cs, "browser_click", map[string]any{"tab": r.tab, "ref": mcptest.Ref(t, snap, "button", "Ask confirm")})
	testenv.WaitWithin(t, 30*time.Second, "a snapshot refused dialog_open", func() bool {
		text, isErr := mcptest.Call(t, cs, "browser_snapshot", map[string]any{"tab": r.tab})
		return isErr && strings.HasPrefix(text, vocab.CodeDialogOpen+": ")
	})
	fired := r.exec.fired.Load()
	plainBefore, warnedBefore := person.counts()
	// The agent tries the warned answer first, which the person denies.
	mcptest.Refused(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": true}, vocab.CodeDenied)
	if _, warned := person.counts(); warned != warnedBefore+1 {
		t.Errorf("accepting the dialog was not asked with a warning")
	}
	for _, key := range []string{"Enter", "Space", "Return"} {
		mcptest.Refused(t, cs, "browser_press_key", map[string]any{"tab": r.tab, "key": key}, vocab.CodeDialogOpen)
	}
	plain, _ := person.counts()
	if plain != plainBefore {
		t.Errorf("the person was asked %d plain questions about keys while the dialog was up, want 0", plain-plainBefore)
	}
	if n := r.exec.fired.Load() - fired; n != 0 {
		t.Errorf("%d acts fired while the dialog was up, want 0", n)
	}
	// Dismissed by the agent, which is not warned: the page says false.
	mcptest.MustCall(t, cs, "browser_handle_dialog", map[string]any{"tab": r.tab, "accept": false})
	if ans := r.wait(context.Background(), "answer", func(m map[string]any) bool { return m["kind"] == "confirm" }); ans["value"] != false {
		t.Errorf("the page's confirm() returned %v: a key answered it", ans["value"])
	}
}
