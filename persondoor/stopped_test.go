package persondoor

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

func TestAnActReinsStoppedDuringReadsAsOutcomeUnknown(t *testing.T) {
	words, refused := OutcomeWords(Activity{Outcome: vocab.OutcomeUnknown, Code: vocab.CodeStopped, Detail: audit.StoppedDetail})
	if words != "outcome unknown (Reins stopped)" || refused {
		t.Errorf("OutcomeWords = %q, %v", words, refused)
	}
	row := AuditRow{
		Seq: 12, Time: time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC), AgentName: "agent", AgentSession: "s1",
		Tab: "3", ActKind: string(vocab.Type), Act: json.RawMessage(`{"kind":"type","text":"the quick"}`),
		Phase: audit.PhaseOutcome, RefSeq: 11, Outcome: vocab.OutcomeUnknown, Code: vocab.CodeStopped, Detail: audit.StoppedDetail,
	}
	line := FormatAuditRow(row)
	if !strings.HasSuffix(line, `text “the quick” → outcome unknown (Reins stopped) [reins_stopped] (of #11)`) {
		t.Errorf("FormatAuditRow = %q", line)
	}
	b, err := AuditJSON(row)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"outcome":"unknown","code":"reins_stopped"`) {
		t.Errorf("AuditJSON = %s", b)
	}
}
