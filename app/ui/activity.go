package ui

import (
	"fmt"
	"sort"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// Mark is how an activity line stands out.
type Mark int

const (
	MarkNone    Mark = iota
	MarkRefused      // amber: Reins refused it (a probed unshared tab stands out)
	MarkFailed       // red: it was tried and went wrong
)

// ActivityLine is one line of a tab's strip: one attempt, or several
// identical ones in a row collapsed into a count.
type ActivityLine struct {
	Time    time.Time // the newest of the collapsed attempts
	Agent   string
	Act     string
	Outcome string // in words
	Mark    Mark
	Count   int
}

// OutcomeWords says an attempt's outcome the way the person reads it, in
// the words Chrome's strip uses too, and how its line stands out.
func OutcomeWords(a persondoor.Activity) (string, Mark) {
	words, refused := persondoor.OutcomeWords(a)
	switch {
	case refused:
		return words, MarkRefused
	case a.Outcome == vocab.OutcomeFailed:
		return words, MarkFailed
	}
	return words, MarkNone
}

// Collapse turns attempts, newest first, into strip lines: identical
// attempts one after another (same agent, act and outcome) become one line
// with a count. Core renders the agent and the act for a person; they are
// rendered again here, so that no line can carry raw text whoever made it.
func Collapse(newestFirst []persondoor.Activity) []ActivityLine {
	var out []ActivityLine
	for _, a := range newestFirst {
		words, mark := OutcomeWords(a)
		a.Agent, a.Act = plain.Text(a.Agent, 0), plain.Text(a.Act, 0)
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.Agent == a.Agent && last.Act == a.Act && last.Outcome == words {
				last.Count++
				continue
			}
		}
		out = append(out, ActivityLine{Time: a.Time, Agent: a.Agent, Act: a.Act, Outcome: words, Mark: mark, Count: 1})
	}
	return out
}

// maxActivity is how many attempts a tab's strip keeps; the audit log keeps
// them all.
const maxActivity = 1000

// ActivityStrip shows, for one tab at a time, every attempt newest first.
// Its methods run on fyne's goroutine.
type ActivityStrip struct {
	byTab   map[string][]persondoor.Activity // oldest first
	titles  map[string]string                // tab id → menu label
	tab     string                           // shown
	lines   []ActivityLine
	pick    *widget.Select
	list    *widget.List
	empty   *widget.RichText
	content fyne.CanvasObject
	ids     []string // the picker's tabs, in its order
}

// NewActivityStrip makes an empty strip.
func NewActivityStrip() *ActivityStrip {
	s := &ActivityStrip{byTab: map[string][]persondoor.Activity{}, titles: map[string]string{}}
	s.pick = widget.NewSelect(nil, func(label string) {
		for i, l := range s.pick.Options {
			if l == label && i < len(s.ids) {
				s.Show(s.ids[i])
			}
		}
	})
	s.pick.PlaceHolder = "Choose a tab"
	s.list = widget.NewList(
		func() int { return len(s.lines) },
		newActivityRow,
		func(i widget.ListItemID, o fyne.CanvasObject) { updateActivityRow(o, s.lines[i]) },
	)
	s.list.HideSeparators = false
	s.empty = secondary("Nothing yet. Every attempt an agent makes on this tab — reads, clicks, refusals — shows here, newest first.")
	s.content = inset(container.NewBorder(
		container.NewVBox(heading("Activity"), s.pick),
		nil, nil, nil,
		container.NewStack(card(s.list), container.NewVBox(s.empty)),
	))
	s.refresh()
	return s
}

// Content is what the activity window shows.
func (s *ActivityStrip) Content() fyne.CanvasObject { return s.content }

// Lines are the shown tab's lines, newest first.
func (s *ActivityStrip) Lines() []ActivityLine { return s.lines }

// SetTabs names the tabs the picker offers.
func (s *ActivityStrip) SetTabs(tabs []vocab.TabInfo) {
	for _, t := range tabs {
		s.titles[t.ID] = TabLabel(t)
	}
	s.updatePicker()
}

// Add records an attempt on a tab ("" for the desktop and agent-wide acts).
func (s *ActivityStrip) Add(tab string, a persondoor.Activity) {
	list := append(s.byTab[tab], a)
	if len(list) > maxActivity {
		list = list[len(list)-maxActivity:]
	}
	s.byTab[tab] = list
	if s.tab == "" && len(s.byTab) == 1 {
		s.tab = tab
	}
	s.updatePicker()
	if tab == s.tab {
		s.refresh()
	}
}

// Show switches the strip to a tab.
func (s *ActivityStrip) Show(tab string) {
	if s.tab == tab {
		return
	}
	s.tab = tab
	s.updatePicker()
	s.refresh()
}

func (s *ActivityStrip) label(tab string) string {
	if tab == "" {
		return "Desktop and agents"
	}
	if l, ok := s.titles[tab]; ok {
		return l
	}
	return "Tab " + tab
}

func (s *ActivityStrip) updatePicker() {
	seen := map[string]bool{}
	var ids []string
	for id := range s.titles {
		ids, seen[id] = append(ids, id), true
	}
	for id := range s.byTab {
		if !seen[id] {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return tabOrder(ids[i]) < tabOrder(ids[j]) })
	s.ids = ids
	opts := make([]string, len(ids))
	for i, id := range ids {
		opts[i] = s.label(id)
		if n := len(s.byTab[id]); n > 0 {
			opts[i] += fmt.Sprintf("  —  %d", n)
		}
	}
	s.pick.Options = opts
	for i, id := range ids {
		if id == s.tab {
			s.pick.Selected = opts[i]
		}
	}
	s.pick.Refresh()
}

// tabOrder sorts tabs by their number, the desktop last.
func tabOrder(id string) int {
	var n int
	if _, err := fmt.Sscan(id, &n); err != nil {
		return 1 << 30
	}
	return n
}

func (s *ActivityStrip) refresh() {
	list := s.byTab[s.tab]
	newest := make([]persondoor.Activity, len(list))
	for i, a := range list {
		newest[len(list)-1-i] = a
	}
	s.lines = Collapse(newest)
	if len(s.lines) == 0 {
		s.empty.Show()
	} else {
		s.empty.Hide()
	}
	s.list.Refresh()
}

func newActivityRow() fyne.CanvasObject {
	mark := canvas.NewRectangle(nil)
	mark.CornerRadius = 2
	return container.NewBorder(nil, nil, sized(mark, 4, 4), nil, tight(rich(), rich()))
}

func updateActivityRow(o fyne.CanvasObject, l ActivityLine) {
	row := o.(*fyne.Container)
	lines := row.Objects[0].(*fyne.Container)
	mark := row.Objects[1].(*fyne.Container).Objects[0].(*canvas.Rectangle)
	top, bottom := lines.Objects[0].(*widget.RichText), lines.Objects[1].(*widget.RichText)

	outcome := seg{text: l.Outcome, size: theme.SizeNameCaptionText}
	switch l.Mark {
	case MarkRefused:
		mark.FillColor = themeColor(colorAmber)
		outcome.color, outcome.bold = colorAmber, true
	case MarkFailed:
		mark.FillColor = themeColor(colorRed)
		outcome.color, outcome.bold = colorRed, true
	default:
		mark.FillColor = nil
	}
	mark.Refresh()
	act := []seg{{text: l.Act, bold: true}}
	if l.Count > 1 {
		act = append(act, seg{text: fmt.Sprintf("   ×%d", l.Count), bold: true, color: colorSecondary})
	}
	setRich(top, act...)
	setRich(bottom, outcome,
		seg{text: "  ·  " + l.Time.Format("15:04:05") + "  ·  " + l.Agent, size: theme.SizeNameCaptionText, color: colorSecondary})
}
