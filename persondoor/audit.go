package persondoor

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// AuditRow is one row of the audit log, every column, as the person's
// windows and terminal read it. Its fields and their JSON are the log's
// own, so [AuditJSON] writes what the log holds.
type AuditRow struct {
	Seq          int64           `json:"seq"`
	Time         time.Time       `json:"time"`
	AgentName    string          `json:"agent_name"`
	AgentVersion string          `json:"agent_version,omitempty"`
	AgentPID     int             `json:"agent_pid,omitempty"`
	AgentExe     string          `json:"agent_exe,omitempty"`
	AgentSession string          `json:"agent_session"`
	Tab          string          `json:"tab,omitempty"`
	TabTitle     string          `json:"tab_title,omitempty"`
	Origin       string          `json:"origin,omitempty"`
	FrameOrigin  string          `json:"frame_origin,omitempty"`
	Desktop      bool            `json:"desktop,omitempty"`
	ActKind      string          `json:"act_kind"`
	Act          json.RawMessage `json:"act"` // secret text appears only as "text_length"
	TargetRef    string          `json:"target_ref,omitempty"`
	TargetRole   string          `json:"target_role,omitempty"`
	TargetName   string          `json:"target_name,omitempty"`
	Phase        string          `json:"phase"`             // "record", "fire" or "outcome"
	RefSeq       int64           `json:"ref_seq,omitempty"` // for an outcome: the fire row
	Outcome      string          `json:"outcome"`
	Code         string          `json:"code,omitempty"`
	Detail       string          `json:"detail,omitempty"`
	Plan         json.RawMessage `json:"plan,omitempty"` // for a fire row: where the act lands
	Decision     string          `json:"decision,omitempty"`
	PrevHash     string          `json:"prev_hash"`
	Hash         string          `json:"hash"`
}

// AuditFilter selects audit rows; an empty field selects every row.
type AuditFilter struct {
	Since   time.Time // rows written at or after
	Until   time.Time // rows written before
	Tab     string    // Reins' tab id
	Origin  string    // the tab's origin, or the target frame's
	Agent   string    // an agent's declared name or its session id
	Act     string    // an vocab.ActKind
	Outcome string    // one of the Outcome words
	Limit   int       // at most this many; 0 for all
}

// Match reports whether f selects r, as the audit log selects the rows it
// reads (its Limit aside): the filter for rows already read.
func (f AuditFilter) Match(r AuditRow) bool {
	switch {
	case !f.Since.IsZero() && r.Time.Before(f.Since),
		!f.Until.IsZero() && !r.Time.Before(f.Until),
		f.Tab != "" && r.Tab != f.Tab,
		f.Origin != "" && r.Origin != f.Origin && r.FrameOrigin != f.Origin,
		f.Agent != "" && r.AgentName != f.Agent && r.AgentSession != f.Agent,
		f.Act != "" && r.ActKind != f.Act,
		f.Outcome != "" && r.Outcome != f.Outcome:
		return false
	}
	return true
}

// FormatAuditRow renders one audit row on a line, as `reins audit` prints it
// on a terminal. Every field a page or an agent wrote goes through the
// renderer people read (internal/plain): one line whatever the row holds,
// no byte a terminal obeys, the agent's real process first and whole.
func FormatAuditRow(r AuditRow) string {
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
func AuditJSON(r AuditRow) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("audit row %d cannot be written as JSON: %w", r.Seq, err)
	}
	return append(plain.JSON(b), '\n'), nil
}
