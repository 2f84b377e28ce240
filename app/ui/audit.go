package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// auditLimit is how many rows the viewer loads at once.
const auditLimit = 2000

var timeRanges = []struct {
	label string
	back  time.Duration // 0: everything
}{{"Last hour", time.Hour}, {"Last 24 hours", 24 * time.Hour}, {"Last 7 days", 7 * 24 * time.Hour}, {"Everything", 0}}

const anyChoice = "Any"

var (
	actChoices     = append([]string{anyChoice}, kindNames()...)
	outcomeChoices = []string{anyChoice, vocab.OutcomeDone, vocab.OutcomeRead, vocab.OutcomeRefused, vocab.OutcomeDenied, vocab.OutcomeTimeout, vocab.OutcomeFailed, vocab.OutcomeUnknown, "about_to_fire"}
)

// AuditViewerOptions configures [NewAuditViewer].
type AuditViewerOptions struct {
	Engine persondoor.Door // required
	Clock  Clock           // optional
	// Export writes the shown rows somewhere the person picks; nil hides the
	// button. The rows are JSON lines, as `reins audit -json` prints them.
	Export func(data []byte)
}

// AuditViewer is the log as a table with filters.
type AuditViewer struct {
	opts    AuditViewerOptions
	rows    []persondoor.AuditRow
	when    *widget.Select
	origin  *widget.Entry
	agent   *widget.Entry
	act     *widget.Select
	outcome *widget.Select
	table   *widget.Table
	status  *widget.RichText
	anchor  *widget.RichText // where the log's copies go, said in red when none leaves
	content fyne.CanvasObject
}

var auditColumns = []struct {
	title string
	width float32
}{{"Time", 132}, {"Agent", 200}, {"Where", 190}, {"Act", 250}, {"Outcome", 250}}

// NewAuditViewer builds the viewer and loads the last hour.
func NewAuditViewer(opts AuditViewerOptions) *AuditViewer {
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	v := &AuditViewer{opts: opts}
	labels := make([]string, len(timeRanges))
	for i, r := range timeRanges {
		labels[i] = r.label
	}
	reload := func(string) { v.Reload() }
	v.when = widget.NewSelect(labels, reload)
	v.when.Selected = labels[1]
	v.origin = widget.NewEntry()
	v.origin.SetPlaceHolder("Site, e.g. https://shop.example.com")
	v.origin.OnSubmitted = reload
	v.agent = widget.NewEntry()
	v.agent.SetPlaceHolder("Agent name")
	v.agent.OnSubmitted = reload
	v.act = widget.NewSelect(actChoices, reload)
	v.act.Selected = anyChoice
	v.outcome = widget.NewSelect(outcomeChoices, reload)
	v.outcome.Selected = anyChoice
	v.status = widget.NewRichText()

	v.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(v.rows), len(auditColumns) },
		func() fyne.CanvasObject { return rich() },
		func(id widget.TableCellID, o fyne.CanvasObject) { v.cell(id, o.(*widget.RichText)) },
	)
	v.table.ShowHeaderColumn = false
	v.table.CreateHeader = func() fyne.CanvasObject { return rich() }
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			setRich(o.(*widget.RichText), seg{text: auditColumns[id.Col].title, bold: true, size: theme.SizeNameCaptionText, color: colorSecondary})
		}
	}
	for i, c := range auditColumns {
		v.table.SetColumnWidth(i, c.width)
	}

	filters := container.New(layout.NewGridLayoutWithColumns(5),
		labelled("When", v.when), labelled("Site", v.origin), labelled("Agent", v.agent),
		labelled("Act", v.act), labelled("Outcome", v.outcome))
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), v.Reload)
	actions := []fyne.CanvasObject{v.status, layout.NewSpacer(), refresh}
	if _, ok := opts.Engine.(persondoor.Verifier); ok {
		actions = append(actions, widget.NewButtonWithIcon("Verify the chain", theme.ConfirmIcon(), v.Verify))
	}
	if opts.Export != nil {
		actions = append(actions, widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), v.export))
	}
	v.anchor = para()
	v.content = inset(container.NewBorder(
		container.NewVBox(heading("Audit log"),
			secondary("Every attempt is here — reads, refusals and denials included. An act's “about to fire” row is written before it fires."),
			v.anchor,
			filters),
		container.NewHBox(actions...),
		nil, nil,
		card(v.table),
	))
	v.Reload()
	return v
}

func labelled(label string, o fyne.CanvasObject) fyne.CanvasObject {
	return container.NewVBox(rich(seg{text: label, size: theme.SizeNameCaptionText, color: colorSecondary, bold: true}), o)
}

// Content is what the audit window shows.
func (v *AuditViewer) Content() fyne.CanvasObject { return v.content }

// Rows are the rows shown, newest first.
func (v *AuditViewer) Rows() []persondoor.AuditRow { return v.rows }

// Filter is the filter the controls describe now.
func (v *AuditViewer) Filter() persondoor.AuditFilter {
	f := persondoor.AuditFilter{Limit: auditLimit}
	for _, r := range timeRanges {
		if r.label == v.when.Selected && r.back > 0 {
			f.Since = v.opts.Clock.Now().Add(-r.back)
		}
	}
	f.Origin = strings.TrimSpace(v.origin.Text)
	if f.Origin != "" && !strings.Contains(f.Origin, "://") {
		f.Origin = "https://" + f.Origin
	}
	f.Agent = strings.TrimSpace(v.agent.Text)
	if v.act.Selected != anyChoice {
		f.Act = v.act.Selected
	}
	if v.outcome.Selected != anyChoice {
		f.Outcome = v.outcome.Selected
	}
	return f
}

// Reload reads the log again with the current filter.
func (v *AuditViewer) Reload() {
	v.showAnchor()
	rows, err := v.opts.Engine.AuditRows(context.Background(), v.Filter())
	if err != nil {
		v.rows = nil
		setRich(v.status, seg{text: "The log could not be read: " + err.Error(), color: colorRed, size: theme.SizeNameCaptionText})
	} else {
		v.rows = rows
		msg := fmt.Sprintf("%d rows", len(rows))
		if len(rows) == 1 {
			msg = "1 row"
		}
		if len(rows) == auditLimit {
			msg = fmt.Sprintf("the newest %d rows; narrow the filter to see older ones", auditLimit)
		}
		setRich(v.status, seg{text: msg, color: colorSecondary, size: theme.SizeNameCaptionText})
	}
	v.table.Refresh()
}

// Verify checks the hash chain and says what it found.
func (v *AuditViewer) Verify() {
	ver, ok := v.opts.Engine.(persondoor.Verifier)
	if !ok {
		return
	}
	n, err := ver.VerifyAudit(context.Background())
	if err != nil {
		setRich(v.status, seg{text: "Not intact: " + err.Error(), color: colorRed, size: theme.SizeNameCaptionText, bold: true})
		return
	}
	setRich(v.status, seg{text: fmt.Sprintf("✓ Intact: %d rows, hash chain verified", n), color: colorAccent, size: theme.SizeNameCaptionText, bold: true})
}

// StatusText is the line under the table.
func (v *AuditViewer) StatusText() string { return v.status.String() }

func (v *AuditViewer) export() {
	var b strings.Builder
	for i := len(v.rows) - 1; i >= 0; i-- {
		line, err := persondoor.AuditJSON(v.rows[i])
		if err != nil {
			setRich(v.status, seg{text: err.Error() + "; nothing was exported", color: colorRed, size: theme.SizeNameCaptionText})
			return
		}
		b.Write(line)
	}
	v.opts.Export([]byte(b.String()))
}

func (v *AuditViewer) cell(id widget.TableCellID, rt *widget.RichText) {
	if id.Row >= len(v.rows) {
		setRich(rt)
		return
	}
	r := v.rows[id.Row]
	small := func(s string) seg { return seg{text: s, size: theme.SizeNameCaptionText} }
	switch id.Col {
	case 0:
		setRich(rt, seg{text: r.Time.Local().Format("Jan 2 15:04:05"), size: theme.SizeNameCaptionText, color: colorSecondary})
	case 1:
		setRich(rt, whoSegsSmall(vocab.Agent{Name: r.AgentName, PID: r.AgentPID, Exe: r.AgentExe, Session: r.AgentSession})...)
	case 2:
		where := plain.Text(displayOrigin(r.Origin), plain.URLMax)
		if r.Desktop {
			where = "Desktop"
		}
		if r.FrameOrigin != "" {
			where += " › " + plain.Text(displayOrigin(r.FrameOrigin), plain.URLMax)
		}
		if where == "" {
			where = "—"
		}
		setRich(rt, small(where))
	case 3:
		setRich(rt, small(actSummary(r)))
	case 4:
		words, mark := rowOutcome(r)
		s := small(words)
		switch mark {
		case MarkRefused:
			s.color, s.bold = colorAmber, true
		case MarkFailed:
			s.color, s.bold = colorRed, true
		}
		setRich(rt, s)
	}
}

// whoSegsSmall is an agent in the table: the process first, then its
// declared name, secondary.
func whoSegsSmall(a vocab.Agent) []seg {
	segs := whoSegs(a)
	for i := range segs {
		segs[i].size, segs[i].bold = theme.SizeNameCaptionText, false
	}
	return segs
}

// rowOutcome says a row's outcome in the strip's words.
func rowOutcome(r persondoor.AuditRow) (string, Mark) {
	if r.Outcome == "about_to_fire" {
		return "about to fire — " + plain.Text(r.Decision, plain.NameMax), MarkNone
	}
	words, mark := OutcomeWords(persondoor.Activity{Outcome: r.Outcome, Code: r.Code, Detail: r.Detail})
	if r.Phase == "outcome" && r.RefSeq != 0 {
		words += fmt.Sprintf(" (of #%d)", r.RefSeq)
	}
	return words, mark
}

// times says a count of presses: "once", "2 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// actSummary is a row's act in a few words; secret text was never stored.
// What the page or the agent wrote is rendered, and quoted where it names
// something.
func actSummary(r persondoor.AuditRow) string {
	var act struct {
		Text       string `json:"text"`
		TextLength *int   `json:"text_length"`
		Overlong   int    `json:"overlong"`
		Withheld   int    `json:"withheld"`
		Keys       string `json:"keys"`
		URL        string `json:"url"`
		DX, DY     int
		Accept     bool   `json:"accept"`
		Submit     bool   `json:"submit"`
		Clear      bool   `json:"clear"`
		Dialog     string `json:"dialog"`
		File       struct {
			Path string `json:"path"`
			Size int64  `json:"size"`
		} `json:"file"`
	}
	_ = json.Unmarshal(r.Act, &act)
	target := r.TargetName
	var s string
	switch r.ActKind {
	case "type":
		what := plain.QuoteTyped(act.Text, plain.TypedMax)
		switch {
		case act.TextLength != nil:
			what = fmt.Sprintf("%d characters", *act.TextLength)
		case act.Overlong > 0:
			what = fmt.Sprintf("%d characters (too long to type, not stored)", act.Overlong)
		case act.Withheld > 0:
			what = fmt.Sprintf("%d characters (not stored: the field was never found)", act.Withheld)
		}
		s = "type " + what
		if target != "" {
			s += " into " + plain.Quote(target, plain.NameMax)
		}
		if act.Clear {
			s = "clear, then " + s
		}
		switch n := vocab.LineBreaks(act.Text); {
		case act.Submit:
			s += fmt.Sprintf(", Enter pressed %s", times(n+1))
		case n > 0:
			s += fmt.Sprintf(", Enter pressed %s", times(n))
		}
		return s
	case "key":
		return "press " + plain.Text(act.Keys, plain.NameMax)
	case "navigate":
		return "open " + plain.Text(act.URL, plain.URLMax)
	case "share":
		return plain.Text(r.Detail, plain.DetailMax)
	case "dialog":
		// What the person allowed: which answer, and a prompt's text.
		s = "dismiss"
		if act.Accept {
			s = "accept"
		}
		if act.Dialog != "" {
			s += " the " + plain.Text(act.Dialog, plain.NameMax) + " dialog"
		} else {
			s += " a dialog"
		}
		if act.Accept && act.Text != "" {
			s += " with " + plain.Quote(act.Text, plain.TypedMax)
		}
		if target != "" {
			s += " saying " + plain.Quote(target, plain.NameMax)
		}
		return s
	case "upload":
		s = "upload " + plain.Quote(act.File.Path, plain.URLMax)
		if act.File.Size > 0 {
			s += fmt.Sprintf(" (%d bytes)", act.File.Size)
		}
		if target != "" {
			s += " through " + plain.Quote(target, plain.NameMax)
		}
		return s
	}
	s = plain.Text(strings.ReplaceAll(r.ActKind, "_", " "), plain.NameMax)
	if role := plain.Role(r.TargetRole); role != "" {
		s += " " + role
	}
	if target != "" {
		s += " " + plain.Quote(target, plain.NameMax)
	}
	return s
}

// kindNames are the act kinds' names, every one vocab has.
func kindNames() []string {
	out := make([]string, len(vocab.ActKinds))
	for i, k := range vocab.ActKinds {
		out[i] = string(k)
	}
	return out
}
