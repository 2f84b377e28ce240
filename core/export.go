package core

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
)

// Names front ends need, so that they import core and nothing behind it.
type (
	Level       = approvals.Level
	Decision    = approvals.Decision
	Agent       = approvals.Agent
	Act         = approvals.Act
	ActKind     = approvals.ActKind
	AuditFilter = audit.Filter
	AuditRow    = audit.Row
	Request     = approvals.Request
	Target      = approvals.Target
	Box         = approvals.Box
	Sketch      = approvals.Sketch
	SketchBox   = approvals.SketchBox
)

// Share levels and decisions.
const (
	None      = approvals.None
	ReadOnly  = approvals.ReadOnly
	Control   = approvals.Control
	Deny      = approvals.Deny
	AllowOnce = approvals.AllowOnce
	AllowTab  = approvals.AllowTab

	DesktopKey = approvals.DesktopKey
)

// ParseLevel reads "none", "read" or "control".
func ParseLevel(s string) (Level, error) { return approvals.ParseLevel(s) }

// FormatAuditRow renders one audit row on a line, as `reins audit` prints it.
func FormatAuditRow(r audit.Row) string {
	who := r.AgentName
	if r.AgentPID != 0 {
		who = fmt.Sprintf("%s (pid %d %s)", r.AgentName, r.AgentPID, r.AgentExe)
	}
	var act approvals.Act
	json.Unmarshal(r.Act, &act)
	target := r.TargetName
	if r.TargetRole != "" {
		target = r.TargetRole + " " + quoteIf(r.TargetName)
	}
	line := fmt.Sprintf("#%d %s %-7s tab %-3s %-28s %-10s %s", r.Seq, r.Time.Format("2006-01-02 15:04:05"), r.Phase, orDash(r.Tab), who, r.ActKind, strings.TrimSpace(target))
	if act.Kind == approvals.Type {
		if act.Secret {
			line += " (secret text not stored)"
		} else {
			line += fmt.Sprintf(" text %q", act.Text)
		}
	}
	line += " → " + r.Outcome
	if r.Code != "" {
		line += " [" + r.Code + "]"
	}
	if r.RefSeq != 0 {
		line += fmt.Sprintf(" (of #%d)", r.RefSeq)
	}
	if r.Decision != "" {
		line += " · " + r.Decision
	}
	return line
}

func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return "“" + s + "”"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Kinds of acts, for front ends that build an [Act].
const (
	ActClick       = approvals.Click
	ActDoubleClick = approvals.DoubleClick
	ActRightClick  = approvals.RightClick
	ActHover       = approvals.Hover
	ActType        = approvals.Type
	ActKey         = approvals.Key
	ActScroll      = approvals.Scroll
	ActNavigate    = approvals.Navigate
	ActBack        = approvals.Back
	ActForward     = approvals.Forward
	ActConnect     = approvals.Connect
)
