package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

type planStepIn struct {
	Action  string `json:"action" jsonschema:"click, double_click, right_click, hover, type, select_option, press_key or scroll"`
	Ref     string `json:"ref,omitempty" jsonschema:"the ref; all but press_key"`
	Text    string `json:"text,omitempty" jsonschema:"type: the text; select_option: the option's text"`
	Submit  bool   `json:"submit,omitempty" jsonschema:"type: Enter after"`
	Clear   bool   `json:"clear,omitempty" jsonschema:"type: empty the field first"`
	Key     string `json:"key,omitempty" jsonschema:"press_key: a key or chord"`
	DX      int    `json:"dx,omitempty" jsonschema:"scroll: notches right"`
	DY      int    `json:"dy,omitempty" jsonschema:"scroll: notches down"`
	Element string `json:"element,omitempty" jsonschema:"the element in your own words"`
	Reason  string `json:"reason,omitempty" jsonschema:"why, in a few words, shown to the person"`
}

type planIn struct {
	tabIn
	Snapshot string       `json:"snapshot,omitempty" jsonschema:"snapshot id of the refs; default: your latest"`
	Summary  string       `json:"summary,omitempty" jsonschema:"the plan in a line, shown as your words"`
	Steps    []planStepIn `json:"steps" jsonschema:"the steps in order"`
}

// stepMessageMax bounds what a plan's answer says of each step, so that
// the answer of a plan of MaxPlanSteps keeps to the budget.
const stepMessageMax = 400

// browserRunPlan puts several steps on one tab to the person at once and
// runs those they allow.
func (h *handler) browserRunPlan(ctx context.Context, req *sdk.CallToolRequest, in planIn) *sdk.CallToolResult {
	s := h.session(req.Session, req.Extra)
	tab, err := h.tab(ctx, s, in.tabIn)
	if err != nil {
		return refusal(err)
	}
	p := agentdoor.PlanRequest{Tab: tab, Snapshot: in.Snapshot, Summary: in.Summary}
	for i, st := range in.Steps {
		act, err := planAct(st)
		if err != nil {
			return refusal(badRequest("step %d: %v", i+1, err))
		}
		p.Steps = append(p.Steps, agentdoor.PlanStepRequest{Ref: st.Ref, Act: act, Element: st.Element, Reason: st.Reason})
	}
	r, err := s.RunPlan(ctx, p)
	if err != nil {
		return refusal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan %s: the person allowed steps 1 to %d of %d (rows are the audit log's).\n", r.Plan, r.Allowed, len(p.Steps))
	for _, st := range r.Steps {
		// A step done whose events the page saw arrive on its element
		// says "arrived"; the witness's words would name the element again.
		done := "done"
		if st.Effect != "" {
			done = "arrived"
		}
		switch {
		case st.Code == vocab.CodeMissed:
			fmt.Fprintf(&b, "%d. fired but missed: %s (row %d); %s\n", st.Step, st.Done, st.Audit, st.Effect)
		case st.Code == "" && st.Asked:
			fmt.Fprintf(&b, "%d. %s, asked on its own: %s (row %d)\n", st.Step, done, st.Done, st.Audit)
		case st.Code == "":
			fmt.Fprintf(&b, "%d. %s: %s (row %d)\n", st.Step, done, st.Done, st.Audit)
		default:
			fmt.Fprintf(&b, "%d. not done (%s): %s\n", st.Step, st.Code, shorten(st.Error, stepMessageMax))
		}
	}
	if r.Ended != "" {
		fmt.Fprintf(&b, "The plan ended: %s.\n", shorten(r.Ended, stepMessageMax))
	}
	// The page settles after the last step that fired.
	last := vocab.Act{}
	for _, st := range r.Steps {
		if st.Audit != 0 && st.Step <= len(p.Steps) {
			last = p.Steps[st.Step-1].Act
		}
	}
	ch, note, err := s.ChangesAfter(ctx, tab, last, h.opts.Settle)
	writeChanges(&b, ch, err)
	if note != "" {
		fmt.Fprintf(&b, "[%s]\n", note)
	}
	return textResult(b.String())
}

// planAct is the act a step of a plan names.
func planAct(st planStepIn) (vocab.Act, error) {
	switch st.Action {
	case "click":
		return vocab.Act{Kind: vocab.Click}, nil
	case "double_click":
		return vocab.Act{Kind: vocab.DoubleClick}, nil
	case "right_click":
		return vocab.Act{Kind: vocab.RightClick}, nil
	case "hover":
		return vocab.Act{Kind: vocab.Hover}, nil
	case "type":
		return vocab.Act{Kind: vocab.Type, Text: st.Text, Submit: st.Submit, Clear: st.Clear}, nil
	case "select_option":
		return vocab.Act{Kind: vocab.Type, Text: st.Text, Submit: true}, nil
	case "press_key":
		if st.Key == "" {
			return vocab.Act{}, fmt.Errorf("press_key needs a key")
		}
		return vocab.Act{Kind: vocab.Key, Keys: st.Key}, nil
	case "scroll":
		if st.DX == 0 && st.DY == 0 {
			st.DY = 3
		}
		return vocab.Act{Kind: vocab.Scroll, DX: st.DX, DY: st.DY}, nil
	}
	return vocab.Act{}, fmt.Errorf("action %q is not one a plan can hold; use click, double_click, right_click, hover, type, select_option, press_key or scroll", st.Action)
}
