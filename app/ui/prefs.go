package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/settings"
)

// The choices the preferences offer; the engine accepts any value within
// its bounds, and a saved value outside these lists is shown too.
var (
	timeoutChoices  = []time.Duration{10 * time.Second, 15 * time.Second, 20 * time.Second, 30 * time.Second, 45 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute}
	rememberChoices = []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour}
)

// Preferences is the preferences window's content. Every change goes
// through the engine, which checks it, writes it to the audit log and saves
// it; the window shows the engine's answer, an error included, in words.
// Its methods run on fyne's goroutine.
type Preferences struct {
	e     persondoor.Door
	facts Settings

	timeout, remember *widget.Select
	port              *widget.Entry
	portSave          *widget.Button
	portNote          *widget.RichText
	login             *widget.Check
	pause             *widget.Select // the pause chord, shown as this OS writes it
	pauseNote         *widget.RichText
	deny              *fyne.Container // the built-in deny list's labels, a few to a line
	added             *fyne.Container // the person's additions, each with its Remove button
	addName           *widget.Entry
	addButton         *widget.Button
	openApps          *widget.Select   // applications open now, each added by choosing it
	audit             *widget.RichText // where the audit log's copies go; its retention
	managed           *widget.RichText // the organisation's policy, when there is one
	managedGroup      fyne.CanvasObject
	denyManaged       *widget.RichText // the organisation's additions to the deny list
	rememberNote      *widget.RichText
	status            *widget.RichText
	content           fyne.CanvasObject

	// gate lets a change that loosens (taking an application off the deny
	// list) take effect only on the person's own click; its watch runs
	// while the window shows (Shown, Hidden).
	gate *gate

	filling bool // Refresh is setting the widgets: their callbacks must not write back
	// off runs f off fyne's goroutine. Tests run f at once instead: fyne's
	// test driver has no goroutine of its own to come back to.
	off func(f func())
}

// NewPreferences builds the preferences for e; facts are what this Reins
// runs with (the port in use, the data folder, the hotkey).
func NewPreferences(e persondoor.Door, facts Settings) *Preferences {
	p := &Preferences{e: e, facts: facts, off: func(f func()) { go f() }}
	// The window takes the keyboard: a key press counts as a press, so
	// that a Remove reached with Tab and Space is told from a click.
	p.gate = newGate(e, persondoor.PressOptions{Keys: true}, nil)
	p.timeout = widget.NewSelect(nil, func(label string) {
		p.setDuration(label, timeoutChoices, "Time to answer", e.SetApprovalTimeout)
	})
	p.remember = widget.NewSelect(nil, func(label string) {
		p.setDuration(label, rememberChoices, "“Allow on this tab”", e.SetRememberFor)
	})
	p.port = widget.NewEntry()
	p.port.SetPlaceHolder("Any free port")
	p.port.OnSubmitted = func(string) { p.savePort() }
	p.portSave = widget.NewButton("Save", p.savePort)
	p.portNote = rich()
	p.login = widget.NewCheck("Start Reins when I log in", func(on bool) {
		if p.filling {
			return
		}
		done := "Reins will start when you log in."
		if !on {
			done = "Reins will no longer start when you log in."
		}
		p.report(e.SetStartAtLogin(on), done)
	})
	p.deny = tight()
	p.added = container.NewVBox()
	p.addName = widget.NewEntry()
	p.addName.SetPlaceHolder("Name, program or bundle ID")
	p.addName.OnSubmitted = func(string) { p.addTyped() }
	p.addButton = widget.NewButton("Add", p.addTyped)
	p.openApps = widget.NewSelect(nil, func(name string) {
		if p.filling || name == "" {
			return
		}
		p.report(e.AddDenied(name), fmt.Sprintf("Agents will never touch “%s”.", name))
	})
	p.openApps.PlaceHolder = "Or choose an open application"
	p.status = para()
	p.audit = para()
	p.managed = para()
	p.denyManaged = para()
	p.rememberNote = rich()

	row := func(label string, value fyne.CanvasObject) fyne.CanvasObject {
		return container.NewBorder(nil, nil,
			sized(rich(seg{text: label, color: colorSecondary}), 190, 10), nil, value)
	}
	// with puts a one-line note under a control, in secondary text.
	with := func(control fyne.CanvasObject, note string) fyne.CanvasObject {
		return container.NewBorder(nil, rich(seg{text: note, color: colorSecondary, size: theme.SizeNameCaptionText}), nil, nil, control)
	}
	group := func(title string, rows ...fyne.CanvasObject) fyne.CanvasObject {
		return container.NewVBox(rich(seg{text: title, bold: true, size: theme.SizeNameCaptionText, color: colorSecondary}),
			card(container.NewVBox(rows...)))
	}
	p.pause = widget.NewSelect(nil, p.setPause)
	p.pauseNote = rich()
	var pauseRow fyne.CanvasObject = rich(seg{text: "None here: use “Pause all agents” in the menu"})
	if facts.GlobalKeys {
		pauseRow = container.NewBorder(nil, p.pauseNote, nil, nil, p.pause)
	}
	p.managedGroup = group("SET BY YOUR ORGANISATION", p.managed)
	p.content = inset(container.NewVBox(
		heading("Preferences"),
		p.managedGroup,
		group("APPROVALS",
			row("Time to answer", with(p.timeout, "When it runs out, the act is denied.")),
			widget.NewSeparator(),
			row("“Allow on this tab” lasts", container.NewBorder(nil, p.rememberNote, nil, nil, p.remember)),
		),
		group("PROTECTION",
			rich(seg{text: "Never touched, even when an act is approved", color: colorSecondary}),
			p.deny,
			rich(seg{text: "Built in and always on: you can add to this list, never take from it.", color: colorSecondary, size: theme.SizeNameCaptionText}),
			p.denyManaged,
			widget.NewSeparator(),
			row("Also never touched", container.NewVBox(
				p.added,
				with(container.NewBorder(nil, nil, nil, p.addButton, p.addName), "For example Signal, signal-desktop or org.signal.Signal."),
				p.openApps,
			)),
			widget.NewSeparator(),
			row("Pause all agents", pauseRow),
		),
		group("THIS COMPUTER",
			row("Chrome extension port", container.NewBorder(nil, p.portNote, nil, nil,
				container.NewBorder(nil, nil, nil, p.portSave, p.port))),
			widget.NewSeparator(),
			row("Start at login", with(p.login, "Adds Reins to your login items; untick to remove it.")),
			widget.NewSeparator(),
			row("Data folder", rich(seg{text: facts.DataDir})),
		),
		group("AUDIT LOG", p.audit),
		p.status,
	))
	p.Refresh()
	setPara(p.status, []seg{{text: "Every change is written to the audit log.", color: colorSecondary, size: theme.SizeNameCaptionText}})
	return p
}

// Content is the window's content.
func (p *Preferences) Content() fyne.CanvasObject { return p.content }

// Refresh shows the engine's settings as they are now.
func (p *Preferences) Refresh() {
	p.filling = true
	defer func() { p.filling = false }()
	s := p.e.Settings()
	st := persondoor.PolicyOf(p.e)
	rules := st.Effective()
	// What the organisation sets is shown as set by it, and nothing that
	// would loosen it is offered.
	if segs := managedSegs(st); segs != nil {
		setPara(p.managed, segs...)
		p.managedGroup.Show()
	} else {
		p.managedGroup.Hide()
	}
	p.timeout.Options = durationLabels(within(timeoutChoices, rules), s.ApprovalTimeout)
	p.timeout.SetSelected(words(s.ApprovalTimeout))
	p.remember.Options = durationLabels(rememberChoices, s.RememberFor)
	p.remember.SetSelected(words(s.RememberFor))
	if rules.AllowOnTab() {
		p.remember.Enable()
		setRich(p.rememberNote, seg{text: "Never for passwords, payments or other sites.", color: colorSecondary, size: theme.SizeNameCaptionText})
	} else {
		p.remember.Disable()
		setRich(p.rememberNote, seg{text: "Not offered: your organisation has every act asked on its own.", color: colorSecondary, size: theme.SizeNameCaptionText})
	}
	if apps := rules.DenyApplications(); len(apps) > 0 {
		segs := [][]seg{{{text: "Set by your organisation:", color: colorSecondary}}}
		for _, l := range lines(apps, 56) {
			segs = append(segs, []seg{{text: plain.Text(l, 0)}})
		}
		setPara(p.denyManaged, segs...)
		p.denyManaged.Show()
	} else {
		setPara(p.denyManaged)
		p.denyManaged.Hide()
	}
	if s.BridgePort == 0 {
		p.port.SetText("")
	} else {
		p.port.SetText(strconv.Itoa(s.BridgePort))
	}
	now := "none"
	if p.facts.BridgePort != 0 {
		now = fmt.Sprintf("127.0.0.1:%d", p.facts.BridgePort)
	}
	setRich(p.portNote, seg{text: "Used from the next start; now " + now + ".", color: colorSecondary, size: theme.SizeNameCaptionText})
	p.login.SetChecked(s.StartAtLogin)
	p.pause.Options = pauseLabels(s.PauseChord)
	p.pause.SetSelected(ChordLabel(s.PauseChord, runtime.GOOS))
	if h, ok := p.e.(persondoor.ChordHolder); ok && !h.PauseChordTaken() {
		setRich(p.pauseNote, seg{text: "Not working now: another program holds it. Choose another, or choose it again to retry.", color: colorRed, size: theme.SizeNameCaptionText})
	} else {
		setRich(p.pauseNote, seg{text: "Pressed anywhere, it pauses every agent; resume from the menu.", color: colorSecondary, size: theme.SizeNameCaptionText})
	}
	p.deny.RemoveAll()
	for _, line := range lines(s.DenyList, 56) {
		p.deny.Add(rich(seg{text: line}))
	}
	p.added.RemoveAll()
	for _, name := range s.DenyAdded {
		remove := widget.NewButton("Remove", func() { p.removeDenied(name) })
		remove.Importance = widget.LowImportance
		p.added.Add(container.NewBorder(nil, nil, nil, remove, rich(seg{text: name})))
	}
	setPara(p.audit, auditPrefs(p.e, s)...)
	p.refreshOpenApps()
}

// refreshOpenApps offers the applications open now, or hides the choice
// when there are none or the desktop cannot say: typing a name still works.
func (p *Preferences) refreshOpenApps() {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	apps, err := p.e.OpenApps(ctx)
	p.openApps.Options = apps
	p.openApps.ClearSelected()
	if err != nil || len(apps) == 0 {
		p.openApps.Hide()
	} else {
		p.openApps.Show()
	}
}

// addTyped adds the name in the entry; the entry is emptied once the engine
// takes it and kept for correcting when it does not.
func (p *Preferences) addTyped() {
	name := strings.TrimSpace(p.addName.Text)
	err := p.e.AddDenied(name)
	if err == nil {
		p.addName.SetText("")
	}
	p.report(err, fmt.Sprintf("Agents will never touch “%s”.", name))
}

// Shown watches the presses from now on: the window shows.
func (p *Preferences) Shown() { p.gate.start() }

// Hidden stops watching the presses: the window hid.
func (p *Preferences) Hidden() { p.gate.stop() }

func (p *Preferences) removeDenied(name string) {
	if ok, why := p.gate.pass("Remove"); !ok {
		setPara(p.status, []seg{{text: "Not changed. ", bold: true, color: colorRed}, {text: why, color: colorRed}})
		return
	}
	p.report(p.e.RemoveDenied(name), fmt.Sprintf("“%s” is off the list; agents may act in it again when you approve.", name))
}

func (p *Preferences) setDuration(label string, choices []time.Duration, what string, set func(time.Duration) error) {
	if p.filling {
		return
	}
	d, ok := parseWords(label, choices)
	if !ok {
		p.report(fmt.Errorf("%q is not a length Reins knows", label), "")
		return
	}
	p.report(set(d), fmt.Sprintf("%s is now %s.", what, words(d)))
}

func (p *Preferences) savePort() {
	text := strings.TrimSpace(p.port.Text)
	port := 0
	if text != "" {
		n, err := strconv.Atoi(text)
		if err != nil {
			p.report(errors.New("type a port number between 1024 and 65535, or leave the field empty to pick a free one"), "")
			return
		}
		port = n
	}
	done := fmt.Sprintf("The extension port will be %d from the next start of Reins.", port)
	if port == 0 {
		done = "Reins will pick a free port for the extension from its next start."
	}
	p.report(p.e.SetBridgePort(port), done)
}

// report shows the engine's answer: what changed, or why nothing did, and
// puts the widgets back to what the engine holds.
func (p *Preferences) report(err error, done string) {
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, settings.ErrInvalid.Error()+": ")
		if r, n := utf8.DecodeRuneInString(msg); n > 0 {
			msg = string(unicode.ToUpper(r)) + msg[n:] // a message may open with a quote mark
		}
		setPara(p.status, []seg{{text: "Not changed. ", bold: true, color: colorRed}, {text: msg, color: colorRed}})
	} else {
		setPara(p.status, []seg{{text: done + " Written to the audit log.", color: colorSecondary}})
	}
	p.Refresh()
}

// pauseChoices are the pause chords offered; each holds at least two of
// Control, Alt and Meta, as every pause chord must.
var pauseChoices = []string{"Control+Alt+Meta+P", "Control+Alt+Meta+Escape", "Control+Alt+Shift+P", "Control+Alt+Meta+F12"}

// pauseLabels are the choices as this OS writes them, the current chord
// among them even when it is not one of the offered ones.
func pauseLabels(current string) []string {
	var out []string
	for _, c := range pauseChoices {
		out = append(out, ChordLabel(c, runtime.GOOS))
	}
	if cur := ChordLabel(current, runtime.GOOS); !slices.Contains(out, cur) {
		out = append(out, cur)
	}
	return out
}

// setPause asks the engine for the chosen chord. Taking a chord waits for
// the desktop, which on macOS answers on this very goroutine, so the engine
// is asked from another and its answer shown back here.
func (p *Preferences) setPause(label string) {
	if p.filling {
		return
	}
	chord := ""
	for _, c := range append(slices.Clone(pauseChoices), p.e.Settings().PauseChord) {
		if ChordLabel(c, runtime.GOOS) == label {
			chord = c
		}
	}
	if chord == "" {
		return
	}
	setPara(p.status, []seg{{text: "Taking " + label + " for Reins…", color: colorSecondary}})
	p.off(func() {
		err := p.e.SetPauseChord(chord)
		fyne.Do(func() { p.report(err, label+" now pauses every agent.") })
	})
}

// ChordLabel writes a chord ("Control+Alt+Meta+P") the way goos does:
// "⌃⌥⌘P" on macOS, "Control+Alt+Super+P" elsewhere.
func ChordLabel(chord, goos string) string {
	parts := strings.Split(chord, "+")
	if len(parts) == 0 {
		return chord
	}
	key, mods := parts[len(parts)-1], parts[:len(parts)-1]
	if goos != "darwin" {
		for i, m := range mods {
			if m == "Meta" {
				mods[i] = "Super"
			}
		}
		return strings.Join(append(mods, key), "+")
	}
	var b strings.Builder
	for _, m := range []struct{ name, sym string }{{"Control", "⌃"}, {"Alt", "⌥"}, {"Shift", "⇧"}, {"Meta", "⌘"}} {
		if slices.Contains(mods, m.name) {
			b.WriteString(m.sym)
		}
	}
	switch key {
	case "Escape":
		key = "⎋"
	case "Enter":
		key = "↩"
	case "Backspace":
		key = "⌫"
	case "Tab":
		key = "⇥"
	case "Space":
		key = "Space"
	}
	b.WriteString(key)
	return b.String()
}

// StatusText is the line under the settings, for tests.
func (p *Preferences) StatusText() string { return p.status.String() }

// lines joins labels with commas into lines of at most about width
// characters, never splitting a label: wrapped rich text in fyne reserves
// uneven space, so the lines are made here.
func lines(labels []string, width int) []string {
	if len(labels) == 0 {
		return []string{"—"}
	}
	var out []string
	cur := ""
	for i, l := range labels {
		if i < len(labels)-1 {
			l += ","
		}
		switch {
		case cur == "":
			cur = l
		case len([]rune(cur))+1+len([]rune(l)) > width:
			out = append(out, cur)
			cur = l
		default:
			cur += " " + l
		}
	}
	return append(out, cur)
}

func durationLabels(choices []time.Duration, current time.Duration) []string {
	var out []string
	have := false
	for _, d := range choices {
		if d == current {
			have = true
		}
	}
	for _, d := range choices {
		if !have && current > 0 && current < d {
			out = append(out, words(current))
			have = true
		}
		out = append(out, words(d))
	}
	if !have && current > 0 {
		out = append(out, words(current))
	}
	return out
}

// parseWords is the inverse of words for the choices and common lengths.
func parseWords(label string, choices []time.Duration) (time.Duration, bool) {
	for _, d := range choices {
		if words(d) == label {
			return d, true
		}
	}
	var n int
	var unit string
	if _, err := fmt.Sscanf(label, "%d %s", &n, &unit); err != nil {
		return 0, false
	}
	switch strings.TrimSuffix(unit, "s") {
	case "second":
		return time.Duration(n) * time.Second, true
	case "minute":
		return time.Duration(n) * time.Minute, true
	case "hour":
		return time.Duration(n) * time.Hour, true
	}
	return 0, false
}

// words says a duration the way a person would: "30 seconds", "10 minutes",
// "1 hour".
func words(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	switch {
	case d%time.Hour == 0 && d >= time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0 && d >= time.Minute:
		return plural(int(d/time.Minute), "minute")
	default:
		return plural(int(d.Round(time.Second)/time.Second), "second")
	}
}

// allowForLabel is the popup's "Allow on this tab" button: "Allow 10 min",
// "Allow 1 hour".
func allowForLabel(d time.Duration) string {
	switch {
	case d <= 0:
		return "Allow 10 min"
	case d%time.Hour == 0:
		return "Allow " + words(d)
	case d%time.Minute == 0:
		return fmt.Sprintf("Allow %d min", int(d/time.Minute))
	}
	return "Allow " + words(d)
}
