package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/vocab"
)

// rect is an area of the screen in DIP.
type rect struct{ X, Y, W, H float64 }

func (r rect) center() (float64, float64) { return r.X + r.W/2, r.Y + r.H/2 }

// rig is one executor under contract test, with a way to stage the screen
// and a witness of what reached it.
type rig interface {
	Executor() Executor
	// Scale is device pixels per DIP, for plans.
	Scale() float64
	// Window shows a window of the named application covering r, in front
	// of the others, and returns the App the executor should report for it.
	Window(t *testing.T, name string, r rect) App
	// Front makes the window shown by Window for name the one in front.
	Front(t *testing.T, name string)
	// Fired returns how many input events reached the screen since the last
	// call.
	Fired(t *testing.T) int
	// PersonMoves is the person nudging the mouse, as the desktop sees it,
	// leaving the pointer where it was; its own events do not count as fired.
	PersonMoves(t *testing.T)
	// Focus gives the keyboard focus to the window shown by Window for
	// name.
	Focus(t *testing.T, name string)
	// FocusOnKey moves the keyboard focus to the window of name once n key
	// presses have reached the screen, as a page's popup takes it.
	FocusOnKey(t *testing.T, n int, name string)
	// ShowOnPress shows a window of name over r, in front, once a button
	// press has reached the screen.
	ShowOnPress(t *testing.T, name string, r rect)
	// Landed returns the key and button events that reached the screen
	// since the last call, each with the window it landed in: a key the
	// window with the focus, a button event the window under its point.
	Landed(t *testing.T) []landed
}

// landed is one key or button event and the window it reached.
type landed struct {
	kind string // "key", "keyup", "press", "release", "wheel"
	over string // the name of the window's application; "" for none
}

// count is how many of ls are of kind and landed over the window of name.
func count(ls []landed, kind, name string) int {
	n := 0
	for _, l := range ls {
		if l.kind == kind && l.over == name {
			n++
		}
	}
	return n
}

// kinds is how many of ls are of kind, wherever they landed.
func kinds(ls []landed, kind string) int {
	n := 0
	for _, l := range ls {
		if l.kind == kind {
			n++
		}
	}
	return n
}

func (r rect) bounds() Bounds { return Bounds{X: r.X, Y: r.Y, W: r.W, H: r.H} }

// tabTicket is a tab's act at (x, y) whose plan names the tab's window.
func tabTicket(r rig, act vocab.Act, x, y float64, tw TabWindow) audit.Ticket {
	return audit.TestOnlyTicket(act, audit.Landing{X: x, Y: y, Scale: r.Scale(), Window: tw.ID, PID: tw.App.PID})
}

// tabWindowOf finds the window a browser would report at area, focused.
func tabWindowOf(t *testing.T, r rig, area rect) TabWindow {
	t.Helper()
	tw, err := r.Executor().TabWindow(context.Background(), TabWindowQuery{Bounds: area.bounds(), Scale: r.Scale(), Focused: true})
	if err != nil {
		t.Fatalf("TabWindow(%+v) = %v", area, err)
	}
	return tw
}

func ticket(r rig, act vocab.Act, x, y float64) audit.Ticket {
	return audit.TestOnlyTicket(act, audit.Landing{X: x, Y: y, Scale: r.Scale()})
}

var (
	witnessArea = rect{100, 100, 300, 200}
	keepassArea = rect{500, 100, 200, 200}
)

// runContract runs the tests every executor must pass. newRig is called
// once per test, and its rig starts with nothing fired.
func runContract(t *testing.T, newRig func(t *testing.T) rig) {
	ctx := context.Background()

	t.Run("an invalid ticket fires nothing", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		err := r.Executor().Fire(ctx, audit.Ticket{})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Fire(zero ticket) = %v, want ErrInvalid", err)
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("an act that is not input is refused", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := witnessArea.center()
		for _, k := range []vocab.ActKind{vocab.Navigate, vocab.Back, vocab.Read, "warp"} {
			err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: k}, x, y))
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("Fire(%s) = %v, want ErrUnsupported", k, err)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("an unknown key fires nothing", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := witnessArea.center()
		for _, act := range []vocab.Act{
			{Kind: vocab.Key, Keys: "Control+Banana"},
			{Kind: vocab.Key, Keys: "Hyper+K"},
			{Kind: vocab.Key, Keys: ""},
			{Kind: vocab.Type, Text: "ring the bell \a"},
			{Kind: vocab.Type, Text: "next\tfield"},
			{Kind: vocab.Type, Text: "5000\r"},
		} {
			err := r.Executor().Fire(ctx, ticket(r, act, x, y))
			want := ErrUnknownKey
			if act.Kind == vocab.Type {
				want = ErrHiddenKey // typed text never holds a key the person cannot see
			}
			if !errors.Is(err, want) {
				t.Errorf("Fire(%+v) = %v, want %v", act, err, want)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("a point that is no place fires nothing", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		for _, p := range [][2]float64{{math.NaN(), 10}, {10, math.Inf(1)}} {
			err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: vocab.Click}, p[0], p[1]))
			if !errors.Is(err, ErrOffScreen) {
				t.Errorf("click at %v = %v, want ErrOffScreen", p, err)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("Screens hold the windows, and a point off every screen fires nothing", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		screens, err := r.Executor().Screens(ctx)
		if err != nil || len(screens) == 0 {
			t.Fatalf("Screens = %+v, %v", screens, err)
		}
		x, y := witnessArea.center()
		if !OnScreen(screens, x, y) || !OnScreen(screens, 0, 0) {
			t.Errorf("Screens = %+v hold neither the witness at (%g, %g) nor the origin", screens, x, y)
		}
		right, bottom := math.Inf(-1), math.Inf(-1)
		for _, s := range screens {
			right, bottom = max(right, s.X+s.W), max(bottom, s.Y+s.H)
		}
		for _, p := range [][2]float64{{right + 10, y}, {x, bottom + 10}, {right, bottom}} {
			if OnScreen(screens, p[0], p[1]) {
				t.Errorf("OnScreen(%v) past every screen's edge", p)
			}
			err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: vocab.Click}, p[0], p[1]))
			if !errors.Is(err, ErrOffScreen) {
				t.Errorf("click at %v, off every screen of %+v = %v, want ErrOffScreen", p, screens, err)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("a deny-listed application in front stops every act", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Window(t, "KeePassXC", keepassArea)
		r.Front(t, "KeePassXC")
		r.Fired(t)
		x, y := witnessArea.center()
		for _, act := range []vocab.Act{
			{Kind: vocab.Click},
			{Kind: vocab.Key, Keys: "Control+A"},
			{Kind: vocab.Type, Text: "hunter2"},
			{Kind: vocab.Scroll, DY: 1},
		} {
			err := r.Executor().Fire(ctx, ticket(r, act, x, y))
			if !errors.Is(err, ErrDenyListed) || !strings.Contains(err.Error(), "KeePassXC") {
				t.Errorf("Fire(%s) = %v, want ErrDenyListed naming KeePassXC", act.Kind, err)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("a deny-listed application under the point stops the act", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Window(t, "KeePassXC", keepassArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := keepassArea.center()
		for _, act := range []vocab.Act{
			{Kind: vocab.Click},
			{Kind: vocab.DoubleClick},
			{Kind: vocab.Hover},
			{Kind: vocab.Type, Text: "hunter2"},
		} {
			err := r.Executor().Fire(ctx, ticket(r, act, x, y))
			if !errors.Is(err, ErrDenyListed) || !strings.Contains(err.Error(), "under the pointer") {
				t.Errorf("Fire(%s) = %v, want ErrDenyListed saying KeePassXC is under the pointer", act.Kind, err)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("a desktop act never lands in a web browser, a tab's act does", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Window(t, "Chromium", keepassArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := keepassArea.center()
		for _, act := range []vocab.Act{
			{Kind: vocab.Click},
			{Kind: vocab.DoubleClick},
			{Kind: vocab.Type, Text: "hello"},
		} {
			tk := audit.TestOnlyDesktopTicket(act, audit.Landing{X: x, Y: y, Scale: r.Scale()})
			if err := r.Executor().Fire(ctx, tk); !errors.Is(err, ErrBrowser) || !strings.Contains(err.Error(), "under the pointer") {
				t.Errorf("desktop Fire(%s) on the browser = %v, want ErrBrowser saying it is under the pointer", act.Kind, err)
			}
		}
		// Keys that go wherever the focus is, with the browser in front.
		r.Front(t, "Chromium")
		for _, act := range []vocab.Act{{Kind: vocab.Key, Keys: "Enter"}, {Kind: vocab.Type, Text: "hello"}} {
			tk := audit.TestOnlyDesktopTicket(act, audit.Landing{Scale: r.Scale()})
			if err := r.Executor().Fire(ctx, tk); !errors.Is(err, ErrBrowser) || !strings.Contains(err.Error(), "in front") {
				t.Errorf("desktop Fire(%s) with the browser in front = %v, want ErrBrowser saying it is in front", act.Kind, err)
			}
		}
		if n := r.Fired(t); n != 0 {
			t.Fatalf("%d events fired by desktop acts on a browser", n)
		}
		if err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: vocab.Click}, x, y)); err != nil {
			t.Fatalf("a tab's click in the browser: %v", err)
		}
		if n := r.Fired(t); n == 0 {
			t.Error("a tab's click in the browser fired nothing")
		}
	})

	t.Run("a drag that ends on a deny-listed application fires nothing", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Window(t, "KeePassXC", keepassArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := witnessArea.center()
		x2, y2 := keepassArea.center()
		tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: x, Y: y, X2: x2, Y2: y2, Scale: r.Scale()})
		if err := r.Executor().Fire(ctx, tk); !errors.Is(err, ErrDenyListed) {
			t.Errorf("Fire(drag onto KeePassXC) = %v, want ErrDenyListed", err)
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("an act on an allowed window fires", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Window(t, "KeePassXC", keepassArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := witnessArea.center()
		if err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: vocab.Click}, x, y)); err != nil {
			t.Fatalf("Fire(click) = %v", err)
		}
		if n := r.Fired(t); n == 0 {
			t.Error("nothing fired")
		}
	})

	t.Run("a context that has ended fires nothing", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		ended, cancel := context.WithCancel(ctx)
		cancel()
		x, y := witnessArea.center()
		if err := r.Executor().Fire(ended, ticket(r, vocab.Act{Kind: vocab.Click}, x, y)); !errors.Is(err, context.Canceled) {
			t.Errorf("Fire with an ended context = %v, want context.Canceled", err)
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
	})

	t.Run("a deny list changed while running applies to the next act", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Signal", witnessArea)
		r.Front(t, "Signal")
		r.Fired(t)
		x, y := witnessArea.center()
		r.Executor().SetDenyList(append(denylist.Default(), denylist.Rule{Label: "Signal", Names: []string{"signal"}}))
		if err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: vocab.Click}, x, y)); !errors.Is(err, ErrDenyListed) || !strings.Contains(err.Error(), "Signal") {
			t.Errorf("Fire(click on Signal, deny-listed) = %v, want ErrDenyListed naming Signal", err)
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired", n)
		}
		r.Executor().SetDenyList(nil)
		if err := r.Executor().Fire(ctx, ticket(r, vocab.Act{Kind: vocab.Click}, x, y)); err != nil {
			t.Errorf("Fire(click on Signal, back to the default list) = %v", err)
		}
		if n := r.Fired(t); n == 0 {
			t.Error("nothing fired once Signal left the deny list")
		}
	})

	t.Run("the person's own input holds an approved act back", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Front(t, "Witness")
		r.Fired(t)
		x, y := witnessArea.center()
		mint := approvedTickets(t, r.Scale(), x, y)

		// Allowed; then the person moves the mouse before it fires.
		tk := mint(time.Time{})
		time.Sleep(3 * inputGrain)
		r.PersonMoves(t)
		if err := r.Executor().Fire(ctx, tk); !errors.Is(err, ErrPersonActive) {
			t.Errorf("Fire after the person moved = %v, want ErrPersonActive", err)
		}
		if n := r.Fired(t); n != 0 {
			t.Errorf("%d events fired while the person was at the mouse", n)
		}
		if last, err := r.Executor().LastInput(ctx); err != nil || time.Since(last) > time.Second {
			t.Errorf("LastInput right after the person moved = %v, %v", last, err)
		}

		// Seen still since the move: it fires.
		time.Sleep(3 * inputGrain)
		if err := r.Executor().Fire(ctx, mint(time.Now())); err != nil {
			t.Errorf("Fire with the person still since = %v", err)
		}
		if n := r.Fired(t); n == 0 {
			t.Error("nothing fired")
		}
		// Its own events are not the person's: the next act fires, and the
		// person's last input is no longer known.
		if err := r.Executor().Fire(ctx, mint(time.Now().Add(-time.Second))); err != nil {
			t.Errorf("Fire right after an act of its own = %v", err)
		}
		if n := r.Fired(t); n == 0 {
			t.Error("nothing fired")
		}
		if last, err := r.Executor().LastInput(ctx); err != nil || !last.IsZero() {
			t.Errorf("LastInput after an act of its own = %v, %v; want the zero time", last, err)
		}
	})

	// The tab's window, a popup of the same browser beside it, and a
	// terminal over a part of the tab's window.
	var (
		tabArea   = rect{100, 100, 700, 500}
		popupArea = rect{850, 100, 300, 300}
		termArea  = rect{500, 350, 200, 150}
	)

	t.Run("a tab act's keys stop when the focus moves to another window of its browser", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Chromium", tabArea)
		r.Window(t, "Chromium-browser", popupArea)
		r.Focus(t, "Chromium")
		tw := tabWindowOf(t, r, tabArea)
		if !tw.Focus || tw.App.Name != "Chromium" {
			t.Fatalf("TabWindow = %+v, want Chromium's window, with the focus", tw)
		}
		r.Landed(t)
		r.FocusOnKey(t, 3, "Chromium-browser")
		x, y := tabArea.center()
		const text = "abcdefghij"
		err := r.Executor().Fire(ctx, tabTicket(r, vocab.Act{Kind: vocab.Type, Text: text, Submit: true}, x, y, tw))
		if !errors.Is(err, ErrFocusMoved) || !strings.Contains(err.Error(), "Chromium-browser (pid") {
			t.Fatalf("typing while the focus moved to the popup = %v, want ErrFocusMoved naming it and its pid", err)
		}
		ls := r.Landed(t)
		if n := count(ls, "key", "Chromium-browser"); n != 0 {
			t.Errorf("%d keys landed in the popup", n)
		}
		if n := count(ls, "key", "Chromium"); n < 3 || n >= len(text) {
			t.Errorf("%d keys landed in the tab's window; want the 3 before the focus moved, and not all", n)
		}
		if down, up := kinds(ls, "key"), kinds(ls, "keyup"); down != up {
			t.Errorf("%d keys pressed, %d released", down, up)
		}

		// With the focus already in the popup, neither a chord nor the
		// clear chord of a text goes out.
		r.Focus(t, "Chromium-browser")
		for _, act := range []vocab.Act{{Kind: vocab.Key, Keys: "Control+W"}, {Kind: vocab.Type, Text: "5000", Clear: true, Submit: true}} {
			if err := r.Executor().Fire(ctx, tabTicket(r, act, 0, 0, tw)); !errors.Is(err, ErrFocusMoved) {
				t.Errorf("Fire(%+v) with the focus in the popup = %v, want ErrFocusMoved", act, err)
			}
		}
		if ls := r.Landed(t); len(ls) != 0 {
			t.Errorf("keys went out with the focus in the popup: %+v", ls)
		}
	})

	t.Run("a drag's release is refused over a window that came over its end", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Chromium", tabArea)
		r.Focus(t, "Chromium")
		tw := tabWindowOf(t, r, tabArea)
		r.Landed(t)
		r.ShowOnPress(t, "Terminal", termArea)
		x, y := 200.0, 200.0
		x2, y2 := termArea.center()
		tk := audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: x, Y: y, X2: x2, Y2: y2, Scale: r.Scale(), Window: tw.ID, PID: tw.App.PID})
		err := r.Executor().Fire(ctx, tk)
		if !errors.Is(err, ErrNotInTabWindow) || !strings.Contains(err.Error(), "Terminal (pid") || !strings.Contains(err.Error(), "release") {
			t.Fatalf("a drag released over the terminal = %v, want ErrNotInTabWindow naming it under the release", err)
		}
		ls := r.Landed(t)
		if n := count(ls, "release", "Terminal"); n != 0 {
			t.Errorf("%d releases over the terminal", n)
		}
		if p, u := kinds(ls, "press"), count(ls, "release", "Chromium"); p != 1 || u != 1 {
			t.Errorf("%d presses and %d releases over the tab's window, want the button let go of there: %+v", p, u, ls)
		}
	})

	t.Run("a tab act's button lands only where its window is under the point", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Chromium", tabArea)
		r.Window(t, "Terminal", termArea)
		r.Focus(t, "Chromium")
		tw := tabWindowOf(t, r, tabArea)
		r.Landed(t)
		tx, ty := termArea.center()
		for _, tk := range []audit.Ticket{
			tabTicket(r, vocab.Act{Kind: vocab.Click}, tx, ty, tw),
			audit.TestOnlyTicket(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 200, Y: 200, X2: tx, Y2: ty, Scale: r.Scale(), Window: tw.ID}),
		} {
			if err := r.Executor().Fire(ctx, tk); !errors.Is(err, ErrNotInTabWindow) || !strings.Contains(err.Error(), "Terminal") {
				t.Errorf("Fire(%s) over the terminal = %v, want ErrNotInTabWindow naming it", tk.Act().Kind, err)
			}
		}
		if ls := r.Landed(t); len(ls) != 0 {
			t.Errorf("buttons went out over the terminal: %+v", ls)
		}
		// Reach's wheel bursts: refused over the terminal, turned over the
		// tab's window.
		reach := tabTicket(r, vocab.Act{Kind: vocab.Click, Reach: true}, 200, 200, tw)
		if err := r.Executor().Fire(WithIntoViewStep(ctx, IntoViewStep{X: tx, Y: ty, DY: 3}), reach); !errors.Is(err, ErrNotInTabWindow) {
			t.Errorf("a wheel burst over the terminal = %v, want ErrNotInTabWindow", err)
		}
		if ls := r.Landed(t); kinds(ls, "wheel") != 0 {
			t.Errorf("the wheel turned over the terminal: %+v", ls)
		}
		if err := r.Executor().Fire(WithIntoViewStep(ctx, IntoViewStep{X: 200, Y: 200, DY: 3}), reach); err != nil {
			t.Errorf("a wheel burst over the tab's window = %v", err)
		}
		if ls := r.Landed(t); count(ls, "wheel", "Chromium") != 3 || len(ls) != 3 {
			t.Errorf("a burst of 3 over the tab's window landed %+v", ls)
		}
	})

	t.Run("TabWindow finds a browser's window by where it lies, and refuses to guess", func(t *testing.T) {
		r := newRig(t)
		r.Window(t, "Witness", witnessArea)
		r.Window(t, "Chromium", tabArea)
		r.Window(t, "Chromium-browser", tabArea) // a second window of it, just as large
		r.Focus(t, "Chromium-browser")
		find := func(q TabWindowQuery) (string, error) {
			q.Scale = r.Scale()
			tw, err := r.Executor().TabWindow(ctx, q)
			return tw.App.Name, err
		}
		for _, c := range []struct {
			what string
			q    TabWindowQuery
			want string // "" for ErrNoTabWindow
		}{
			{"the one with the focus, when the tab's has it", TabWindowQuery{Bounds: tabArea.bounds(), Focused: true}, "Chromium-browser"},
			{"the one titled as the tab among the two", TabWindowQuery{Bounds: tabArea.bounds(), Title: "Chromium"}, "Chromium"},
			{"neither, when nothing tells them apart", TabWindowQuery{Bounds: tabArea.bounds()}, ""},
			{"none where no window lies", TabWindowQuery{Bounds: popupArea.bounds(), Title: "Chromium", Focused: true}, ""},
			{"none where a window of another application lies", TabWindowQuery{Bounds: witnessArea.bounds(), Title: "Witness", Focused: true}, ""},
		} {
			got, err := find(c.q)
			if c.want == "" && !errors.Is(err, ErrNoTabWindow) || c.want != "" && (err != nil || got != c.want) {
				t.Errorf("%s: TabWindow = %q, %v; want %q", c.what, got, err, c.want)
			}
		}
	})

	t.Run("AppAt and Frontmost name the window's application", func(t *testing.T) {
		r := newRig(t)
		want := r.Window(t, "Witness", witnessArea)
		keepass := r.Window(t, "KeePassXC", keepassArea)
		r.Front(t, "KeePassXC")
		x, y := witnessArea.center()
		if got, err := r.Executor().AppAt(ctx, x, y); err != nil || got != want {
			t.Errorf("AppAt(witness) = %+v, %v; want %+v", got, err, want)
		}
		if got, err := r.Executor().AppAt(ctx, 5, 700); err != nil || got != desktop {
			t.Errorf("AppAt(bare desktop) = %+v, %v; want %+v", got, err, desktop)
		}
		if _, denied := denylist.Default().Match(desktop); denied {
			t.Error("the bare desktop is deny-listed")
		}
		if got, err := r.Executor().Frontmost(ctx); err != nil || got != keepass {
			t.Errorf("Frontmost = %+v, %v; want %+v", got, err, keepass)
		}
	})
}

// approvedTickets mints real tickets for clicks at (x, y): each is put to a
// broker whose person answers "allow once", committed to a real audit log
// with the plan's QuietFrom set to quiet.
func approvedTickets(t *testing.T, scale, x, y float64) func(quiet time.Time) audit.Ticket {
	t.Helper()
	ctx := context.Background()
	log, err := audit.Open(ctx, audit.Options{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	b := approvals.NewBroker(approvals.BrokerOptions{Answerer: answerFunc(func(context.Context, vocab.Request) (vocab.Decision, error) {
		return vocab.AllowOnce, nil
	})})
	req := vocab.Request{ID: "r", Agent: vocab.Agent{Name: "test", Session: "s"}, Act: vocab.Act{Kind: vocab.Click}, Target: vocab.Target{Tab: "1"}}
	return func(quiet time.Time) audit.Ticket {
		t.Helper()
		a, err := b.Decide(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		tk, err := log.Commit(ctx, a, audit.Landing{X: x, Y: y, Scale: scale, QuietFrom: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
}

type answerFunc func(context.Context, vocab.Request) (vocab.Decision, error)

func (f answerFunc) Answer(ctx context.Context, r vocab.Request) (vocab.Decision, error) {
	return f(ctx, r)
}

// testApp is the App an executor should report for a window the test
// process made for the named application.
func testApp(t *testing.T, name string) App {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return App{Name: name, Class: strings.ToLower(name) + "." + name, PID: os.Getpid(), Exe: exe}
}

// fakeRig stages a Fake.
type fakeRig struct {
	fake    *Fake
	scale   float64
	windows []Window
	seen    int
}

func (r *fakeRig) idOf(t *testing.T, name string) uint64 {
	for _, w := range r.windows {
		if w.App.Name == name {
			return w.ID
		}
	}
	t.Fatalf("no window of %s", name)
	return 0
}

func (r *fakeRig) nameOf(id uint64) string {
	for _, w := range r.windows {
		if w.ID == id {
			return w.App.Name
		}
	}
	return ""
}

func (r *fakeRig) Focus(t *testing.T, name string) { r.fake.SetFocus(r.idOf(t, name)) }

func (r *fakeRig) FocusOnKey(t *testing.T, n int, name string) {
	id := r.idOf(t, name)
	ups := 0
	// After the n-th key has come up: the check before the next key sees
	// the focus gone, as the real desktop's would.
	r.fake.testOnlyStep = func(line string) error {
		if strings.HasPrefix(line, "key up ") {
			if ups++; ups == n {
				r.fake.SetFocus(id)
			}
		}
		return nil
	}
}

func (r *fakeRig) ShowOnPress(t *testing.T, name string, a rect) {
	pressed, shown := false, false
	// At the step after the press: the press itself landed before.
	r.fake.testOnlyStep = func(line string) error {
		switch {
		case strings.HasPrefix(line, "down "):
			pressed = true
		case pressed && !shown:
			shown = true
			r.Window(t, name, a)
		}
		return nil
	}
}

func (r *fakeRig) Landed(t *testing.T) []landed {
	names := [...]string{keyDown: "key", keyUp: "keyup", buttonDown: "press", buttonUp: "release", wheel: "wheel"}
	var out []landed
	for _, h := range r.fake.hitsNow() {
		out = append(out, landed{kind: names[h.kind], over: r.nameOf(h.window)})
	}
	return out
}

func (r *fakeRig) Executor() Executor { return r.fake }
func (r *fakeRig) Scale() float64     { return r.scale }

func (r *fakeRig) Window(t *testing.T, name string, a rect) App {
	app := testApp(t, name)
	id := uint64(len(r.windows) + 1)
	r.windows = append([]Window{{ID: id, App: app, Title: name, X: a.X, Y: a.Y, W: a.W, H: a.H}}, r.windows...)
	r.fake.SetWindows(r.windows)
	return app
}

func (r *fakeRig) Front(t *testing.T, name string) {
	for _, w := range r.windows {
		if w.App.Name == name {
			r.fake.SetFrontmost(w.App)
			return
		}
	}
	t.Fatalf("no window of %s", name)
}

func (r *fakeRig) Fired(t *testing.T) int {
	n := len(r.fake.Fired())
	d := n - r.seen
	r.seen = n
	return d
}

func (r *fakeRig) PersonMoves(t *testing.T) { r.fake.SetLastInput(time.Now()) }

func TestFakeContract(t *testing.T) {
	for _, scale := range []float64{1, 2} {
		t.Run(fmt.Sprintf("scale %g", scale), func(t *testing.T) {
			runContract(t, func(t *testing.T) rig {
				f := &Fake{}
				f.SetScreens([]Screen{{W: 1280, H: 800}}) // the X test display's size in DIP
				return &fakeRig{fake: f, scale: scale}
			})
		})
	}
}
