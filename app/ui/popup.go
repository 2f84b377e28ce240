package ui

import (
	"fmt"
	"image"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// PopupSize is the approval popup's size in points (UI.md).
var PopupSize = fyne.NewSize(380, 460)

// ArmDelay is how long the Allow buttons stay inert after a request is
// shown, so that a click meant for something else cannot approve it.
const ArmDelay = time.Second

// AllowRest is the longest the popup stays away after the person allows
// input, before it shows the next request; it comes back sooner, as soon as
// the engine says the act is over ([Popup.ActDone]). The act just allowed
// fires only once Reins has left the front and the person has left the
// mouse and keyboard alone for a moment, and typing takes a while. Reins is
// on its own deny list: showing the next request before the act is over
// would put Reins back in front, and the act the person had just allowed
// would be refused or stopped. A Deny fires nothing and needs no rest.
const AllowRest = 10 * time.Second

// tickEvery is how often the countdown moves.
const tickEvery = 250 * time.Millisecond

// Answerer takes the person's decision on a pending act; core's engine is one.
type Answerer interface {
	Answer(id string, d vocab.Decision) error
}

// PlanAnswerer takes the person's answer to a plan: its steps 1 to upTo
// allowed. An Answerer without it can only allow a plan whole.
type PlanAnswerer interface {
	AnswerPlan(id string, upTo int) error
}

// PopupOptions configures [NewPopup].
type PopupOptions struct {
	Engine  Answerer      // required
	Clock   Clock         // optional: default the wall clock
	Timeout time.Duration // optional: the broker's approval timeout, for the countdown; default 30 s
	// RememberFor is how long "allow on this tab" lasts, for its button; default 10 min.
	RememberFor time.Duration // optional
	OnShow      func()        // optional: a request is on screen; show the popup's window
	// OnHide is called when no request is on screen any more: none waits,
	// or the popup rests after an Allow (see [AllowRest]); hide the window
	// and give the keyboard back.
	OnHide func() // optional
	// Hand tells the person's own click on Allow from a program's; default
	// Engine's, when it is a persondoor.Hand. Without one no Allow takes
	// effect.
	Hand persondoor.Hand // optional
	Logf func(format string, args ...any)
}

// Popup is the approval popup: one request at a time, the oldest first, with
// a counter when several wait. It decides nothing itself: Deny and the
// Allow buttons call Answer; a request leaves the queue when the engine says
// it ended (answered, timed out or withdrawn) or when it is answered here.
// After an Allow it rests, hidden, for [AllowRest] before it shows the next.
// Its methods run on fyne's goroutine.
type Popup struct {
	opts     PopupOptions
	queue    []*vocab.Request // oldest first
	shown    string           // id of the request on screen
	armed    bool
	stopArm  func() bool
	stopTick func() bool
	resting  bool   // hidden after an Allow, until the rest ends
	restFor  string // the request whose act the rest waits for

	who, counter, sentence, frame, remaining *widget.RichText
	held                                     *widget.RichText // why an act is asked about again
	// whole is the text an act types, all of it, line by line, for the
	// person to read before they allow: the sentence cuts a long text, and
	// shows a line break only as ⏎.
	whole                    *widget.RichText
	wholeArea                fyne.CanvasObject
	picture                  *canvas.Image
	pictureArea, explainArea fyne.CanvasObject
	explain                  *widget.RichText
	deny, once, tab          *widget.Button
	bar                      *countdown
	// A plan's steps, its picture with each target numbered, and how far
	// the person allows it.
	steps       *widget.RichText
	planPicture *canvas.Image
	planArea    fyne.CanvasObject
	upTo        *widget.Select
	upToN       int // the last step "Allow" allows; the plan's length by default
	content     fyne.CanvasObject
	// gate lets an Allow take effect only on the person's own click; its
	// watch runs while a request is on screen. refused says why the last
	// Allow did nothing.
	gate    *gate
	refused *widget.RichText
}

// NewPopup builds the popup's content; put [Popup.Content] in a window.
func NewPopup(opts PopupOptions) *Popup {
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	p := &Popup{opts: opts}
	var hand any = opts.Engine
	if opts.Hand != nil {
		hand = opts.Hand
	}
	// The popup takes the keyboard: a key press counts as a press, so
	// that an Allow reached with Tab and Space is told from a click.
	p.gate = newGate(hand, persondoor.PressOptions{Keys: true}, opts.Logf)
	p.refused = para()
	p.refused.Hide()
	p.who = widget.NewRichText()
	p.counter = widget.NewRichText()
	p.sentence = para()
	p.frame = para()
	p.held = para()
	p.whole = para()
	p.whole.Wrapping = fyne.TextWrapBreak
	whole := container.NewVScroll(p.whole)
	whole.SetMinSize(fyne.NewSize(0, wholeHeight))
	p.wholeArea = whole
	p.wholeArea.Hide()
	p.remaining = rich()
	p.explain = para()
	p.picture = canvas.NewImageFromImage(nil)
	p.picture.FillMode = canvas.ImageFillContain
	p.picture.ScaleMode = canvas.ImageScaleSmooth
	p.picture.CornerRadius = 8
	p.picture.SetMinSize(fyne.NewSize(pictureW*0.6, pictureH*0.6))
	p.pictureArea = p.picture
	p.explainArea = p.explain

	p.deny = widget.NewButton("Deny", func() { p.decide(vocab.Deny) })
	p.deny.Importance = widget.HighImportance
	p.once = widget.NewButton("Allow once", func() { p.decide(vocab.AllowOnce) })
	p.tab = widget.NewButton(allowForLabel(opts.RememberFor), func() { p.decide(vocab.AllowTab) })
	p.bar = newCountdown()
	p.steps = para()
	p.planPicture = canvas.NewImageFromImage(nil)
	p.planPicture.FillMode = canvas.ImageFillContain
	p.planPicture.ScaleMode = canvas.ImageScaleSmooth
	p.planPicture.CornerRadius = 8
	p.planPicture.SetMinSize(fyne.NewSize(pictureW*0.45, pictureH*0.45))
	p.planArea = container.NewBorder(p.planPicture, nil, nil, nil, container.NewVScroll(p.steps))
	p.upTo = widget.NewSelect(nil, func(s string) { p.pickUpTo(s) })
	p.upTo.Hide()
	p.planArea.Hide()

	// The mark sits by the header's first line, however many it wraps to.
	line := fyne.MeasureText("Mg", theme.TextSize(), fyne.TextStyle{Bold: true}).Height
	mark := container.NewVBox(container.New(layout.NewCustomPaddedLayout(theme.InnerPadding()+(line-9)/2, 0, 0, 0), dot(Accent, 9)))
	header := container.NewBorder(nil, nil, mark, container.NewVBox(p.counter), p.who)
	buttons := container.NewHBox(p.deny, layout.NewSpacer(), p.upTo, p.once, p.tab)
	p.content = inset(container.NewBorder(
		container.NewVBox(header, p.sentence, p.held),
		container.NewVBox(p.refused, buttons, sized(p.bar, 10, 3), p.remaining),
		nil, nil,
		container.New(layout.NewCustomPaddedLayout(0, 10, 0, 0),
			container.NewBorder(nil, container.NewVBox(p.wholeArea, p.frame), nil, nil, container.NewStack(p.pictureArea, container.NewVBox(p.explainArea), p.planArea))),
	))
	p.render()
	return p
}

// SetDurations follows a change of the person's settings: the "allow on
// this tab" button, and the countdown of requests that carry no deadline of
// their own (the broker gives each request its deadline, which a change
// does not move).
func (p *Popup) SetDurations(timeout, rememberFor time.Duration) {
	if timeout > 0 {
		p.opts.Timeout = timeout
	}
	p.opts.RememberFor = rememberFor
	p.updateButtons()
}

// Content is what the popup's window shows.
func (p *Popup) Content() fyne.CanvasObject { return p.content }

// Len is how many requests wait, shown or not.
func (p *Popup) Len() int { return len(p.queue) }

// Current is the request on screen, or nil: none waits, or the popup rests
// after an Allow.
func (p *Popup) Current() *vocab.Request {
	if len(p.queue) == 0 || p.resting {
		return nil
	}
	return p.queue[0]
}

// Resting reports whether the popup stays hidden after an Allow, for
// [AllowRest], before it shows what still waits.
func (p *Popup) Resting() bool { return p.resting }

// Refused is the line that says why the last Allow did nothing, or "".
func (p *Popup) Refused() string { return p.refused.String() }

// Armed reports whether the Allow buttons would act.
func (p *Popup) Armed() bool { return p.armed }

// Sync replaces the queue with what the engine says is pending, oldest first.
func (p *Popup) Sync(pending []vocab.Request) {
	p.queue = p.queue[:0]
	for i := range pending {
		p.queue = append(p.queue, p.stamp(&pending[i]))
	}
	p.render()
}

// Add queues a request the engine reports as waiting.
func (p *Popup) Add(r *vocab.Request) {
	for _, q := range p.queue {
		if q.ID == r.ID {
			return
		}
	}
	p.queue = append(p.queue, p.stamp(r))
	p.render()
}

// stamp gives a request that does not say when it was asked the time it
// arrived, so that its countdown runs from then and not from when it is
// first shown, which a rest may put off.
func (p *Popup) stamp(r *vocab.Request) *vocab.Request {
	if r.Asked.IsZero() {
		r.Asked = p.opts.Clock.Now()
	}
	return r
}

// End drops a request the engine reports as ended.
func (p *Popup) End(id string) {
	if p.drop(id) {
		p.render()
	}
}

// drop takes a request out of the queue and reports whether it was there.
func (p *Popup) drop(id string) bool {
	for i, q := range p.queue {
		if q.ID == id {
			p.queue = append(p.queue[:i:i], p.queue[i+1:]...)
			return true
		}
	}
	return false
}

// DenyAll denies every waiting request, shown or not: closing the popup is
// a no, like silence.
func (p *Popup) DenyAll() {
	for _, r := range p.queue {
		if err := p.opts.Engine.Answer(r.ID, vocab.Deny); err != nil {
			p.opts.Logf("answering %s: %v", r.ID, err)
		}
	}
	p.queue = p.queue[:0]
	p.render()
}

// TypedKey is the popup window's key handler: Escape and Return deny.
func (p *Popup) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape, fyne.KeyReturn, fyne.KeyEnter:
		p.decide(vocab.Deny)
	}
}

// button names the popup's buttons for tests: "deny", "once" or "tab".
func (p *Popup) button(name string) *widget.Button {
	switch name {
	case "deny":
		return p.deny
	case "once":
		return p.once
	case "tab":
		return p.tab
	}
	return nil
}

// upToLabel is the choice of how far to allow a plan of n steps: "Up to
// step k", or "All n steps".
func upToLabel(k, n int) string {
	if k == n {
		return fmt.Sprintf("All %d steps", n)
	}
	return fmt.Sprintf("Up to step %d", k)
}

// pickUpTo follows the person's choice of how far to allow the plan shown.
func (p *Popup) pickUpTo(choice string) {
	r := p.Current()
	if r == nil || r.Act.Kind != vocab.Plan {
		return
	}
	for k := 1; k <= len(r.Plan); k++ {
		if upToLabel(k, len(r.Plan)) == choice {
			p.upToN = k
		}
	}
	p.updateButtons()
}

func (p *Popup) decide(d vocab.Decision) {
	r := p.Current()
	if r == nil {
		return
	}
	if d != vocab.Deny && !p.armed {
		return // a stray click before the popup could be read
	}
	if d == vocab.AllowTab && !r.Rememberable {
		return
	}
	if d != vocab.Deny {
		if ok, why := p.gate.pass("Allow"); !ok {
			setPara(p.refused, []seg{{text: why, color: colorRed, bold: true, size: theme.SizeNameCaptionText}})
			p.refused.Show()
			return
		}
	}
	if err := p.answer(r, d); err != nil {
		p.opts.Logf("answering %s: %v", r.ID, err)
	}
	p.drop(r.ID)
	if d != vocab.Deny && r.Act.Kind.IsInput() {
		p.rest(r.ID)
	}
	p.render()
}

// answer gives the engine the person's decision on r; for a plan, Allow
// allows the steps up to the one picked.
func (p *Popup) answer(r *vocab.Request, d vocab.Decision) error {
	if r.Act.Kind != vocab.Plan || d == vocab.Deny {
		return p.opts.Engine.Answer(r.ID, d)
	}
	if pa, ok := p.opts.Engine.(PlanAnswerer); ok {
		return pa.AnswerPlan(r.ID, p.upToN)
	}
	if p.upToN == len(r.Plan) {
		return p.opts.Engine.Answer(r.ID, vocab.AllowOnce)
	}
	return fmt.Errorf("this Reins cannot allow part of a plan")
}

// ActDone ends the rest when the act the person allowed in request id is
// over.
func (p *Popup) ActDone(id string) {
	if p.resting && p.restFor == id {
		p.resting, p.restFor = false, ""
		p.render()
	}
}

// rest keeps the popup hidden until the act allowed in request id is over,
// or AllowRest at most, then shows the oldest request still waiting, if any. Requests that arrive meanwhile wait their turn;
// those that end meanwhile leave the queue unseen.
func (p *Popup) rest(id string) {
	// One rest at a time: nothing is on screen to allow while it lasts.
	p.resting, p.restFor = true, id
	p.opts.Clock.AfterFunc(AllowRest, func() {
		fyne.Do(func() {
			if p.resting && p.restFor == id {
				p.resting, p.restFor = false, ""
				p.render()
			}
		})
	})
}

// render shows the oldest request, re-arming when it is a new one, or hides
// the popup when nothing is to be on screen.
func (p *Popup) render() {
	r := p.Current()
	if r == nil {
		if p.shown != "" {
			p.shown = ""
			p.stopTimers()
			p.gate.stop()
			p.armed = false
			p.updateButtons()
			if p.opts.OnHide != nil {
				p.opts.OnHide()
			}
		}
		return
	}
	if r.ID != p.shown {
		p.shown = r.ID
		p.stopTimers()
		p.armed = false
		id := r.ID
		p.stopArm = p.opts.Clock.AfterFunc(ArmDelay, func() {
			fyne.Do(func() {
				if p.shown == id {
					p.armed = true
					p.updateButtons()
				}
			})
		})
		p.fill(r)
		setRich(p.refused)
		p.refused.Hide()
		// Presses from now on: none made before the request showed
		// answers it.
		p.gate.start()
		p.tick()
		if p.opts.OnShow != nil {
			p.opts.OnShow()
		}
	}
	p.updateCounter()
	p.updateButtons()
}

func (p *Popup) stopTimers() {
	if p.stopArm != nil {
		p.stopArm()
		p.stopArm = nil
	}
	if p.stopTick != nil {
		p.stopTick()
		p.stopTick = nil
	}
}

func (p *Popup) updateCounter() {
	if len(p.queue) > 1 {
		setRich(p.counter, seg{text: fmt.Sprintf("1 of %d", len(p.queue)), color: colorSecondary, size: theme.SizeNameCaptionText, bold: true})
	} else {
		setRich(p.counter)
	}
}

func (p *Popup) updateButtons() {
	r := p.Current()
	for _, b := range []*widget.Button{p.once, p.tab} {
		if p.armed && r != nil {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	if r != nil && r.Rememberable {
		p.tab.SetText(allowForLabel(p.opts.RememberFor))
		p.tab.Show()
	} else {
		p.tab.Hide()
	}
	switch {
	case r != nil && r.Act.Kind == vocab.Connect:
		p.once.SetText("Allow")
	case r != nil && r.Act.Kind == vocab.Plan && p.upToN == len(r.Plan):
		p.once.SetText(fmt.Sprintf("Allow all %d steps", len(r.Plan)))
	case r != nil && r.Act.Kind == vocab.Plan:
		p.once.SetText(fmt.Sprintf("Allow steps 1–%d", p.upToN))
	default:
		p.once.SetText("Allow once")
	}
	if r != nil && r.Act.Kind == vocab.Plan && len(r.Plan) > 1 {
		p.upTo.Show()
	} else {
		p.upTo.Hide()
	}
}

// tick moves the countdown and schedules the next move. Reaching zero does
// nothing here: the broker denies, and its end event closes the request.
func (p *Popup) tick() {
	r := p.Current()
	if r == nil {
		return
	}
	left, total := p.remainingFor(r)
	p.bar.set(float32(left) / float32(total))
	secs := int((left + time.Second - 1) / time.Second)
	setRich(p.remaining, seg{text: fmt.Sprintf("Denied automatically in %d:%02d", secs/60, secs%60), color: colorSecondary, size: theme.SizeNameCaptionText})
	if left <= 0 {
		return
	}
	id := r.ID
	p.stopTick = p.opts.Clock.AfterFunc(tickEvery, func() {
		fyne.Do(func() {
			if p.shown == id {
				p.tick()
			}
		})
	})
}

// remainingFor is how long the person has left to answer r, out of how long
// they were given.
func (p *Popup) remainingFor(r *vocab.Request) (left, total time.Duration) {
	now := p.opts.Clock.Now()
	if r.Asked.IsZero() {
		r.Asked = now
	}
	if r.Deadline.IsZero() {
		r.Deadline = r.Asked.Add(p.opts.Timeout)
	}
	total, left = r.Deadline.Sub(r.Asked), r.Deadline.Sub(now)
	if total <= 0 {
		total = p.opts.Timeout
	}
	return max(left, 0), total
}

// fill writes a request into the popup's widgets.
func (p *Popup) fill(r *vocab.Request) {
	setRich(p.who, whoSegs(r.Agent)...)
	// A header too long for its line wraps rather than being cut: the
	// process it starts with is what the person checks. One that fits stays
	// one line (a wrapping text would hold room for a second).
	p.who.Wrapping = fyne.TextWrapOff
	if headerWidth(p.who.Segments) > PopupSize.Width-110 {
		p.who.Wrapping = fyne.TextWrapWord
	}
	p.who.Refresh()

	t := r.Target
	small := func(s string) []seg { return []seg{{text: s, color: colorSecondary, size: theme.SizeNameCaptionText}} }
	if r.Act.Kind == vocab.Plan {
		p.fillPlan(r)
		return
	}
	p.planArea.Hide()
	var lines [][]seg
	switch {
	case r.Act.Kind == vocab.Connect:
		name := "this program"
		if n := plain.Text(r.Agent.Name, plain.AgentMax); n != "" {
			name = plain.Quote(n, 0)
		}
		lines = [][]seg{{{text: "Let " + name + " use Reins?", size: sizeAct, bold: true}}, small("First connection from this program")}
	case r.Act.Kind == vocab.Navigate:
		// Cleaned first, so that no control or bidi character keeps the
		// origin from being told apart and emphasised.
		origin, rest := splitURL(plain.Text(r.Act.URL, 0))
		origin = plain.Text(origin, plain.URLMax)
		rest = plain.Text(rest, max(plain.URLMax-utf8.RuneCountInString(origin), 12))
		lines = [][]seg{{{text: "Open ", size: sizeAct, bold: true}, {text: origin, size: sizeAct, bold: true, color: colorAccent}, {text: rest, size: sizeAct, color: colorSecondary}},
			small(targetLine(r))}
	default:
		lines = [][]seg{{{text: r.Sentence(), size: sizeAct, bold: true}}, small(targetLine(r))}
	}
	if w := riskLine(r); w != "" {
		lines = append(lines, []seg{{text: w, color: colorRed, bold: true, size: theme.SizeNameCaptionText}})
	}
	if claim := plain.Claim(t.Claim); claim != "" {
		lines = append(lines, []seg{{text: claim, color: colorSecondary, size: theme.SizeNameCaptionText, bold: true}},
			small("Reins has not checked what the agent says; what Reins sees there is above."))
	}
	setPara(p.sentence, lines...)
	if lines := wholeText(r.Act); lines != nil {
		setPara(p.whole, lines...)
		p.wholeArea.Show()
	} else {
		setRich(p.whole)
		p.wholeArea.Hide()
	}

	var img image.Image
	if r.Act.Kind != vocab.Connect {
		var b *box
		if r.Box != nil {
			b = requestBox(r.Box.X, r.Box.Y, r.Box.W, r.Box.H)
		}
		img = renderPicture(r.Picture, b, r.Sketch)
	}
	if img != nil {
		p.picture.Image = img
		p.picture.Refresh()
		p.pictureArea.Show()
		p.explainArea.Hide()
	} else {
		p.pictureArea.Hide()
		p.explainArea.Show()
		setRich(p.explain, explainSegs(r)...)
	}

	if r.Busy > 0 {
		setPara(p.held, []seg{{text: "Asked again: ", color: colorAmber, bold: true, size: theme.SizeNameCaptionText},
			{text: "you were using the mouse or keyboard when this was about to happen, so nothing was done.", color: colorSecondary, size: theme.SizeNameCaptionText}})
		p.held.Show()
	} else {
		setRich(p.held)
		p.held.Hide()
	}

	var under []seg
	if img != nil && len(r.Picture) == 0 {
		under = append(under, seg{text: "Drawn from the page's layout: Chrome gave no picture", color: colorSecondary, size: theme.SizeNameCaptionText})
	}
	if t.FrameOrigin != "" {
		if under != nil {
			under = append(under, seg{text: "  ·  ", color: colorSecondary, size: theme.SizeNameCaptionText})
		}
		under = append(under, seg{text: "in a frame from ", color: colorSecondary, size: theme.SizeNameCaptionText},
			seg{text: plain.Text(displayOrigin(t.FrameOrigin), plain.URLMax), size: theme.SizeNameCaptionText, bold: true})
	}
	if under != nil {
		setRich(p.frame, under...)
		p.frame.Show()
	} else {
		setRich(p.frame)
		p.frame.Hide()
	}
}

// fillPlan writes a plan into the popup: what it is, the agent's own
// summary labelled as the agent's, the picture with each step's target
// outlined and numbered, and every step in the sentences of a single
// prompt (secret fields as lengths), those always asked on their own
// marked with their warning.
func (p *Popup) fillPlan(r *vocab.Request) {
	small := func(s string) []seg { return []seg{{text: s, color: colorSecondary, size: theme.SizeNameCaptionText}} }
	lines := [][]seg{{{text: fmt.Sprintf("Run a plan of %d steps", len(r.Plan)), size: sizeAct, bold: true}}, small(targetLine(r))}
	if claim := plain.Claim(r.Act.Text); claim != "" {
		lines = append(lines, []seg{{text: claim, color: colorSecondary, size: theme.SizeNameCaptionText, bold: true}})
	}
	setPara(p.sentence, lines...)

	var steps [][]seg
	for i, st := range r.Plan {
		steps = append(steps, []seg{{text: fmt.Sprintf("%d  ", i+1), bold: true, color: colorAccent}, {text: plain.Text(st.Sentence(), 0)}})
		steps = append(steps, wholeText(st.Act)...)
		if w := plain.Text(st.Risk, plain.DetailMax); w != "" {
			steps = append(steps, []seg{{text: "⚠ asked on its own: " + w, color: colorRed, bold: true, size: theme.SizeNameCaptionText}})
		}
		if claim := plain.Claim(st.Reason); claim != "" {
			steps = append(steps, small(claim))
		}
	}
	steps = append(steps, small("Each step runs only if it still matches this list when its turn comes; anything else is asked on its own."))
	setPara(p.steps, steps...)

	boxes := make([]*box, len(r.Plan))
	for i, st := range r.Plan {
		if st.Box != nil {
			boxes[i] = requestBox(st.Box.X, st.Box.Y, st.Box.W, st.Box.H)
		}
	}
	if img := renderPlanPicture(r.Picture, boxes, r.Sketch); img != nil {
		p.planPicture.Image = img
		p.planPicture.Refresh()
		p.planPicture.Show()
	} else {
		p.planPicture.Hide()
	}
	p.pictureArea.Hide()
	p.explainArea.Hide()
	p.planArea.Show()
	setRich(p.held)
	p.held.Hide()
	setRich(p.frame)
	p.frame.Hide()

	opts := make([]string, len(r.Plan))
	for k := range opts {
		opts[k] = upToLabel(k+1, len(r.Plan))
	}
	p.upToN = len(r.Plan)
	p.upTo.Options = opts
	p.upTo.SetSelected(opts[len(opts)-1])
}

// wholeHeight is the height of the box that shows a long or many-lined
// text whole; it scrolls.
const wholeHeight = 72

// wholeText is, for an act that types text the sentence cannot show whole
// (longer than its quote, or with line breaks, each an Enter), the whole
// text line by line, each line break shown as ⏎; nil for any other act,
// and never for a secret field, whose text no one is shown.
func wholeText(a vocab.Act) [][]seg {
	typing := a.Kind == vocab.Type || a.Kind == vocab.Dialog && a.Text != ""
	if !typing || a.Secret || a.Text == "" {
		return nil
	}
	if vocab.LineBreaks(a.Text) == 0 && utf8.RuneCountInString(a.Text) <= plain.TypedMax {
		return nil
	}
	lines := [][]seg{{{text: fmt.Sprintf("The whole text, %d characters; ⏎ is Enter:", utf8.RuneCountInString(a.Text)), color: colorSecondary, size: theme.SizeNameCaptionText, bold: true}}}
	for _, l := range plain.TypedLines(a.Text) {
		lines = append(lines, []seg{{text: l, mono: true, size: theme.SizeNameCaptionText}})
	}
	return lines
}

// riskLine is the warning of an act always asked on its own, shown in red
// under the act, or "". The words are Reins' own, from the broker's risk
// table, and rendered all the same, as all text the popup shows is.
func riskLine(r *vocab.Request) string {
	if w := plain.Text(r.Risk, plain.DetailMax); w != "" {
		return "⚠ " + w
	}
	return ""
}

func explainSegs(r *vocab.Request) []seg {
	small := func(s string) seg { return seg{text: s, color: colorSecondary} }
	switch r.Act.Kind {
	case vocab.Connect:
		return []seg{small("This program has not used Reins before. If you allow it, it may ask you for acts until Reins quits; each act on a tab still waits for your answer here.")}
	case vocab.Key, vocab.Type:
		return []seg{small("The keys go to the focused field of the tab shown above; there is no picture of it.")}
	case vocab.Navigate:
		return []seg{small("The tab leaves the page it shows now. A tab shared on one site is unshared when it arrives on another.")}
	}
	return []seg{small("There is no picture of the target for this act.")}
}

// whoSegs is the popup's header for an agent: the real process first, in
// full and emphasised, then the name the agent gave itself, quoted and cut
// to a few words.
func whoSegs(a vocab.Agent) []seg {
	if a.PID == 0 {
		return []seg{{text: a.Label(), bold: true}}
	}
	segs := []seg{{text: plain.Process(a.Exe, a.PID), bold: true}}
	if name := plain.Text(a.Name, plain.AgentMax); name != "" {
		segs = append(segs, seg{text: "  ·  " + plain.Quote(name, 0), color: colorSecondary})
	}
	return segs
}

// targetLine is "role · origin · “tab title”" for a request's target; for
// a desktop act, "window “title” · Desktop", the window as Reins sees it
// under the point. Page text in it is rendered: a role that is not a plain
// token and the title are quoted.
func targetLine(r *vocab.Request) string {
	t := r.Target
	var parts []string
	if role := plain.Role(t.Role); role != "" {
		parts = append(parts, role)
	}
	if t.Desktop {
		if t.Window != "" {
			parts = append(parts, "window "+plain.Quote(t.Window, plain.TitleMax))
		}
		parts = append(parts, "Desktop")
	} else if t.Origin != "" {
		parts = append(parts, plain.Text(displayOrigin(t.Origin), plain.URLMax))
	}
	if t.TabTitle != "" {
		parts = append(parts, plain.Quote(t.TabTitle, plain.TitleMax))
	}
	return strings.Join(parts, "  ·  ")
}

// displayOrigin drops "https://"; any other scheme stays, so that an
// insecure or odd origin stands out.
func displayOrigin(o string) string {
	if rest, ok := strings.CutPrefix(o, "https://"); ok {
		return rest
	}
	return o
}

// splitURL returns the origin of u as shown, and the rest of it.
func splitURL(u string) (origin, rest string) {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return u, ""
	}
	origin = displayOrigin(p.Scheme + "://" + p.Host)
	rest = strings.TrimPrefix(u, p.Scheme+"://"+p.Host)
	return origin, rest
}

// countdown is a thin bar that empties as the time to answer runs out.
type countdown struct {
	widget.BaseWidget
	frac float32
	fill *canvas.Rectangle
}

func newCountdown() *countdown {
	c := &countdown{frac: 1}
	c.ExtendBaseWidget(c)
	return c
}

func (c *countdown) set(frac float32) {
	if frac < 0 {
		frac = 0
	}
	if frac > 1 {
		frac = 1
	}
	c.frac = frac
	c.Refresh()
}

func (c *countdown) CreateRenderer() fyne.WidgetRenderer {
	track := canvas.NewRectangle(themeColor(colorHairline))
	track.CornerRadius = 1.5
	c.fill = canvas.NewRectangle(themeColor(colorAccent))
	c.fill.CornerRadius = 1.5
	return &countdownRenderer{c: c, track: track}
}

type countdownRenderer struct {
	c     *countdown
	track *canvas.Rectangle
	size  fyne.Size
}

func (r *countdownRenderer) Layout(s fyne.Size) {
	r.size = s
	r.track.Resize(s)
	r.c.fill.Resize(fyne.NewSize(s.Width*r.c.frac, s.Height))
}
func (r *countdownRenderer) MinSize() fyne.Size { return fyne.NewSize(10, 3) }
func (r *countdownRenderer) Refresh() {
	r.Layout(r.size)
	r.track.Refresh()
	r.c.fill.Refresh()
}
func (r *countdownRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.c.fill}
}
func (r *countdownRenderer) Destroy() {}

// headerWidth is how wide the header's runs are on one line.
func headerWidth(segs []widget.RichTextSegment) float32 {
	var w float32
	for _, s := range segs {
		if t, ok := s.(*widget.TextSegment); ok {
			w += fyne.MeasureText(t.Text, theme.TextSize(), t.Style.TextStyle).Width
		}
	}
	return w
}
