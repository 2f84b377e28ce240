package executor

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/internal/plain"
)

// A tab's act lands only in the window that shows the tab. Before the act
// fires, core asks which window that is ([Executor.TabWindow]), from the
// window's place and size as the browser itself reports them, and names
// it in the act's landing (audit.Landing.Window, with the browser's process,
// audit.Landing.PID). The fire sequence then checks, under its lock, before
// every key the act presses (the clear chord and the submit among them)
// that the keyboard focus is in that window, and before every button and
// wheel event (a press, a release, each wheel notch, a drag's end) that
// the top-level window under the point is that window. When either is not
// so, the act stops there and lets go of what it holds. A page cannot
// move the keys elsewhere by opening a window of its own browser (a
// window.open popup takes the focus), nor catch a drag's drop with a
// window over the page; a desktop act keeps the deny list's rules alone.

// Errors of a tab's window, for errors.Is.
var (
	// ErrFocusMoved: the keyboard focus is not in the tab's window, so no
	// more keys were pressed.
	ErrFocusMoved = errors.New("the keyboard focus is not in the tab's window")
	// ErrNotInTabWindow: the window under the point is not the tab's, so
	// no button or wheel moved there.
	ErrNotInTabWindow = errors.New("another window than the tab's is under the pointer")
	// ErrNoTabWindow: which window shows the tab cannot be told: none lies
	// where the browser says the tab's window is, or several do and
	// nothing tells them apart. Reins refuses rather than guess.
	ErrNoTabWindow = errors.New("cannot tell which window shows the tab")
)

// Bounds is a window's outer box in DIP, as a browser reports it:
// screenX, screenY, outerWidth and outerHeight.
type Bounds struct {
	X, Y, W, H float64
}

// boundsSlack is how far, in DIP, each edge of a window may lie from where
// the browser reports it: X rounds to device pixels, and a scale that is a
// fraction rounds again.
const boundsSlack = 2

// Fits reports whether a window at (x, y), w×h in DIP, is where b says,
// each edge within a couple of DIP.
func (b Bounds) Fits(x, y, w, h float64) bool {
	near := func(a, b float64) bool { return math.Abs(a-b) <= boundsSlack }
	return b.W > 0 && b.H > 0 && near(x, b.X) && near(y, b.Y) && near(x+w, b.X+b.W) && near(y+h, b.Y+b.H)
}

func (b Bounds) String() string {
	return fmt.Sprintf("%g×%g at %g, %g", b.W, b.H, b.X, b.Y)
}

// TabWindowQuery says what is known of the window that shows a tab.
type TabWindowQuery struct {
	Bounds Bounds  // required: where the browser says the tab's window is
	Scale  float64 // optional: device pixels per DIP of the window's display; ≤ 0 means 1
	// Focused says the browser reports the tab's window as the one with
	// the keyboard focus: among windows at the same place, the one that
	// holds it is the tab's.
	Focused bool // optional
	// Title is the tab's title. It only tells apart windows of a browser
	// that lie at the same place (the window's title starts with its
	// active tab's); it never makes a window the tab's on its own.
	Title string // optional
}

// TabWindow is the window that shows a tab.
type TabWindow struct {
	// ID is the window as the executor names it: on X the client window,
	// on macOS the window number.
	ID uint64
	// App is the browser, its PID the process the display server says made
	// the window (on X, the X-Resource extension's, where the server has
	// it).
	App App
	// Focus reports whether the keyboard focus is in the window now; when
	// it is not, FocusApp holds it (the desktop when no window does).
	Focus    bool
	FocusApp App
}

// tabCandidate is a window at the place a browser reports for a tab's
// window.
type tabCandidate struct {
	id    uint64
	app   App
	title string
	front bool // the window in front, holding the keyboard focus
}

// pickTabWindow chooses, among the windows lying where q says the tab's
// window is, the one that shows the tab: only a web browser's; when
// several are, the one in front if the browser says the tab's window has
// the focus, then the one whose title starts with the tab's. It refuses,
// with an error wrapping ErrNoTabWindow, rather than guess.
func pickTabWindow(cands []tabCandidate, q TabWindowQuery) (tabCandidate, error) {
	var browsers []tabCandidate
	var other *tabCandidate
	for i, c := range cands {
		if _, ok := denylist.Browsers.RuleFor(c.app); ok {
			browsers = append(browsers, c)
		} else if other == nil {
			other = &cands[i]
		}
	}
	switch {
	case len(browsers) == 0 && other != nil:
		return tabCandidate{}, fmt.Errorf("%w: the window at %s, where the browser says the tab's window is, is %s's, not a web browser's", ErrNoTabWindow, q.Bounds, whose(other.app))
	case len(browsers) == 0:
		return tabCandidate{}, fmt.Errorf("%w: no window lies at %s, where the browser says the tab's window is", ErrNoTabWindow, q.Bounds)
	case len(browsers) == 1:
		return browsers[0], nil
	}
	if q.Focused {
		if front := keep(browsers, func(c tabCandidate) bool { return c.front }); len(front) == 1 {
			return front[0], nil
		}
	}
	if q.Title != "" {
		titled := keep(browsers, func(c tabCandidate) bool { return c.title == q.Title || strings.HasPrefix(c.title, q.Title+" ") })
		if len(titled) == 1 {
			return titled[0], nil
		}
	}
	return tabCandidate{}, fmt.Errorf("%w: %d windows of web browsers lie at %s and nothing tells which shows the tab; bring the tab's window to the front, or move the others, and ask again", ErrNoTabWindow, len(browsers), q.Bounds)
}

func keep(cs []tabCandidate, ok func(tabCandidate) bool) []tabCandidate {
	var out []tabCandidate
	for _, c := range cs {
		if ok(c) {
			out = append(out, c)
		}
	}
	return out
}

// whose names an application for a person or an agent: its name and its
// process.
func whose(app App) string {
	name := plain.Text(app.Name, plain.NameMax)
	if name == "" {
		name = "an unnamed application"
	}
	if app.PID > 0 {
		return fmt.Sprintf("%s (pid %d)", name, app.PID)
	}
	return name
}

// keysInTab stops a tab act before a key when the keyboard focus is not
// in the tab's window. A desktop act, or one whose plan names no window,
// has no such rule.
func (a *act) keysInTab() error {
	if a.tab == 0 {
		return nil
	}
	in, there, err := a.b.focusIn(a.ctx, a.tab)
	if err != nil {
		return fmt.Errorf("where the keyboard focus is cannot be read, so the act stopped after %s: %w", inputEvents(a.count), err)
	}
	if !in {
		return fmt.Errorf("%w: %s holds it; the act stopped after %s and let go of what it held", ErrFocusMoved, whose(there), inputEvents(a.count))
	}
	return nil
}

// inputEvents says how many input events went out.
func inputEvents(n int) string {
	if n == 1 {
		return "1 input event"
	}
	return fmt.Sprintf("%d input events", n)
}

// pointerInTab stops a tab act before a button or wheel event at p (in the
// backend's units) when the top-level window there is not the tab's; what
// names the event for the words.
func (a *act) pointerInTab(p point, what string) error {
	if a.tab == 0 {
		return nil
	}
	is, there, err := a.b.topIs(a.ctx, p, a.tab)
	if err != nil {
		return fmt.Errorf("which window is under %s cannot be read, so the act stopped after %s: %w", what, inputEvents(a.count), err)
	}
	if !is {
		if len(a.buttons) > 0 {
			a.strayed = true
		}
		return fmt.Errorf("%w: %s is under %s; the act stopped after %s and let go of what it held", ErrNotInTabWindow, whose(there), what, inputEvents(a.count))
	}
	return nil
}
