package persondoor

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// The audit log's rows, as the person's door reads them.
type (
	AuditFilter = audit.Filter
	AuditRow    = audit.Row
)

// FormatAuditRow renders one audit row on a line, as `reins audit` prints it
// on a terminal. Every field a page or an agent wrote goes through the
// renderer people read (internal/plain): one line whatever the row holds,
// no byte a terminal obeys, the agent's real process first and whole.
func FormatAuditRow(r audit.Row) string {
	who := vocab.Agent{Name: r.AgentName, PID: r.AgentPID, Exe: r.AgentExe, Session: r.AgentSession}.Label()
	var act vocab.Act
	json.Unmarshal(r.Act, &act)
	target := plain.Text(r.TargetName, plain.NameMax)
	if target != "" {
		target = plain.Quote(target, 0)
	}
	if role := plain.Role(r.TargetRole); role != "" {
		target = strings.TrimSpace(role + " " + target)
	}
	if r.Desktop && target == "" {
		target = "desktop"
	}
	line := fmt.Sprintf("#%d %s %-7s tab %-3s %-28s %-10s %s", r.Seq, r.Time.Format("2006-01-02 15:04:05"), plain.Field(r.Phase, plain.NameMax),
		plain.Field(r.Tab, plain.NameMax), who, plain.Field(r.ActKind, plain.NameMax), target)
	line = strings.TrimRight(line, " ")
	if act.Kind == vocab.Type {
		switch {
		case act.Secret:
			line += " (secret text not stored)"
		case act.Overlong > 0:
			line += fmt.Sprintf(" (text of %d characters, too long to type, not stored)", act.Overlong)
		case act.Withheld > 0:
			line += fmt.Sprintf(" (text of %d characters, not stored: its field was never found)", act.Withheld)
		default:
			line += " text " + plain.QuoteTyped(act.Text, plain.TypedMax)
		}
		if act.Clear {
			line += " after clearing the field"
		}
		switch n := act.Enters(); {
		case n == 1:
			line += ", Enter once"
		case n > 1:
			line += fmt.Sprintf(", Enter %d times", n)
		}
	}
	if r.Outcome == vocab.OutcomeUnknown {
		line += " → " + StoppedWords
	} else {
		line += " → " + plain.Field(r.Outcome, plain.NameMax)
	}
	if r.Code != "" {
		line += " [" + plain.Text(r.Code, plain.NameMax) + "]"
	}
	if r.RefSeq != 0 {
		line += fmt.Sprintf(" (of #%d)", r.RefSeq)
	}
	if r.Decision != "" {
		line += " · " + plain.Text(r.Decision, plain.NameMax)
	}
	return line
}

// AuditJSON is one audit row as a line of JSON, as `reins audit -json` and
// the audit viewer's export write it: the row's data unchanged, with every
// character a terminal would obey (C1 controls, bidi and format characters,
// line separators) written as a \u escape, so that printing the export is
// as safe as printing [FormatAuditRow].
func AuditJSON(r audit.Row) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("audit row %d cannot be written as JSON: %w", r.Seq, err)
	}
	return append(plain.JSON(b), '\n'), nil
}
