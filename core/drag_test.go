package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/vocab"
)

// A drag says where it ends in one way, the ref of another element or an
// offset within bounds; anything else is refused before the person is asked.
func TestADragEndsOneWay(t *testing.T) {
	f := newFixture(t, 2*time.Second)
	f.SetShare(f.tab, vocab.Control)
	seen := f.answerWith(func(vocab.Request) vocab.Decision { return vocab.AllowOnce })
	from, _ := f.snapRef("Place order")
	to, _ := f.snapRef("Next")
	for _, r := range []agentdoor.ActRequest{
		{Ref: from},
		{Ref: from, To: from},
		{Ref: from, To: to, Act: vocab.Act{DX: 40}},
		{Ref: from, Act: vocab.Act{DX: 20000}},
	} {
		r.Tab, r.Act.Kind = f.tab, vocab.Drag
		if _, err := f.agent.Act(context.Background(), r); codeOf(err) != vocab.CodeBadRequest {
			t.Errorf("drag to %q by %d, %d: %v, want %s", r.To, r.Act.DX, r.Act.DY, err, vocab.CodeBadRequest)
		}
	}
	if n := len(seen()); n != 0 || len(f.Exec.Fired()) != 0 {
		t.Fatalf("asked %d times and fired %d acts, want none", n, len(f.Exec.Fired()))
	}
	res, err := f.agent.Act(context.Background(), agentdoor.ActRequest{Tab: f.tab, Ref: from, Act: vocab.Act{Kind: vocab.Drag, DX: 30, DY: -20}})
	if err != nil {
		t.Fatal(err)
	}
	fired := f.Exec.Fired()
	if len(fired) != 1 || fired[0].Plan.X2-fired[0].Plan.X != 30 || fired[0].Plan.Y2-fired[0].Plan.Y != -20 {
		t.Fatalf("fired %+v, want one drag ending 30 right and 20 up of where it starts", fired)
	}
	if !strings.HasPrefix(res.Done, "Drag “Place order” up 20, right 30 points") {
		t.Errorf("done %q", res.Done)
	}
}
