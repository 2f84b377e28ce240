package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// A tab's input lands only in the window that shows the tab. That window
// is found from where the browser says it is (the window metrics every
// snapshot and resolve answer carries) and what the display server says
// of the windows there (executor.TabWindow); it is named in the act's
// plan, under the ticket, and the executor stops the act when the
// keyboard focus or the window under the point is another's. A window's
// title never picks it; it only tells apart a browser's windows that lie
// at the same place.

// tabShown is where a tab's window was last reported, with the tab's
// zoom, and when.
type tabShown struct {
	win  protocol.Window
	zoom float64
	at   time.Time
}

// noteShown records where t's window is, as an answer of the extension
// says, at zoom.
func (e *Engine) noteShown(t *tabState, w protocol.Window, zoom float64) {
	if w.OuterWidth <= 0 || w.OuterHeight <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t.shown = tabShown{win: w, zoom: zoom, at: time.Now()}
}

// shownSince is where t's window is: as reported since since, else as the
// extension reports it now. Asking it now reads the tab's frames, which
// answer from the trees Reins holds when the page is still.
func (e *Engine) shownSince(ctx context.Context, t *tabState, since time.Time) (protocol.Window, float64, error) {
	e.mu.Lock()
	s := t.shown
	e.mu.Unlock()
	if !s.at.IsZero() && !s.at.Before(since) {
		return s.win, s.zoom, nil
	}
	var res protocol.SnapshotResult
	if err := e.opts.Browser.Call(ctx, t.chrome.profile, protocol.MethodSnapshot, protocol.SnapshotParams{Tab: t.chrome.id, Known: t.reader.Known()}, &res); err != nil {
		return protocol.Window{}, 0, err
	}
	for _, f := range res.Frames {
		if f.Frame == 0 && (f.Error != "" || f.Window.OuterWidth <= 0) {
			// A page stopped by a dialog of its own says nothing: the
			// caller finds the dialog, and never looks for a window at 0, 0.
			return protocol.Window{}, 0, errorf(vocab.CodeFailed, "tab %s's page did not answer (%s)", t.id, plain.Text(f.Error, plain.DetailMax))
		}
		if f.Frame == 0 {
			e.noteShown(t, f.Window, res.Zoom)
			return f.Window, res.Zoom, nil
		}
	}
	return protocol.Window{}, 0, errorf(vocab.CodeFailed, "the browser did not say where tab %s's window is", t.id)
}

// tabWindow finds the window that shows tab, whose state is info, from
// where the browser reported it since since (or now).
func (e *Engine) tabWindow(ctx context.Context, t *tabState, tab string, info protocol.Tab, since time.Time) (executor.TabWindow, error) {
	w, zoom, err := e.shownSince(ctx, t, since)
	if err != nil {
		return executor.TabWindow{}, err
	}
	tw, err := e.opts.Executor.TabWindow(ctx, executor.TabWindowQuery{
		Bounds:  executor.Bounds{X: w.ScreenX, Y: w.ScreenY, W: w.OuterWidth, H: w.OuterHeight},
		Scale:   grounding.DeviceScale(w, zoom),
		Focused: info.Focused,
		Title:   info.Title,
	})
	if errors.Is(err, executor.ErrNoTabWindow) {
		return executor.TabWindow{}, &vocab.Error{Code: vocab.CodeTabWindowUnknown, Message: fmt.Sprintf("tab %s: %v; nothing was done", tab, err), Err: err}
	}
	return tw, err
}

// pinWindow names in plan the window that shows tab: the act's keys and
// buttons land only there.
func (e *Engine) pinWindow(ctx context.Context, t *tabState, tab string, info protocol.Tab, since time.Time, plan *audit.Landing) error {
	tw, err := e.tabWindow(ctx, t, tab, info, since)
	if err != nil {
		return err
	}
	plan.Window, plan.PID = tw.ID, tw.App.PID
	return nil
}

// keysGoToTab refuses keys for tab, before anyone is asked, when the
// operating system says the keyboard focus is not in the tab's window:
// the page's own word that it has the focus is not enough.
func (e *Engine) keysGoToTab(ctx context.Context, t *tabState, tab string, info protocol.Tab, since time.Time) error {
	tw, err := e.tabWindow(ctx, t, tab, info, since)
	if err != nil {
		return err
	}
	if !tw.Focus {
		return &vocab.Error{Code: vocab.CodeFocusMoved, Message: fmt.Sprintf("the keyboard focus is in %s, not in tab %s's window, so the keys would land there; nothing was asked or pressed: bring the tab's window to the front first", appWords(tw.FocusApp), tab), Err: executor.ErrFocusMoved}
	}
	return nil
}

// appWords names an application for an agent: its name, and its process
// when known.
func appWords(a executor.App) string {
	name := plain.Text(a.Name, plain.NameMax)
	if name == "" {
		name = "an unnamed application"
	}
	if a.PID > 0 {
		return fmt.Sprintf("%s (pid %d)", name, a.PID)
	}
	return name
}
