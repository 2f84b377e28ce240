package executor

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/keychord"
	"github.com/reins-app/reins/vocab"
)

// point is a place on screen in DIP.
type point struct{ X, Y float64 }

// checked is a ticket that passed every check that needs no screen: what
// every executor fires from.
type checked struct {
	act     vocab.Act
	landing audit.Landing
	chord   chord   // Key
	points  []point // where the pointer goes, in order; none for Key
	keys    []chord // Type: the text, key by key
	clear   []chord // Type: select all, then delete
	submit  *chord  // Type: Enter after the text
	// desktop: a desktop act, which lands in no web browser ([denylist.Browsers]).
	desktop bool
}

// check refuses a ticket no executor may fire, before anything is asked of
// the screen: an invalid ticket, an act that is not OS input, a chord with a
// key that does not exist, text no key types.
func check(t audit.Ticket) (checked, error) {
	if !t.Valid() {
		return checked{}, ErrInvalid
	}
	c := checked{act: dialogKeys(t.Act()), landing: t.Landing(), desktop: t.Approved().Request().Target.Desktop}
	here := point{c.landing.X, c.landing.Y}
	switch k := c.act.Kind; {
	case k.AtPoint():
		c.points = []point{here}
	case k == vocab.Drag:
		c.points = []point{here, {c.landing.X2, c.landing.Y2}}
	case k == vocab.Key:
		ch, err := parseChord(c.act.Keys)
		if err != nil {
			return checked{}, err
		}
		c.chord = ch
	case k == vocab.Type:
		if err := typeable(c.act.Text); err != nil {
			return checked{}, err
		}
		// A plan at the origin means "type into whatever has focus": no
		// element lives in the corner of the screen, and clicking there
		// opens some desktops' overview.
		if here != (point{}) {
			c.points = []point{here}
		}
		c.keys = textKeys(c.act.Text)
		if c.act.Clear {
			c.clear = []chord{{mods: selectAllMod(), char: 'a'}, {name: keyBackspace}}
		}
		if c.act.Submit {
			c.submit = &chord{name: keyEnter}
		}
	default:
		return checked{}, fmt.Errorf("%w: %q is not input an executor fires", ErrUnsupported, c.act.Kind)
	}
	for _, p := range c.points {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
			return checked{}, fmt.Errorf("%w: the plan's point (%g, %g) is not a place", ErrOffScreen, p.X, p.Y)
		}
	}
	return c, nil
}

// IntoViewStep is one step of an act whose target is first scrolled into view
// (vocab.Act.Reach), fired under the act's one ticket: a burst of wheel
// notches over a point, or, with no notches, the act itself at the point
// where its target was found once it showed. The caller finds each point
// afresh; each step goes through every check an act does.
type IntoViewStep struct {
	X, Y   float64 // DIP
	DX, DY int     // wheel notches, right and down positive; both 0: the act itself
}

// MaxIntoViewNotches is the most wheel notches one step of a scroll into view turns along
// each axis.
const MaxIntoViewNotches = 40

type intoViewKey struct{}

// WithIntoViewStep returns ctx carrying s, for Fire to fire that step of the
// ticket's act. A ticket whose act has Reach fires only step by step, and a
// step only under such a ticket.
func WithIntoViewStep(ctx context.Context, s IntoViewStep) context.Context {
	return context.WithValue(ctx, intoViewKey{}, s)
}

// IntoViewStepOf is the reach step ctx carries, if any: for a recorder or a
// test to see which step of a reach act is firing.
func IntoViewStepOf(ctx context.Context) (IntoViewStep, bool) {
	s, ok := ctx.Value(intoViewKey{}).(IntoViewStep)
	return s, ok
}

// stepped turns c into the reach step ctx carries, or refuses a step that
// does not belong to c's act.
func stepped(ctx context.Context, c checked) (checked, error) {
	st, ok := IntoViewStepOf(ctx)
	switch {
	case !ok && !c.act.Reach:
		return c, nil
	case !ok:
		return checked{}, fmt.Errorf("%w: an act that scrolls its target into view fires step by step", ErrInvalid)
	case !c.act.Reach:
		return checked{}, fmt.Errorf("%w: a reach step under a ticket whose act does not scroll", ErrInvalid)
	}
	if abs(st.DX) > MaxIntoViewNotches || abs(st.DY) > MaxIntoViewNotches {
		return checked{}, fmt.Errorf("%w: %d, %d wheel notches is more than one step turns (%d)", ErrInvalid, st.DX, st.DY, MaxIntoViewNotches)
	}
	p := point{st.X, st.Y}
	if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
		return checked{}, fmt.Errorf("%w: the step's point (%g, %g) is not a place", ErrOffScreen, p.X, p.Y)
	}
	if st.DX != 0 || st.DY != 0 {
		return checked{act: vocab.Act{Kind: vocab.Scroll, DX: st.DX, DY: st.DY}, landing: c.landing, points: []point{p}}, nil
	}
	c.points = []point{p}
	return c, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Witness says whether the pointer, sent to an act's point (x, y in DIP),
// is over the act's target, from something that does not share the
// arithmetic that found the point: the target's own page, say, from the
// pointer events it saw. A nil error lets the act press there.
type Witness func(ctx context.Context, x, y float64) error

type witnessKey struct{}

// WithWitness returns ctx carrying w: an act fired under it that presses,
// turns the wheel or drags at a point (Click, DoubleClick, RightClick,
// Scroll, Drag, and the click that focuses a field for Type) first moves
// the pointer there, asks w, and goes on only when w says yes; otherwise it
// stops with nothing pressed, puts the pointer back and returns w's error
// wrapped in ErrNotThere. A pointer already at the point is moved off it
// and back first, so that the page sees it arrive.
func WithWitness(ctx context.Context, w Witness) context.Context {
	return context.WithValue(ctx, witnessKey{}, w)
}

func witnessOf(ctx context.Context) Witness {
	w, _ := ctx.Value(witnessKey{}).(Witness)
	return w
}

// FocusWitness waits, at most within, until the keyboard focus is in the
// act's target as its own page sees it, and says whether it got there.
type FocusWitness func(ctx context.Context, within time.Duration) (bool, error)

type focusWitnessKey struct{}

// WithFocusWitness returns ctx carrying w: a Type act fired under it that
// clicks its field first types once w says the focus arrived there, rather
// than after a fixed wait; when it does not within that wait, or w cannot
// tell, the act types as it would have after the wait.
func WithFocusWitness(ctx context.Context, w FocusWitness) context.Context {
	return context.WithValue(ctx, focusWitnessKey{}, w)
}

func focusWitnessOf(ctx context.Context) FocusWitness {
	w, _ := ctx.Value(focusWitnessKey{}).(FocusWitness)
	return w
}

// selectAllMod is the modifier of the select-all shortcut.
func selectAllMod() mods {
	return keychord.ControlOrMeta()
}

// orDefault is d, or the default list when d is empty: deny-listing
// nothing is not a configuration Reins offers.
func orDefault(d denylist.List) denylist.List {
	if len(d) == 0 {
		return denylist.Default()
	}
	return d
}

// scale is device pixels per DIP, treating an unset scale as 1.
func scale(s float64) float64 {
	if s <= 0 {
		return 1
	}
	return s
}

// denyCheck refuses when the frontmost application, or the one owning the
// window under any point, is deny-listed, and, for a desktop act, when a
// web browser owns the window under a point or, for keys that go wherever
// the focus is, is in front. It fails closed: when it cannot tell who is
// there, nothing fires. plan holds the act's points in DIP, for the words;
// at the same points in b's units, for the questions.
func denyCheck(ctx context.Context, b backend, plan, at []point, desktop bool) error {
	deny := b.denyList()
	app, err := b.frontmost(ctx)
	if err != nil {
		return fmt.Errorf("cannot tell which application is in front, so nothing was fired: %w", err)
	}
	if rule, ok := deny.RuleFor(app); ok {
		return denied(rule, fmt.Sprintf("%s is in front", app.Name))
	}
	if desktop && len(plan) == 0 {
		if err := notBrowser(app, fmt.Sprintf("%s is in front", app.Name)); err != nil {
			return err
		}
	}
	for i, p := range plan {
		app, err := b.appAt(ctx, at[i])
		if err != nil {
			return fmt.Errorf("cannot tell which application is at (%g, %g), so nothing was fired: %w", p.X, p.Y, err)
		}
		where := fmt.Sprintf("%s is under the pointer at (%g, %g)", app.Name, p.X, p.Y)
		if rule, ok := deny.RuleFor(app); ok {
			return denied(rule, where)
		}
		if desktop {
			if err := notBrowser(app, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// notBrowser refuses a desktop act whose input would go to app, a web
// browser: where says how.
func notBrowser(app App, where string) error {
	if _, ok := denylist.Browsers.RuleFor(app); ok {
		return fmt.Errorf("%w: %s; act on a tab the person shared with the browser tools instead; nothing was fired", ErrBrowser, where)
	}
	return nil
}

// denied is the refusal of an act that would land where rule forbids.
func denied(rule denylist.Rule, where string) error {
	if len(rule.PIDs) > 0 {
		return fmt.Errorf("%w: %s; no agent may click or type into Reins' windows or the terminal that started it; nothing was fired", ErrOwnWindow, where)
	}
	return fmt.Errorf("%w: %s (deny list: %s); nothing was fired", ErrDenyListed, where, rule.Label)
}

// ownEcho is how long after this executor's last event the desktop may
// still report that event as the latest input: clock granularity, kept short
// because input of the person's inside it is not seen.
const ownEcho = 15 * time.Millisecond

// inputGrain is how far apart the desktop's input time and Reins' clock may
// read for the same moment: X reports idle time in whole milliseconds.
const inputGrain = 10 * time.Millisecond

// inputAt is when the desktop last saw input, bounded by the two clock
// readings around the question: the input came at the earliest at early,
// at the latest at late.
type inputAt struct{ early, late time.Time }

// person is the time of the person's latest input, or the zero time when
// the latest input is the executor's own (own: when its last act ended), and
// the person's before it cannot be known.
func (in inputAt) person(own time.Time) time.Time {
	if !own.IsZero() && !in.early.After(own.Add(ownEcho)) {
		return time.Time{}
	}
	return in.late
}

// personCheck refuses when the person's own input came after since: they
// are at the controls, and an act fired now would fight them.
func personCheck(in inputAt, own, since time.Time) error {
	last := in.person(own)
	if !last.After(since.Add(inputGrain)) {
		return nil
	}
	return fmt.Errorf("%w: input arrived %s after the person was last seen still, so nothing was fired",
		ErrPersonActive, last.Sub(since).Round(time.Millisecond))
}

// quietFrom is the moment from which t's act is held by the person's input.
func quietFrom(t audit.Ticket) time.Time {
	if q := t.Landing().QuietFrom; !q.IsZero() {
		return q
	}
	return t.Approved().At()
}
