//go:build cgo

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/reins-app/reins/app/ui"
	"github.com/reins-app/reins/vocab"
)

// glfwWatch is a fyne app that records the calls that would start GLFW
// under the real driver: a window made, or Run.
type glfwWatch struct {
	fyne.App
	calls *[]string
}

func (w glfwWatch) NewWindow(title string) fyne.Window {
	*w.calls = append(*w.calls, "window "+title)
	return w.App.NewWindow(title)
}

func (w glfwWatch) Run() { *w.calls = append(*w.calls, "run") }

func TestGLFWHintsComeBeforeFyneStartsGLFW(t *testing.T) {
	var calls []string
	engine := ui.NewFakeEngine()
	// A question already waiting makes ui.New open the popup's window at
	// once: the earliest GLFW can start.
	r := vocab.Request{ID: "q1", Agent: vocab.Agent{Name: "Claude Code", PID: 4121}, Act: vocab.Act{Kind: vocab.Click}}
	r.Target.Tab, r.Target.Origin = "1", "https://shop.example.com"
	engine.Ask(r)
	a, u := openUI(
		func() { calls = append(calls, "GLFW hints") },
		func() fyne.App {
			calls = append(calls, "new app")
			return glfwWatch{App: test.NewTempApp(t), calls: &calls}
		},
		// A clock of the test's: the popup's countdown never ticks on a
		// timer's goroutine, which the test driver would run unguarded.
		func(a fyne.App) ui.Options {
			return ui.Options{App: a, Engine: engine, Clock: ui.NewFakeClock(time.Now())}
		},
	)
	defer u.Stop()
	a.Run()
	hints := slices.Index(calls, "GLFW hints")
	first := slices.IndexFunc(calls, func(c string) bool { return c == "run" || strings.HasPrefix(c, "window ") })
	if hints < 0 || first < 0 || hints > first {
		t.Fatalf("calls = %q; want the GLFW hints before the first window and Run", calls)
	}
	if !slices.Contains(calls, "window Reins — approval") {
		t.Fatalf("calls = %q; the waiting question made no window, so the order was not tested", calls)
	}
}

func TestOpenUIWithoutHints(t *testing.T) {
	// Where no hint is needed (Linux), glfwHints is nil and openUI goes on.
	a, u := openUI(nil, func() fyne.App { return test.NewTempApp(t) }, func(a fyne.App) ui.Options {
		return ui.Options{App: a, Engine: ui.NewFakeEngine(), Clock: ui.NewFakeClock(time.Now())}
	})
	defer u.Stop()
	if a == nil || u == nil {
		t.Fatal("openUI made no app or UI")
	}
}
