package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/executor/xdesk"
	"github.com/reins-app/reins/internal/testrig/testenv"
	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// handKeysPage reports every keydown its field gets, in order, with its
// key: the test tells Reins' letters from the person's digit.
const handKeysPage = `<!doctype html>
<html><head><title>Hand keys page</title></head>
<body>
<textarea id="notes" aria-label="Notes" rows="8" cols="80"></textarea>
<script>
function report(m) { fetch('/witness', {method: 'POST', body: JSON.stringify(m)}); }
let n = 0;
document.getElementById('notes').addEventListener('keydown', (e) => {
  report({type: 'key', n: ++n, key: e.key, trusted: e.isTrusted});
});
addEventListener('load', () => report({type: 'loaded', page: 'handkeys'}));
</script>
</body></html>`

// pageKeyOrder is the keys the page saw, in the order it saw them.
func pageKeyOrder(r *rig) []string {
	evs := r.witness.Events("key")
	keys := make([]string, len(evs))
	for _, e := range evs {
		n, _ := e["n"].(float64)
		k, _ := e["key"].(string)
		if int(n) >= 1 && int(n) <= len(keys) {
			keys[int(n)-1] = k
		}
	}
	return keys
}

// TestThePersonsHandTakesTheReins has an agent type, through the real
// reins mcp, a long text the person allowed into a real page; part-way the
// person presses a key of their own (the X server's own keyboard, as a
// person's is). Typing stops there: at most one of Reins' keys, the one
// already on its way, follows theirs on the page; the answer is
// stopped_by_person; no key is left down; the strip says the person took
// the keyboard. And Reins' own events never trip the watch: 2,000 keys
// with no one reaching in are all typed.
func TestThePersonsHandTakesTheReins(t *testing.T) {
	r := reinsOn(t, "1280x800x24", 10*time.Second)
	cs := r.controlledWith("handkeys", map[string]string{"/handkeys.html": handKeysPage})
	ctx := context.Background()
	field := func() string {
		snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
		return mcptest.Ref(t, snap, "textbox", "Notes")
	}

	t.Run("the person presses a key mid-typing", func(t *testing.T) {
		text := strings.Repeat("abcdefghij", 30)
		typing := mcptest.Go(ctx, cs, "browser_type", map[string]any{"ref": field(), "text": text})
		testenv.WaitFor(t, "20 of Reins' keys on the page", func() bool { return len(r.witness.Events("key")) >= 20 })
		person, err := xdesk.NewPerson(r.display)
		if err != nil {
			t.Fatal(err)
		}
		defer person.Close()
		if err := person.Key("7"); err != nil {
			t.Fatal(err)
		}
		res := <-typing
		if !res.IsErr || !strings.HasPrefix(res.Text, vocab.CodeStoppedByPerson+": ") || !strings.Contains(res.Text, "pressed a key") {
			t.Fatalf("the typing answered %q, want %s saying the person pressed a key", res.Text, vocab.CodeStoppedByPerson)
		}
		keys := pageKeyOrder(r)
		testenv.WaitFor(t, "the person's key on the page", func() bool {
			keys = pageKeyOrder(r)
			for _, k := range keys {
				if k == "7" {
					return true
				}
			}
			return false
		})
		after, theirs := 0, false
		for _, k := range keys {
			switch {
			case k == "7":
				theirs = true
			case theirs:
				after++
			}
		}
		if after > 1 {
			t.Errorf("%d of Reins' keys reached the page after the person's, want at most the one on its way", after)
		}
		if len(keys) >= len(text) {
			t.Errorf("the page saw all %d keys: typing did not stop", len(keys))
		}
		if down := keysDown(t, r.display); len(down) > 0 {
			t.Errorf("keys %v are left down", down)
		}
		rows := r.auditRows(persondoor.AuditFilter{Tab: r.tab, Act: string(vocab.Type), Limit: 1})
		if len(rows) != 1 || rows[0].Code != vocab.CodeStoppedByPerson {
			t.Fatalf("the typing's outcome row %+v, want %s", rows, vocab.CodeStoppedByPerson)
		}
		if words, _ := persondoor.OutcomeWords(persondoor.Activity{Outcome: rows[0].Outcome, Code: rows[0].Code, Detail: rows[0].Detail}); words != "stopped — you took the keyboard" {
			t.Errorf("the strip says %q", words)
		}
		t.Logf("the page saw %d keys, %d of Reins' after the person's; answer: %s", len(keys), after, res.Text)
	})

	t.Run("2,000 of Reins' own keys never trip the watch", func(t *testing.T) {
		r.witness.Reset("key")
		text := strings.Repeat("klmnopqrst", 200)
		began := time.Now()
		out := mcptest.MustCall(t, cs, "browser_type", map[string]any{"ref": field(), "text": text, "clear": true})
		testenv.WaitFor(t, "all 2,000 keys on the page", func() bool { return len(r.witness.Events("key")) >= len(text) })
		t.Logf("2,000 keys typed in %v: %.80s", time.Since(began).Round(time.Millisecond), out)
	})
	r.assertFiredChecked()
}
