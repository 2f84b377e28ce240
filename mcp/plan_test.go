package mcp

import (
	"strings"
	"testing"

	"github.com/reins-app/reins/mcp/mcptest"
	"github.com/reins-app/reins/vocab"
)

func TestARunPlanIsOneQuestionAndSaysHowEachStepWent(t *testing.T) {
	r := newRig(t)
	r.e.SetShare(r.tab, vocab.Control)
	cs := r.client("Claude Code", claude)
	snap := mcptest.MustCall(t, cs, "browser_snapshot", nil)
	search, order := mcptest.Ref(t, snap, "textbox", "Search"), mcptest.Ref(t, snap, "button", "Place order")
	out := mcptest.MustCall(t, cs, "browser_run_plan", map[string]any{"summary": "order socks", "steps": []map[string]any{
		{"action": "type", "ref": search, "text": "socks", "reason": "find them"},
		{"action": "click", "ref": order},
	}})
	for _, want := range []string{"the person allowed steps 1 to 2 of 2", "1. arrived: Type “socks” into “Search”", "2. arrived, asked on its own: Click “Place order”", "Order placed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the result does not say %q:\n%s", want, out)
		}
	}
	// The plan, then Place order on its own: two questions for two steps,
	// one of which buys.
	if r.askedAbout(string(vocab.Plan)) != 1 || r.askedAbout(string(vocab.Click)) != 1 || r.askedAbout(string(vocab.Type)) != 0 {
		t.Errorf("asked about %v", r.asked)
	}
	mcptest.Refused(t, cs, "browser_run_plan", map[string]any{"steps": []map[string]any{{"action": "navigate", "ref": search}}}, vocab.CodeBadRequest)
	mcptest.Refused(t, cs, "browser_run_plan", map[string]any{"steps": []map[string]any{}}, vocab.CodeBadRequest)

	r.setAnswer(vocab.Deny)
	out = mcptest.Refused(t, cs, "browser_run_plan", map[string]any{"steps": []map[string]any{{"action": "click", "ref": order}}}, vocab.CodeDenied)
	if !strings.Contains(out, "denied") {
		t.Errorf("a denied plan reads %q", out)
	}
}
