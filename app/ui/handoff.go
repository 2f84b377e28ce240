package ui

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// HandoffSize is the hand-off window's size in points.
var HandoffSize = fyne.NewSize(380, 420)

// HandoffDoor is what the hand-off window needs of the engine; every
// persondoor.Door has it.
type HandoffDoor interface {
	Handoffs() []persondoor.Handoff
	FinishHandoff(id string, done bool, confirm string) error
}

// HandoffOptions configures [NewHandoffPanel].
type HandoffOptions struct {
	Engine HandoffDoor // required
	Clock  Clock       // optional: default the wall clock
	OnShow func()      // optional: a hand-off is on screen; show the window
	OnHide func()      // optional: none is in progress; hide the window
	// Hand tells the person's own click on Done from a program's; default
	// Engine's, when it is a persondoor.Hand. Without one Done does
	// nothing (Stop always works).
	Hand persondoor.Hand // optional
	Logf func(format string, args ...any)
}

// HandoffPanel is the window of a tab an agent handed to the person for a
// step of their own: who asks, what the agent says, the tab and its site,
// and the person's two buttons, Done and Stop. Done on another site than
// the tab was shared on first asks the person to confirm that site. It
// shows one hand-off at a time, the oldest first. Done, and the
// confirmation, arm after [ArmDelay], as the popup's Allow buttons do;
// Stop, which gives the agent nothing, is always ready. Its methods run on
// fyne's goroutine.
type HandoffPanel struct {
	opts       HandoffOptions
	list       []persondoor.Handoff // oldest first, the one shown first
	shown      string               // id on screen
	confirming string               // the site Done waits for the person to confirm, for the one shown
	armed      bool
	stopArm    func() bool
	problem    string // why the last button did nothing

	who, counter, sentence, reason, where, note *widget.RichText
	done, stop, confirm, back                   *widget.Button
	buttons                                     *fyne.Container
	content                                     fyne.CanvasObject
	// gate lets Done and the confirmation take effect only on the
	// person's own click. Its watch reads buttons alone: while the window
	// shows, the person types in Chrome, a password perhaps, and no key of
	// theirs is read.
	gate *gate
}

// NewHandoffPanel builds the hand-off window's content; put
// [HandoffPanel.Content] in a window.
func NewHandoffPanel(opts HandoffOptions) *HandoffPanel {
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	p := &HandoffPanel{opts: opts}
	var hand any = opts.Engine
	if opts.Hand != nil {
		hand = opts.Hand
	}
	p.gate = newGate(hand, persondoor.PressOptions{}, opts.Logf)
	p.who = widget.NewRichText()
	p.who.Wrapping = fyne.TextWrapWord
	p.counter = widget.NewRichText()
	p.sentence = para()
	p.reason = para()
	p.where = para()
	p.note = para()
	p.done = widget.NewButton("Done", func() { p.press(true) })
	p.done.Importance = widget.HighImportance
	p.stop = widget.NewButton("Stop", func() { p.press(false) })
	p.confirm = widget.NewButton("Share on the new site", p.pressConfirm)
	p.confirm.Importance = widget.HighImportance
	p.back = widget.NewButton("Back", func() { p.confirming = ""; p.fill() })
	p.buttons = container.NewHBox(p.stop, p.back, layout.NewSpacer(), p.done, p.confirm)
	header := container.NewBorder(nil, nil, dot(Accent, 9), container.NewVBox(p.counter), p.who)
	p.content = inset(container.NewBorder(
		container.NewVBox(header, p.sentence, p.reason, p.where, p.note),
		p.buttons, nil, nil,
	))
	p.fill()
	return p
}

// Content is what the window shows.
func (p *HandoffPanel) Content() fyne.CanvasObject { return p.content }

// Len is how many hand-offs are in progress.
func (p *HandoffPanel) Len() int { return len(p.list) }

// Current is the hand-off on screen, or nil.
func (p *HandoffPanel) Current() *persondoor.Handoff {
	if len(p.list) == 0 {
		return nil
	}
	return &p.list[0]
}

// Problem is the line that says why the last button did nothing, or "".
func (p *HandoffPanel) Problem() string { return p.problem }

// Confirming is the site Done waits for the person to confirm, or "".
func (p *HandoffPanel) Confirming() string { return p.confirming }

// Armed reports whether Done and the confirmation would act.
func (p *HandoffPanel) Armed() bool { return p.armed }

// Sync re-reads the hand-offs from the engine, keeping the one on screen
// first while it lasts.
func (p *HandoffPanel) Sync() {
	list := p.opts.Engine.Handoffs()
	for i, h := range list {
		if h.ID == p.shown && i > 0 {
			list = append(append([]persondoor.Handoff{h}, list[:i]...), list[i+1:]...)
			break
		}
	}
	p.list = list
	p.render()
}

// Show puts hand-off id on screen, and shows the window.
func (p *HandoffPanel) Show(id string) {
	p.Sync()
	for i, h := range p.list {
		if h.ID == id && i > 0 {
			p.list = append(append([]persondoor.Handoff{h}, p.list[:i]...), p.list[i+1:]...)
		}
	}
	p.render()
	if p.Current() != nil && p.opts.OnShow != nil {
		p.opts.OnShow()
	}
}

// Finish is the person's Done (done) or Stop on hand-off id, from the
// window or the tray. A Done that needs the site on screen confirmed puts
// the hand-off on screen with the question.
func (p *HandoffPanel) Finish(id string, done bool) {
	err := p.opts.Engine.FinishHandoff(id, done, "")
	var co *persondoor.ConfirmOriginError
	switch {
	case errors.As(err, &co):
		p.Show(id)
		if c := p.Current(); c != nil && c.ID == id {
			p.confirming = co.Now
			p.problem = ""
			p.arm()
			p.fill()
		}
		return
	case err != nil:
		p.opts.Logf("ending hand-off %s: %v", id, err)
		p.problem = plain.Text(err.Error(), plain.DetailMax)
	default:
		p.problem = ""
	}
	p.Sync()
}

func (p *HandoffPanel) press(done bool) {
	h := p.Current()
	if h == nil || (done && !p.armed) {
		return
	}
	if done && !p.personsClick("Done") {
		return
	}
	p.Finish(h.ID, done)
}

// personsClick reports whether the press on control was the person's own
// click; if not, the window says why.
func (p *HandoffPanel) personsClick(control string) bool {
	ok, why := p.gate.pass(control)
	if !ok {
		p.problem = why
		p.fill()
	}
	return ok
}

func (p *HandoffPanel) pressConfirm() {
	h := p.Current()
	if h == nil || p.confirming == "" || !p.armed {
		return
	}
	if !p.personsClick(p.confirm.Text) {
		return
	}
	site := p.confirming
	if err := p.opts.Engine.FinishHandoff(h.ID, true, site); err != nil {
		var co *persondoor.ConfirmOriginError
		if errors.As(err, &co) {
			// The tab moved on again while the person read the question.
			p.confirming = co.Now
			p.problem = "The tab moved on to another site; check it again."
			p.arm()
			p.fill()
			return
		}
		p.opts.Logf("ending hand-off %s: %v", h.ID, err)
		p.problem = plain.Text(err.Error(), plain.DetailMax)
	} else {
		p.problem = ""
	}
	p.Sync()
}

// button names the window's buttons for tests: "done", "stop", "confirm"
// or "back".
func (p *HandoffPanel) button(name string) *widget.Button {
	switch name {
	case "done":
		return p.done
	case "stop":
		return p.stop
	case "confirm":
		return p.confirm
	case "back":
		return p.back
	}
	return nil
}

func (p *HandoffPanel) render() {
	h := p.Current()
	if h == nil {
		if p.shown != "" {
			p.shown, p.confirming, p.problem = "", "", ""
			p.gate.stop()
			p.disarm()
			p.fill()
			if p.opts.OnHide != nil {
				p.opts.OnHide()
			}
		}
		return
	}
	if h.ID != p.shown {
		p.shown, p.confirming = h.ID, ""
		p.gate.start()
		p.arm()
		if p.opts.OnShow != nil {
			p.opts.OnShow()
		}
	}
	p.fill()
}

func (p *HandoffPanel) arm() {
	p.disarm()
	id, site := p.shown, p.confirming
	p.stopArm = p.opts.Clock.AfterFunc(ArmDelay, func() {
		fyne.Do(func() {
			if p.shown == id && p.confirming == site {
				p.armed = true
				p.fillButtons()
			}
		})
	})
}

func (p *HandoffPanel) disarm() {
	if p.stopArm != nil {
		p.stopArm()
		p.stopArm = nil
	}
	p.armed = false
}

// fill writes the hand-off on screen into the window. Everything the agent
// and the page wrote is rendered: the reason as the agent's words, the
// title quoted, the sites cleaned.
func (p *HandoffPanel) fill() {
	small := func(s string) []seg { return []seg{{text: s, color: colorSecondary, size: theme.SizeNameCaptionText}} }
	h := p.Current()
	if h == nil {
		setRich(p.who)
		setRich(p.counter)
		setPara(p.sentence)
		setPara(p.reason)
		setPara(p.where)
		setPara(p.note)
		p.fillButtons()
		p.content.Refresh()
		return
	}
	setRich(p.who, whoSegs(h.Agent)...)
	if len(p.list) > 1 {
		setRich(p.counter, seg{text: fmt.Sprintf("1 of %d", len(p.list)), color: colorSecondary, size: theme.SizeNameCaptionText, bold: true})
	} else {
		setRich(p.counter)
	}
	shared := plain.Text(displayOrigin(h.Origin), plain.URLMax)
	now := plain.Text(displayOrigin(h.Now), plain.URLMax)
	title := plain.Quote(h.Title, plain.TitleMax)
	if p.confirming != "" {
		site := plain.Text(displayOrigin(p.confirming), plain.URLMax)
		setPara(p.sentence, []seg{{text: "The tab now shows ", size: sizeAct, bold: true}, {text: site, size: sizeAct, bold: true, color: colorAccent}})
		setPara(p.reason, small("It was shared on "+orNone(shared)+"."))
		setPara(p.where, []seg{{text: "Share it on " + site + " from now on? The agent could then read it there, and ask to act on it.", size: theme.SizeNameCaptionText}})
		p.confirm.SetText("Share on " + plain.Text(displayOrigin(p.confirming), tabOriginMax))
	} else {
		setPara(p.sentence, []seg{{text: "Your turn on this tab", size: sizeAct, bold: true}})
		reason := []seg{{text: "The agent has not said what to do.", color: colorSecondary, size: theme.SizeNameCaptionText}}
		if c := plain.Claim(h.Reason); c != "" {
			reason = []seg{{text: c, bold: true}}
		}
		setPara(p.reason, reason, small("These are the agent's words; Reins has not checked them."))
		if h.Moved() {
			setPara(p.where,
				[]seg{{text: "Now on " + orNone(now) + "  ·  " + title, size: theme.SizeNameCaptionText, bold: true}},
				small("Shared on "+orNone(shared)+". Agents cannot read or act on the tab while it shows another site."))
		} else {
			setPara(p.where, small(orNone(shared)+"  ·  "+title))
		}
	}
	note := [][]seg{small("Agents cannot act on this tab until you press Done. Stop ends the hand-off; if the tab shows another site then, it stops being shared.")}
	if p.confirming != "" {
		note = nil
	}
	if p.problem != "" {
		note = append(note, []seg{{text: p.problem, color: colorRed, size: theme.SizeNameCaptionText}})
	}
	setPara(p.note, note...)
	p.fillButtons()
	// The texts' heights follow their new words only once laid out again.
	p.content.Refresh()
}

func (p *HandoffPanel) fillButtons() {
	h := p.Current()
	asking := p.confirming != ""
	for b, show := range map[*widget.Button]bool{p.stop: !asking, p.done: !asking, p.back: asking, p.confirm: asking} {
		if show {
			b.Show()
		} else {
			b.Hide()
		}
	}
	for _, b := range []*widget.Button{p.done, p.confirm} {
		if h != nil && p.armed {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	if h != nil {
		p.stop.Enable()
	} else {
		p.stop.Disable()
	}
}

func orNone(s string) string {
	if s == "" {
		return "no web page"
	}
	return s
}

// Handoff is the hand-off window's panel, for tests that drive it.
func (u *UI) Handoff() *HandoffPanel { return u.handoff }

// HandoffWindow is the hand-off window once a hand-off showed it, else nil.
func (u *UI) HandoffWindow() fyne.Window { return u.handWin }

// showHandoff shows the hand-off window. It does not take the keyboard:
// the person's step is in Chrome. Closing it only hides it; the hand-off
// goes on, and the tray has it.
func (u *UI) showHandoff() {
	if u.handWin == nil {
		w := u.app.NewWindow("Reins — your turn")
		w.SetContent(u.handoff.Content())
		w.Resize(HandoffSize)
		w.SetFixedSize(true)
		w.SetCloseIntercept(u.hideHandoff)
		u.handWin = w
	}
	u.handWin.Show()
	u.handUp = true
}

func (u *UI) hideHandoff() {
	if u.handWin == nil || !u.handUp {
		return
	}
	u.handWin.Hide()
	u.handUp = false
}

// handoffItems is the tray's "Your turn" submenu: for each tab an agent
// handed to the person, its name, the agent's words, and Done and Stop. A
// Done that needs the new site confirmed opens the hand-off window.
func handoffItems(list []persondoor.Handoff, a TrayActions) []Item {
	if len(list) == 0 {
		return nil
	}
	var kids []Item
	for i, h := range list {
		if i > 0 {
			kids = append(kids, Item{Separator: true})
		}
		tab := TabLabel(vocab.TabInfo{Title: h.Title, Origin: h.Now})
		kids = append(kids, Item{Label: tab, Disabled: true})
		if c := plain.Claim(h.Reason); c != "" {
			kids = append(kids, Item{Label: plain.Text(c, tabTitleMax+tabOriginMax), Disabled: true})
		}
		done := "Done"
		if h.Moved() {
			done = "Done… (the tab is on another site now)"
		}
		kids = append(kids,
			Item{Label: done, Do: func() {
				if a.Handoff != nil {
					a.Handoff(h.ID, true)
				}
			}},
			Item{Label: "Stop", Do: func() {
				if a.Handoff != nil {
					a.Handoff(h.ID, false)
				}
			}},
			Item{Label: "Show…", Do: func() {
				if a.ShowHandoff != nil {
					a.ShowHandoff(h.ID)
				}
			}})
	}
	return []Item{{Label: fmt.Sprintf("Your turn (%d)", len(list)), Children: kids}, {Separator: true}}
}
