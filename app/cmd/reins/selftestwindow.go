//go:build cgo

package main

import (
	"bufio"
	"encoding/json"
	"image/color"
	"os"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/reins-app/reins/core"
)

// runSelfTestWindow is the self-test's window, a child of Reins: areas
// that take a click, a double click, typing, the wheel and a drag, each
// saying on stdout what its own handlers saw; a password field; a block of
// a colour no theme paints, for the picture check. It quits when its stdin
// ends, so it never outlives the Reins that started it.
func runSelfTestWindow([]string) error {
	a := app.NewWithID("app.reins.Reins.selftest")
	w := a.NewWindow(core.TestWindowTitle)
	out := &eventWriter{enc: json.NewEncoder(os.Stdout)}
	tw := newTestWindow(w, out)
	w.SetContent(tw.content)
	w.Resize(testWindowSize)
	w.SetFixedSize(true)
	w.SetCloseIntercept(func() {}) // the test closes it, not a stray click
	a.Lifecycle().SetOnStarted(func() {
		w.RequestFocus()
		tw.sayReady()
		go tw.follow(a)
	})
	w.Show()
	a.Run()
	return nil
}

// testWindowSize is the content's size, in fyne's units.
var testWindowSize = fyne.NewSize(440, 300)

// The areas, in fyne's units within the content.
var testAreas = map[string]fyne.Position{
	core.AreaMarker: {X: 12, Y: 10},
	core.AreaClick:  {X: 20, Y: 40},
	core.AreaDouble: {X: 160, Y: 40},
	core.AreaScroll: {X: 300, Y: 40},
	core.AreaText:   {X: 20, Y: 100},
	core.AreaSecret: {X: 20, Y: 180},
	core.AreaDrag:   {X: 20, Y: 236},
}

var testSizes = map[string]fyne.Size{
	core.AreaMarker: {Width: 48, Height: 20},
	core.AreaClick:  {Width: 120, Height: 48},
	core.AreaDouble: {Width: 120, Height: 48},
	core.AreaScroll: {Width: 120, Height: 124},
	core.AreaText:   {Width: 260, Height: 68},
	core.AreaSecret: {Width: 260, Height: 40},
	core.AreaDrag:   {Width: 80, Height: 48},
}

type testWindow struct {
	w       fyne.Window
	out     *eventWriter
	content *fyne.Container
	text    *reportingEntry
}

func newTestWindow(w fyne.Window, out *eventWriter) *testWindow {
	tw := &testWindow{w: w, out: out}
	scale := func() float32 { return w.Canvas().Scale() }
	report := func(ev core.TestWindowEvent, at fyne.Position) {
		s := float64(scale())
		ev.X, ev.Y = float64(at.X)*s, float64(at.Y)*s
		out.say(ev)
	}
	back := &backdrop{area{name: core.AreaElsewhere, fill: color.NRGBA{0xf4, 0xf4, 0xf2, 0xff}, report: report}}
	back.ExtendBaseWidget(back)
	marker := canvas.NewRectangle(color.NRGBA{core.TestWindowMarker[0], core.TestWindowMarker[1], core.TestWindowMarker[2], 0xff})
	click := &area{name: core.AreaClick, label: "Click", fill: color.NRGBA{0xcf, 0xe3, 0xff, 0xff}, report: report}
	click.ExtendBaseWidget(click)
	double := &doubleArea{area{name: core.AreaDouble, label: "Double-click", fill: color.NRGBA{0xd7, 0xf0, 0xd0, 0xff}, report: report}}
	double.ExtendBaseWidget(double)
	scroll := &scrollArea{area{name: core.AreaScroll, label: "Scroll", fill: color.NRGBA{0xff, 0xec, 0xc8, 0xff}, report: report}}
	scroll.ExtendBaseWidget(scroll)
	drag := &dragArea{area: area{name: core.AreaDrag, label: "Drag", fill: color.NRGBA{0xf0, 0xd4, 0xf4, 0xff}, report: report}}
	drag.ExtendBaseWidget(drag)
	tw.text = newReportingEntry(out)
	tw.text.SetText(core.TestWindowSeed)
	secret := widget.NewPasswordEntry()
	secret.SetText(core.TestWindowSecret)

	objs := map[string]fyne.CanvasObject{
		core.AreaMarker: marker, core.AreaClick: click, core.AreaDouble: double, core.AreaScroll: scroll,
		core.AreaText: tw.text, core.AreaSecret: secret, core.AreaDrag: drag,
	}
	back.Resize(testWindowSize)
	items := []fyne.CanvasObject{back}
	for _, name := range []string{core.AreaMarker, core.AreaClick, core.AreaDouble, core.AreaScroll, core.AreaText, core.AreaSecret, core.AreaDrag} {
		o := objs[name]
		o.Move(testAreas[name])
		o.Resize(testSizes[name])
		items = append(items, o)
	}
	tw.content = container.NewWithoutLayout(items...)
	return tw
}

// sayReady tells Reins the window is up: its process, its content's size
// and where each area is, in the windowing system's units.
func (tw *testWindow) sayReady() {
	s := float64(tw.w.Canvas().Scale())
	size := tw.w.Canvas().Size()
	areas := map[string]core.TestWindowBox{}
	for name, p := range testAreas {
		sz := testSizes[name]
		areas[name] = core.TestWindowBox{X: float64(p.X) * s, Y: float64(p.Y) * s, W: float64(sz.Width) * s, H: float64(sz.Height) * s}
	}
	tw.out.say(core.TestWindowEvent{Ev: "ready", PID: os.Getpid(), W: float64(size.Width) * s, H: float64(size.Height) * s, Scale: s, Areas: areas})
}

// follow reads Reins' requests: focus, sync N, quit. The end of stdin is
// a quit: Reins is gone.
func (tw *testWindow) follow(a fyne.App) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "focus":
			// The window to the front, the keys to its text field: what
			// the test types goes there, with no click that a toolkit
			// may take its time to turn into focus.
			fyne.Do(func() {
				tw.w.RequestFocus()
				tw.w.Canvas().Focus(tw.text)
				tw.out.say(core.TestWindowEvent{Ev: "focused", Area: core.AreaText})
			})
		case "sync":
			n, _ := strconv.Atoi(f[len(f)-1])
			// Queued behind the input the toolkit has taken so far.
			fyne.Do(func() { tw.out.say(core.TestWindowEvent{Ev: "synced", N: n}) })
		case "quit":
			fyne.Do(a.Quit)
			return
		}
	}
	fyne.Do(a.Quit)
}

// eventWriter writes the window's events, one JSON line each.
type eventWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (e *eventWriter) say(ev core.TestWindowEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.enc.Encode(ev)
}

// area is a coloured box with a label that reports the clicks it takes.
type area struct {
	widget.BaseWidget
	name, label string
	fill        color.Color
	report      func(core.TestWindowEvent, fyne.Position)
}

func (a *area) CreateRenderer() fyne.WidgetRenderer {
	bg := canvas.NewRectangle(a.fill)
	if a.label == "" {
		return widget.NewSimpleRenderer(bg)
	}
	txt := canvas.NewText(a.label, color.NRGBA{0x20, 0x20, 0x20, 0xff})
	return widget.NewSimpleRenderer(container.NewStack(bg, container.NewCenter(txt)))
}

func (a *area) Tapped(ev *fyne.PointEvent) {
	a.report(core.TestWindowEvent{Ev: "tap", Area: a.name}, ev.AbsolutePosition)
}

// backdrop is the window behind the areas: it reports a click or a press
// that landed off every area, and, being a place that takes a button's
// release, lets a drag that ends over it report where it let go.
type backdrop struct{ area }

func (b *backdrop) MouseDown(ev *desktop.MouseEvent) {
	b.report(core.TestWindowEvent{Ev: "down", Area: b.name}, ev.AbsolutePosition)
}

func (b *backdrop) MouseUp(*desktop.MouseEvent) {}

// doubleArea takes double clicks only, so that fyne does not hold a single
// one back to see whether a second follows.
type doubleArea struct{ area }

func (a *doubleArea) Tapped(*fyne.PointEvent) {}

func (a *doubleArea) DoubleTapped(ev *fyne.PointEvent) {
	a.report(core.TestWindowEvent{Ev: "doubletap", Area: a.name}, ev.AbsolutePosition)
}

type scrollArea struct{ area }

func (a *scrollArea) Scrolled(ev *fyne.ScrollEvent) {
	a.report(core.TestWindowEvent{Ev: "scroll", Area: a.name, DX: float64(ev.Scrolled.DX), DY: float64(-ev.Scrolled.DY)}, ev.AbsolutePosition)
}

// dragArea reports the button going down and up on it, and the drag.
type dragArea struct {
	area
	last fyne.Position
}

func (a *dragArea) MouseDown(ev *desktop.MouseEvent) {
	a.report(core.TestWindowEvent{Ev: "down", Area: a.name}, ev.AbsolutePosition)
}

func (a *dragArea) MouseUp(ev *desktop.MouseEvent) {
	a.report(core.TestWindowEvent{Ev: "up", Area: a.name}, ev.AbsolutePosition)
}

func (a *dragArea) Dragged(ev *fyne.DragEvent) {
	a.last = ev.AbsolutePosition
	a.report(core.TestWindowEvent{Ev: "drag", Area: a.name}, ev.AbsolutePosition)
}

func (a *dragArea) DragEnd() {
	a.report(core.TestWindowEvent{Ev: "dragend", Area: a.name}, a.last)
}

// reportingEntry is a multi-line text field that says its text at every
// change and the shortcuts it takes, with its selection after each.
type reportingEntry struct {
	widget.Entry
	out *eventWriter
}

func newReportingEntry(out *eventWriter) *reportingEntry {
	e := &reportingEntry{out: out}
	e.MultiLine = true
	e.ExtendBaseWidget(e)
	e.OnChanged = func(s string) { out.say(core.TestWindowEvent{Ev: "text", Area: core.AreaText, Text: s}) }
	return e
}

func (e *reportingEntry) TypedShortcut(s fyne.Shortcut) {
	e.Entry.TypedShortcut(s)
	e.out.say(core.TestWindowEvent{Ev: "shortcut", Area: core.AreaText, Text: s.ShortcutName(), Selected: e.SelectedText()})
}
