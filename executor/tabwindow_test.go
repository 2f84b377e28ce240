package executor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

// browserAt stages the tab's window (7) over the whole test area, with
// the focus, and returns the fake.
func browserAt(t *testing.T) *Fake {
	t.Helper()
	f := fakeWithPointer(7, 9)
	chromium := App{Name: "Chromium", PID: 4000}
	f.SetWindows([]Window{{ID: 7, App: chromium, Title: "Shop - Chromium", W: 1000, H: 700}})
	f.SetFocus(7)
	return f
}

func inTab(act vocab.Act, p audit.Landing) audit.Ticket {
	p.Window, p.PID = 7, 4000
	return audit.TestOnlyTicket(act, p)
}

// Every key of a tab's act, the clear chord and the submit included, is
// preceded by the question where the focus is, a chord's modifiers going
// down with its key right after it; every button by the question which
// window is under the point.
func TestATabActAsksWhereEachKeyAndButtonLands(t *testing.T) {
	f := browserAt(t)
	tk := inTab(vocab.Act{Kind: vocab.Type, Text: "ok", Clear: true, Submit: true}, audit.Landing{X: 100, Y: 200})
	if err := f.Fire(context.Background(), tk); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(f.steps(), "\n")
	for _, want := range []string{
		"window 7 at 100,200?\ndown left 1",
		"window 7 at 100,200?\nup left 1",
		"keys into window 7?\nkey down Control\nkey down a",
		"keys into window 7?\nkey down Backspace",
		"keys into window 7?\nkey down o",
		"keys into window 7?\nkey down k",
		"keys into window 7?\nkey down Enter",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in the steps:\n%s", want, got)
		}
	}
	keys := strings.Count(got, "key down ") - strings.Count(got, "key down Control\nkey down ")
	if n := strings.Count(got, "keys into window 7?"); n != keys {
		t.Errorf("%d focus checks for %d keys:\n%s", n, keys, got)
	}
	// A desktop act, and one whose plan names no window, ask nothing of
	// the kind.
	for _, tk := range []audit.Ticket{
		audit.TestOnlyTicket(vocab.Act{Kind: vocab.Type, Text: "ok"}, audit.Landing{X: 100, Y: 200}),
		audit.TestOnlyDesktopTicket(vocab.Act{Kind: vocab.Type, Text: "ok"}, audit.Landing{X: 100, Y: 200, Window: 7}),
	} {
		f.SetFrontmost(App{Name: "xterm"})
		f.SetAppAt(App{Name: "xterm"})
		f.SetWindows(nil)
		if err := f.Fire(context.Background(), tk); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(f.steps(), "\n"); strings.Contains(got, "window 7") {
			t.Errorf("an act without the tab's rule asked:\n%s", got)
		}
	}
}

// A drag whose release is refused is let go of back where it was pressed,
// over the page, never over the window that came over its end.
func TestARefusedReleaseLetsGoWhereTheDragBegan(t *testing.T) {
	f := browserAt(t)
	f.testOnlyStep = func(line string) error {
		if line == "drag 120,200" {
			f.SetWindows([]Window{
				{ID: 9, App: App{Name: "xterm", PID: 4242}, X: 180, Y: 180, W: 100, H: 100},
				{ID: 7, App: App{Name: "Chromium", PID: 4000}, W: 1000, H: 700},
			})
		}
		return nil
	}
	tk := inTab(vocab.Act{Kind: vocab.Drag}, audit.Landing{X: 100, Y: 200, X2: 200, Y2: 200})
	err := f.Fire(context.Background(), tk)
	if !errors.Is(err, ErrNotInTabWindow) || !strings.Contains(err.Error(), "xterm (pid 4242) is under the release") || !strings.Contains(err.Error(), "after 12 input events") {
		t.Fatalf("Fire = %v, want ErrNotInTabWindow saying xterm is under the release, after the move, the press and 10 drag steps", err)
	}
	checkSteps(t, f, `
		front?
		app at 100,200?
		app at 200,200?
		move 100,200
		wait 20ms
		window 7 at 200,200?
		window 7 at 100,200?
		down left 1
		wait 15ms
		drag 110,200
		wait 15ms
		drag 120,200
		wait 15ms
		drag 130,200
		wait 15ms
		drag 140,200
		wait 15ms
		drag 150,200
		wait 15ms
		drag 160,200
		wait 15ms
		drag 170,200
		wait 15ms
		drag 180,200
		wait 15ms
		drag 190,200
		wait 15ms
		drag 200,200
		wait 20ms
		window 7 at 200,200?
		drag 100,200
		up left 1`)
	for _, h := range f.hitsNow() {
		if h.window != 7 {
			t.Errorf("a button event reached window %d at %v", h.window, h.at)
		}
	}
}

// Keys stop at once when the focus leaves the tab's window, with what they
// held let go of; the error names what holds the focus and how far the act
// went.
func TestKeysStopWhenTheFocusLeavesTheTabsWindow(t *testing.T) {
	f := browserAt(t)
	f.SetWindows([]Window{
		{ID: 7, App: App{Name: "Chromium", PID: 4000}, W: 1000, H: 700},
		{ID: 8, App: App{Name: "Chromium", PID: 4000}, Title: "Popup", X: 1100, W: 100, H: 100},
	})
	f.testOnlyStep = func(line string) error {
		if line == "key up i" {
			f.SetFocus(8) // the page's popup takes the focus
		}
		return nil
	}
	err := f.Fire(context.Background(), inTab(vocab.Act{Kind: vocab.Type, Text: "Hi there"}, audit.Landing{}))
	if !errors.Is(err, ErrFocusMoved) || !strings.Contains(err.Error(), "Chromium (pid 4000) holds it") || !strings.Contains(err.Error(), "after 4 input events") {
		t.Fatalf("Fire = %v, want ErrFocusMoved naming the popup's browser, after 4 events", err)
	}
	checkSteps(t, f, `
		front?
		front?
		keys into window 7?
		key down H
		wait 10ms
		key up H
		front?
		keys into window 7?
		key down i
		wait 10ms
		key up i
		front?
		keys into window 7?`)
}

// TabWindow's choice among windows lying where the browser says: a web
// browser's, the focused one, then the titled one; never a title alone.
func TestPickTabWindow(t *testing.T) {
	chromium, editor := App{Name: "Chromium", PID: 1}, App{Name: "gedit", PID: 2}
	b := Bounds{W: 800, H: 600}
	for _, c := range []struct {
		what  string
		cands []tabCandidate
		q     TabWindowQuery
		want  uint64 // 0: refused
	}{
		{"the one browser window", []tabCandidate{{id: 1, app: chromium}}, TabWindowQuery{Bounds: b}, 1},
		{"no window", nil, TabWindowQuery{Bounds: b, Title: "Shop"}, 0},
		{"another application's only", []tabCandidate{{id: 2, app: editor, title: "Shop - Chromium"}}, TabWindowQuery{Bounds: b, Title: "Shop", Focused: true}, 0},
		{"the browser's among others", []tabCandidate{{id: 2, app: editor, front: true}, {id: 1, app: chromium}}, TabWindowQuery{Bounds: b, Focused: true}, 1},
		{"the focused of two", []tabCandidate{{id: 1, app: chromium}, {id: 3, app: chromium, front: true}}, TabWindowQuery{Bounds: b, Focused: true}, 3},
		{"the front one only when the tab's window has the focus", []tabCandidate{{id: 1, app: chromium}, {id: 3, app: chromium, front: true}}, TabWindowQuery{Bounds: b}, 0},
		{"the titled of two", []tabCandidate{{id: 1, app: chromium, title: "Shop - Chromium"}, {id: 3, app: chromium, title: "Mail - Chromium"}}, TabWindowQuery{Bounds: b, Title: "Shop"}, 1},
		{"two titled alike", []tabCandidate{{id: 1, app: chromium, title: "Shop - Chromium"}, {id: 3, app: chromium, title: "Shop - Chromium"}}, TabWindowQuery{Bounds: b, Title: "Shop"}, 0},
		{"a title that only starts alike", []tabCandidate{{id: 1, app: chromium, title: "Shopping - Chromium"}, {id: 3, app: chromium, title: "Mail - Chromium"}}, TabWindowQuery{Bounds: b, Title: "Shop"}, 0},
	} {
		got, err := pickTabWindow(c.cands, c.q)
		if c.want == 0 && !errors.Is(err, ErrNoTabWindow) || c.want != 0 && (err != nil || got.id != c.want) {
			t.Errorf("%s: %d, %v; want %d", c.what, got.id, err, c.want)
		}
	}
}

func TestBoundsFitWithinAFewDIP(t *testing.T) {
	b := Bounds{X: 10, Y: 20, W: 800, H: 600}
	for _, c := range []struct {
		x, y, w, h float64
		fits       bool
	}{
		{10, 20, 800, 600, true},
		{11.5, 19, 799, 601.5, true},
		{10, 20, 804, 600, false},
		{0, 0, 1280, 800, false},
		{13, 20, 800, 600, false},
	} {
		if got := b.Fits(c.x, c.y, c.w, c.h); got != c.fits {
			t.Errorf("%v.Fits(%g, %g, %g, %g) = %v", b, c.x, c.y, c.w, c.h, got)
		}
	}
	if (Bounds{}).Fits(0, 0, 0, 0) {
		t.Error("empty bounds fit an empty window")
	}
}

// On macOS a tab's window is a normal-layer window at the bounds; the one
// in front of the focused application's windows takes its keys.
func TestMacTabCandidates(t *testing.T) {
	ws := []macWindowInfo{
		{OwnerPID: 9, Layer: 25, Bounds: macBounds{0, 0, 800, 600}, Alpha: 1, Number: 1}, // a panel above
		{OwnerPID: 5, Layer: 0, Bounds: macBounds{0, 0, 800, 600}, Alpha: 0, Number: 2},  // invisible
		{OwnerPID: 5, Layer: 0, Bounds: macBounds{0, 0, 800, 600}, Alpha: 1, Number: 3},  // the focused app's front window
		{OwnerPID: 5, Layer: 0, Bounds: macBounds{0, 0, 800, 600}, Alpha: 1, Number: 4},  // behind it
		{OwnerPID: 6, Layer: 0, Bounds: macBounds{50, 0, 800, 600}, Alpha: 1, Number: 5}, // elsewhere
	}
	app := func(w macWindowInfo) App { return App{Name: "Google Chrome", PID: w.OwnerPID} }
	got := macTabCandidates(ws, Bounds{W: 800, H: 600}, 5, app)
	if len(got) != 2 || got[0].id != 3 || !got[0].front || got[1].id != 4 || got[1].front {
		t.Errorf("candidates %+v, want windows 3 (front) and 4", got)
	}
	if w, ok := macKeyWindow(ws, 6); !ok || w.Number != 5 {
		t.Errorf("key window of pid 6 = %+v, %v", w, ok)
	}
	if _, ok := macKeyWindow(ws, 0); ok {
		t.Error("a key window for no process")
	}
}

// When which window is under a release cannot be read, the act stops and
// the button is still let go of.
func TestAReleaseWhoseWindowCannotBeReadStillLetsGo(t *testing.T) {
	f := browserAt(t)
	unreadable := errors.New("the display did not answer")
	seen := 0
	f.testOnlyStep = func(line string) error {
		if line == "window 7 at 100,200?" {
			if seen++; seen == 2 { // the press's is the first
				return unreadable
			}
		}
		return nil
	}
	err := f.Fire(context.Background(), inTab(vocab.Act{Kind: vocab.Click}, audit.Landing{X: 100, Y: 200}))
	if !errors.Is(err, unreadable) || errors.Is(err, ErrNotInTabWindow) {
		t.Fatalf("Fire = %v, want the display's error", err)
	}
	steps := f.steps()
	if last := steps[len(steps)-1]; last != "up left 1" {
		t.Errorf("the last step is %q, want the button let go of:\n%s", last, strings.Join(steps, "\n"))
	}
}
