package ui

import (
	"fmt"

	"fyne.io/fyne/v2/theme"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
)

// AuditItemLabel is the tray's audit item: it says when no copy of the
// log leaves this computer, where the person looks for the log.
func AuditItemLabel(unanchored bool) string {
	if unanchored {
		return "Audit log… (not anchored: no copy leaves this computer)"
	}
	return "Audit log…"
}

// anchorSegs say where the audit log's copies go, one line each, and a
// red line when none leaves this computer; nil when e cannot say.
func anchorSegs(e persondoor.Door) [][]seg {
	a, ok := e.(persondoor.Anchorer)
	if !ok {
		return nil
	}
	st := a.AuditAnchor()
	var out [][]seg
	if !st.Anchored {
		out = append(out, []seg{{text: st.Words(), color: colorRed}})
	}
	for _, c := range st.Copies {
		what := "each row's seq and hash"
		if c.Whole {
			what = "whole rows"
		}
		line := []seg{{text: plain.Text(c.Where, 200), bold: true}, {text: " — " + what}}
		switch {
		case c.Err != nil:
			line = append(line, seg{text: fmt.Sprintf(": not reached now (%s); %d rows wait for it", plain.Text(c.Why, 300), c.Behind), color: colorRed})
		case c.Behind > 0:
			line = append(line, seg{text: fmt.Sprintf(": has rows up to %d, %d to go", c.Seq, c.Behind), color: colorSecondary})
		default:
			line = append(line, seg{text: fmt.Sprintf(": has every row, up to %d", c.Seq), color: colorSecondary})
		}
		if c.Required {
			line = append(line, seg{text: " · required: acts wait for it", color: colorSecondary, size: theme.SizeNameCaptionText})
		}
		out = append(out, line)
	}
	if st.Anchored && st.Required {
		out = append(out, []seg{{text: "An anchor is required: acts are refused while no copy can be made.", color: colorSecondary, size: theme.SizeNameCaptionText}})
	}
	return out
}

// auditPrefs is Preferences' audit section: where the log's copies go and
// how long it is kept, as settings.json and the organisation set them.
func auditPrefs(e persondoor.Door, s settings.Settings) [][]seg {
	out := anchorSegs(e)
	if out == nil {
		out = [][]seg{{{text: "Where the log's copies go is not known here.", color: colorSecondary}}}
	}
	kept := "Kept: every row, for as long as this computer keeps the file."
	c := s.AuditCopies
	if r := persondoor.PolicyOf(e).Effective().Retention(); r != nil {
		// The organisation's retention is the one the log runs with.
		c.RetainDays, c.RetainMegabytes = r.Days, r.Megabytes
	}
	switch {
	case c.RetainDays > 0 && c.RetainMegabytes > 0:
		kept = fmt.Sprintf("Kept: parts older than %d days, or past %d MB in all, are removed (never rows a receiver has not taken).", c.RetainDays, c.RetainMegabytes)
	case c.RetainDays > 0:
		kept = fmt.Sprintf("Kept: parts older than %d days are removed (never rows a receiver has not taken).", c.RetainDays)
	case c.RetainMegabytes > 0:
		kept = fmt.Sprintf("Kept: parts past %d MB in all are removed, oldest first (never rows a receiver has not taken).", c.RetainMegabytes)
	}
	out = append(out,
		[]seg{{text: kept, color: colorSecondary}},
		[]seg{{text: "Set in settings.json (auditAnchor, auditRetention) in the data folder.", color: colorSecondary, size: theme.SizeNameCaptionText}})
	return out
}

// showAnchor says in the viewer, in red, when no copy of the log leaves
// this computer; nothing otherwise.
func (v *AuditViewer) showAnchor() {
	a, ok := v.opts.Engine.(persondoor.Anchorer)
	if !ok || a.AuditAnchor().Anchored {
		setPara(v.anchor)
		v.anchor.Hide()
		return
	}
	setPara(v.anchor, []seg{{text: a.AuditAnchor().Words(), color: colorRed, size: theme.SizeNameCaptionText}})
	v.anchor.Show()
}
