package serve

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// PlanCore is what the terminal needs of Reins to allow a plan up to a
// step. A Core without it can allow a plan only whole; the person's door
// of *core.Runtime has it.
type PlanCore interface {
	AnswerPlan(id string, upTo int) error
}

// planBlock is a plan as the terminal shows it: who asks, the tab, the
// agent's summary as the agent's, every step in the sentences of a single
// prompt (secret text as its length) with those always asked on their own
// marked, and how to answer.
func planBlock(r *vocab.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nPLAN %s  %s asks to run a plan of %d steps:\n    %s\n", r.ID, r.Agent.Label(), len(r.Plan), whereLine(r.Target))
	if claim := plain.Claim(r.Act.Text); claim != "" {
		fmt.Fprintf(&b, "    %s\n", claim)
	}
	for i, st := range r.Plan {
		// Uncut: the sentence's parts are capped already, and its end says
		// how many times Enter is pressed.
		fmt.Fprintf(&b, "    %2d  %s\n", i+1, plain.Text(st.Sentence(), 0))
		b.WriteString(wholeNote(st.Act, "        "))
		if w := plain.Text(st.Risk, plain.DetailMax); w != "" {
			fmt.Fprintf(&b, "        ⚠ asked on its own: %s\n", w)
		}
		if claim := plain.Claim(st.Reason); claim != "" {
			fmt.Fprintf(&b, "        %s\n", claim)
		}
	}
	b.WriteString("  Each step runs only if it still matches this list at its turn; anything else is asked on its own.\n")
	fmt.Fprintf(&b, "  Answer with: allow %s | allow %s to N (steps 1 to N) | deny %s   (no answer = deny)\n", r.ID, r.ID, r.ID)
	return b.String()
}

// pendingPlan is the pending plan with id, or nil.
func pendingPlan(pending []vocab.Request, id string) *vocab.Request {
	for i := range pending {
		if pending[i].ID == id && pending[i].Act.Kind == vocab.Plan {
			return &pending[i]
		}
	}
	return nil
}

// answerPlan answers `allow ID to N` for a pending plan.
func (t *Terminal) answerPlan(r *vocab.Request, args []string) {
	id := plain.Text(r.ID, plain.NameMax)
	if len(args) != 2 || args[0] != "to" {
		t.printf("Answer a plan with allow %s, allow %s to N, or deny %s.\n", id, id, id)
		return
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 || n > len(r.Plan) {
		t.printf("The plan %s has steps 1 to %d; %s is none of them.\n", id, len(r.Plan), plain.Text(args[1], plain.NameMax))
		return
	}
	pc, ok := t.Engine.(PlanCore)
	if !ok {
		t.printf("This Reins allows a plan only whole: answer allow %s or deny %s.\n", id, id)
		return
	}
	if err := pc.AnswerPlan(r.ID, n); err != nil {
		t.printf("%s: %s\n", id, plain.Text(err.Error(), plain.DetailMax))
	}
}
