package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/vocab"
)

// An act on an element scrolled out of view, of the page or of a box it
// sits in, is one act that scrolls to it first (vocab.Act.Reach): the person
// is asked once, the audit row is committed before the first wheel notch,
// and at fire time Reins turns the wheel over the box that hides it, in
// bursts, finding the element again after each one, until it shows and is
// what is at its point; only then does the act itself fire. The extension
// says which way and how far (protocol.Reach); it never scrolls the page.

// MaxIntoViewBursts is how many bursts of the wheel an act turns to bring its
// target into view before it gives up and fires nothing more.
const MaxIntoViewBursts = 10

// wheelNotch is the distance one wheel notch is first taken to scroll, in
// CSS pixels: a little more than browsers scroll, so that the first burst
// falls short rather than past; the bursts after it go by what the first
// did.
const wheelNotch = 120

// intoViewSettle bounds the wait for the page to stop scrolling after a burst,
// and intoViewStill is how long its element must stay put to count as still.
const (
	intoViewSettle = 2 * time.Second
	intoViewStill  = 60 * time.Millisecond
)

// intoViewOf is how to bring el into view when err is a resolve's refusal of
// it as scrolled out of view, and the act can be fired that way; nil
// otherwise. An element in a child frame is reached once the extension has
// mapped the wheel point up through the frames around it (Reach.Framed).
func intoViewOf(err error, el grounding.Element) *protocol.Reach {
	var re *protocol.Error
	if !errors.As(err, &re) || re.Code != protocol.CodeNotVisible || re.Now == nil || re.Now.Reach == nil {
		return nil
	}
	// A child frame's reach is taken only once its point is in the top
	// frame's viewport.
	if (len(el.Path) > 0 && !re.Now.Reach.Framed) || re.Now.ID != el.ID || re.Now.Role != el.Role || re.Now.Name != el.Name {
		return nil
	}
	return re.Now.Reach
}

// sighting is an element as a resolve found it: in view (at), scrolled out
// of it (reach), or refused (err; only while the page settles).
type sighting struct {
	at    *protocol.ResolveResult
	reach *protocol.Reach
	err   error
}

// same reports whether f and g show the element at the same place.
func (f sighting) same(g sighting) bool {
	switch {
	case f.at != nil && g.at != nil:
		return f.at.TopBox == g.at.TopBox && f.at.Point == g.at.Point
	case f.reach != nil && g.reach != nil:
		return f.reach.Scroll == g.reach.Scroll && f.reach.DX == g.reach.DX && f.reach.DY == g.reach.DY
	case f.err != nil && g.err != nil:
		return f.err.Error() == g.err.Error()
	}
	return false
}

// find resolves el, taking a refusal that says how to reach it as an
// answer.
func (e *Engine) find(ctx context.Context, t *tabState, el grounding.Element) (sighting, error) {
	at, err := e.resolve(ctx, t, el)
	if err == nil {
		return sighting{at: at}, nil
	}
	if r := intoViewOf(err, el); r != nil {
		return sighting{reach: r}, nil
	}
	return sighting{}, err
}

// settled finds el once the page has stopped moving after a burst: two
// finds intoViewStill apart that agree, once the page has moved since before
// (was) or scrollStart has passed without it moving. A refusal counts only
// when it lasts (something the page slides past may cover the element for
// a moment). After intoViewSettle it takes what it found last.
func (e *Engine) settled(ctx context.Context, t *tabState, el grounding.Element, was sighting) (sighting, error) {
	look := func() sighting {
		s, err := e.find(ctx, t, el)
		if err != nil {
			return sighting{err: err}
		}
		return s
	}
	deadline := time.Now().Add(intoViewSettle)
	start := time.Now()
	prev := look()
	for {
		select {
		case <-ctx.Done():
			return sighting{}, ctx.Err()
		case <-time.After(intoViewStill):
		}
		now := look()
		if (now.same(prev) && (!now.same(was) || time.Since(start) >= scrollStart)) || !time.Now().Before(deadline) {
			if now.err != nil {
				return sighting{}, now.err
			}
			return now, nil
		}
		prev = now
	}
}

// wheelPoint is where on screen to turn the wheel for r.
func (e *Engine) wheelPoint(t *tabState, r *protocol.Reach) (grounding.ScreenPoint, error) {
	e.mu.Lock()
	cal, zoom := t.cal, t.zoomOr1()
	e.mu.Unlock()
	return grounding.ToScreen(r.Point, r.Window, r.Viewport, zoom, cal)
}

// intoView is a scroll into view under way: what it has turned so far, for the record.
type intoView struct {
	bursts int
	turned map[string]int         // notches by way: "down", "up", "right", "left"
	ways   []string               // the ways turned, in the order first turned
	per    float64                // CSS pixels one notch scrolled, once a burst showed it
	at     *grounding.ScreenPoint // where the act itself fired, once it did
	moved  float64                // CSS pixels the bursts scrolled, all told
	left   float64                // CSS pixels still to go, as last found
	way    string                 // which way the element lay at first: "down", "up", "right" or "left"
}

// aim notes how far, and which way, the element lies from where the view
// stands; the first time, the way it lies.
func (r *intoView) aim(to *protocol.Reach) {
	r.left = math.Abs(to.DX) + math.Abs(to.DY)
	if r.way != "" {
		return
	}
	switch {
	case math.Abs(to.DY) >= math.Abs(to.DX) && to.DY < 0:
		r.way = "up"
	case math.Abs(to.DY) >= math.Abs(to.DX):
		r.way = "down"
	case to.DX < 0:
		r.way = "left"
	default:
		r.way = "right"
	}
}

// outOfReach is the refusal of a reach that gave up before the element
// came into view: why, how far it got, and what the agent can do instead.
func (r *intoView) outOfReach(why string) error {
	got := ""
	if r.moved >= 1 {
		got = fmt.Sprintf("; it scrolled %s px of %s px %s", thousands(r.moved), thousands(r.moved+r.left), r.way)
	}
	keys := "End or PageDown"
	switch r.way {
	case "up":
		keys = "Home or PageUp"
	case "left", "right":
		keys = "End, Home or the arrow keys"
	}
	return errorf(vocab.CodeNotVisible, "%s, so the element was not acted on%s. To get there: press %s (browser_press_key; in a box, click inside it first) to move further in one act, find a nearer control that leads there (browser_find: a link, a list of contents, a search box), or hand the step to the person (browser_handoff)",
		why, got, keys)
}

// thousands writes n, rounded, with commas between its thousands.
func thousands(n float64) string {
	s := fmt.Sprintf("%.0f", math.Round(n))
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// turn notes a burst of step's notches.
func (r *intoView) turn(step executor.IntoViewStep) {
	if r.turned == nil {
		r.turned = map[string]int{}
	}
	r.bursts++
	for _, w := range []struct {
		n          int
		plus, less string
	}{{step.DY, "down", "up"}, {step.DX, "right", "left"}} {
		way, n := w.plus, w.n
		if n < 0 {
			way, n = w.less, -n
		}
		if n == 0 {
			continue
		}
		if r.turned[way] == 0 {
			r.ways = append(r.ways, way)
		}
		r.turned[way] += n
	}
}

// words says how far the reach turned the wheel, or "" when it did not.
func (r *intoView) words() string {
	if r.bursts == 0 {
		return ""
	}
	var ways []string
	for i, w := range r.ways {
		if i == 0 {
			ways = append(ways, fmt.Sprintf("%d notches %s", r.turned[w], w))
		} else {
			ways = append(ways, fmt.Sprintf("%d %s", r.turned[w], w))
		}
	}
	bursts := fmt.Sprintf("in %d bursts", r.bursts)
	if r.bursts == 1 {
		bursts = "in one burst"
	}
	s := fmt.Sprintf("turned the wheel %s %s to bring the element into view", strings.Join(ways, " and "), bursts)
	if r.per > 0 {
		s += fmt.Sprintf(" (%.0f px a notch)", r.per)
	}
	if r.at != nil {
		s += fmt.Sprintf(", then acted at %.0f, %.0f", r.at.X, r.at.Y)
	}
	return s
}

// notches is how many notches to turn for a scroll of d CSS pixels, one
// notch scrolling per, held to executor.MaxIntoViewNotches.
func notches(d, per float64) int {
	if math.Abs(d) < 1 {
		return 0
	}
	n := int(math.Round(math.Abs(d) / per))
	n = max(1, min(n, executor.MaxIntoViewNotches))
	if d < 0 {
		return -n
	}
	return n
}

// scrollIntoView fires a committed scroll-into-view act: bursts of the wheel over the
// box that hides el until it shows, then the act at its point. now is el
// as ready found it. A step the executor refuses stops it there; so does a
// burst that scrolls nothing, MaxIntoViewBursts bursts that did not bring it
// into view, and, earlier, a burst that shows the bursts left cannot get
// there: once a burst has shown how far a notch scrolls the box, the
// distance still to go is weighed against the most the bursts left would
// scroll, each its MaxIntoViewNotches notches, and when it is further the
// reach stops at once rather than turn the wheel for nothing.
func (e *Engine) scrollIntoView(ctx context.Context, t *tabState, el grounding.Element, ticket audit.Ticket, now sighting, r *intoView, ef *effect) error {
	if now.reach != nil {
		r.aim(now.reach)
	}
	for {
		if now.at != nil {
			pt, err := grounding.ToScreen(now.at.Point, now.at.Window, now.at.Viewport, now.at.Zoom, e.calOf(t))
			if err != nil {
				return r.stopped(err)
			}
			pt = e.misplaced(pt)
			step := executor.WithIntoViewStep(ctx, executor.IntoViewStep{X: pt.X, Y: pt.Y})
			if *ef, err = e.fireWatched(step, t, el, ticket, func(ctx context.Context) error { return e.opts.Executor.Fire(ctx, ticket) }); err != nil {
				return r.stopped(err)
			}
			r.at = &pt
			return nil
		}
		if r.bursts >= MaxIntoViewBursts {
			return r.stopped(r.outOfReach(fmt.Sprintf("the element was still out of view after %d bursts of the wheel", MaxIntoViewBursts)))
		}
		per := r.per
		if per <= 0 {
			per = wheelNotch
		}
		step := executor.IntoViewStep{DX: notches(now.reach.DX, per), DY: notches(now.reach.DY, per)}
		pt, err := e.wheelPoint(t, now.reach)
		if err != nil {
			return r.stopped(err)
		}
		step.X, step.Y = pt.X, pt.Y
		if err := e.opts.Executor.Fire(executor.WithIntoViewStep(ctx, step), ticket); err != nil {
			return r.stopped(err)
		}
		r.turn(step)
		next, err := e.settled(ctx, t, el, now)
		if err != nil {
			return r.stopped(err)
		}
		if next.reach != nil && next.reach.Page == now.reach.Page && next.reach.Scroll.MaxX == now.reach.Scroll.MaxX && next.reach.Scroll.MaxY == now.reach.Scroll.MaxY {
			// The same box: what the burst did says how far a notch goes.
			moved := math.Abs(next.reach.Scroll.Y-now.reach.Scroll.Y) + math.Abs(next.reach.Scroll.X-now.reach.Scroll.X)
			if moved < 1 {
				return r.stopped(r.outOfReach("turning the wheel over the box that holds the element did not scroll it (the page may keep the wheel to itself)"))
			}
			r.per = moved / float64(abs(step.DX)+abs(step.DY))
			r.moved += moved
			r.aim(next.reach)
			burst := float64(executor.MaxIntoViewNotches) * r.per
			if rest := MaxIntoViewBursts - r.bursts; rest > 0 && r.left > float64(rest)*burst {
				return r.stopped(r.outOfReach(fmt.Sprintf("the element is %s px further %s, and the %d bursts of the wheel left would scroll at most %s px",
					thousands(r.left), r.way, rest, thousands(float64(rest)*burst))))
			}
		} else if next.reach != nil {
			if next.reach.Page && now.reach.Page {
				// The page grew as it scrolled (more of it loaded): it
				// still scrolled.
				r.moved += math.Abs(next.reach.Scroll.Y-now.reach.Scroll.Y) + math.Abs(next.reach.Scroll.X-now.reach.Scroll.X)
			}
			r.aim(next.reach)
		}
		now = next
	}
}

// stopped is err with how far the reach got said in it, for the outcome
// row and the agent.
func (r *intoView) stopped(err error) error {
	if err == nil || r.bursts == 0 {
		return err
	}
	ce, _ := classify(err)
	return &vocab.Error{Code: ce.Code, Message: ce.Message + "; before that, Reins " + r.words(), Err: err}
}

// calOf is t's calibration, under the lock.
func (e *Engine) calOf(t *tabState) *grounding.Calibrated {
	e.mu.Lock()
	defer e.mu.Unlock()
	return t.cal
}

// readyIntoView is a scroll-into-view act's landing: el found again, at the wheel's point
// when it is still out of view, else at its own. now is what perform
// starts from.
func (e *Engine) readyIntoView(ctx context.Context, t *tabState, el grounding.Element, now *sighting) (audit.Landing, error) {
	f, err := e.find(ctx, t, el)
	if err != nil {
		return audit.Landing{}, err
	}
	*now = f
	var pt grounding.ScreenPoint
	if f.at != nil {
		pt, err = grounding.ToScreen(f.at.Point, f.at.Window, f.at.Viewport, f.at.Zoom, e.calOf(t))
	} else {
		pt, err = e.wheelPoint(t, f.reach)
	}
	if err != nil {
		return audit.Landing{}, err
	}
	return audit.Landing{X: pt.X, Y: pt.Y, Scale: pt.Scale, Frame: el.FrameOrigin}, nil
}

// intoViewOnScreen refuses a scroll into view whose wheel point is on no screen, before
// the person is asked.
func (e *Engine) intoViewOnScreen(ctx context.Context, t *tabState, r *protocol.Reach) error {
	pt, err := e.wheelPoint(t, r)
	if err != nil {
		return nil
	}
	return e.onScreen(ctx, "the point to scroll the element into view from", pt.X, pt.Y, "its window is off the screens; ask the person to bring it back, then take a new snapshot")
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// joinDetail joins the parts of an outcome row's detail that say something.
func joinDetail(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// scrollWait bounds how long the answer to a scroll waits for the page to
// stop moving, and scrollStart how long it waits for it to begin.
const (
	scrollWait  = 1500 * time.Millisecond
	scrollStart = 500 * time.Millisecond
)

// scrolledTo says where the box that scrolls around el and the page stand
// once a scroll has stopped moving them: a snapshot's text hardly changes
// when a page scrolls, so the answer to a scroll says it. before is the
// snapshot the agent acted from. It is "" when the tab cannot be read.
func (e *Engine) scrolledTo(ctx context.Context, t *tabState, tab, title string, el grounding.Element, before *grounding.Snapshot) string {
	was := whereScrolled(before, el.Ref)
	start := time.Now()
	last, same := "", 0
	for {
		snap, _, err := e.readTree(ctx, t, tab, title)
		if err != nil {
			return ""
		}
		words := whereScrolled(snap, el.Ref)
		if words == last {
			same++
		} else {
			last, same = words, 0
		}
		waited := time.Since(start)
		if (same >= 2 && (words != was || waited >= scrollStart)) || waited >= scrollWait {
			return words
		}
		select {
		case <-ctx.Done():
			return words
		case <-time.After(intoViewStill):
		}
	}
}

// whereScrolled says where the nearest box that scrolls around ref, and
// the page, stand in s.
func whereScrolled(s *grounding.Snapshot, ref string) string {
	var parts []string
	if box, at, ok := s.ScrollAround(ref); ok {
		parts = append(parts, fmt.Sprintf("the box [ref=%s] is scrolled %s", box, scrollWords(at.X, at.Y, at.MaxX, at.MaxY)))
	}
	v := s.Viewport()
	page := fmt.Sprintf("%.0f px down", v.ScrollY)
	if v.ScrollX != 0 {
		page += fmt.Sprintf(", %.0f px right", v.ScrollX)
	}
	parts = append(parts, "the page "+page)
	return "now " + strings.Join(parts, " and ")
}

// scrollWords says how far a box is scrolled of how far it can go.
func scrollWords(x, y, maxX, maxY float64) string {
	var parts []string
	if maxY > 0 || maxX == 0 {
		parts = append(parts, fmt.Sprintf("%.0f of %.0f px down", y, maxY))
	}
	if maxX > 0 {
		parts = append(parts, fmt.Sprintf("%.0f of %.0f px right", x, maxX))
	}
	return strings.Join(parts, ", ")
}
