package core

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/executor"
	gdesktop "github.com/reins-app/reins/grounding/desktop"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/vocab"
)

// Desktop reads the desktop. It needs the desktop given to agents at Read or
// more (DesktopKey), and is audited as a read.
func (s *Session) Desktop(ctx context.Context) (*agentdoor.DesktopView, error) {
	return s.DesktopWith(ctx, agentdoor.DesktopOptions{})
}

// DesktopWith is [Session.Desktop], the elements shown as o says.
func (s *Session) DesktopWith(ctx context.Context, o agentdoor.DesktopOptions) (*agentdoor.DesktopView, error) {
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Read}, Target: vocab.Target{Desktop: true, Name: "desktop"}}
	return audited(ctx, s, en, func(*audit.Entry) (*agentdoor.DesktopView, func(), error) {
		v, err := s.desktop(ctx, o)
		return v, nil, err
	}, nil)
}

func (s *Session) desktop(ctx context.Context, o agentdoor.DesktopOptions) (*agentdoor.DesktopView, error) {
	if err := s.admitted(ctx); err != nil {
		return nil, err
	}
	if err := s.e.shares.Check(vocab.DesktopKey, "", vocab.ReadOnly); err != nil {
		return nil, err
	}
	s.e.refreshOwn() // every Reins' windows, left out as they are now
	front, err := s.e.opts.Executor.Frontmost(ctx)
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "the application in front cannot be read: %v", err)
	}
	ws, err := s.e.opts.Executor.Windows(ctx)
	if err != nil {
		return nil, errorf(vocab.CodeFailed, "the windows cannot be listed: %v", err)
	}
	now := s.e.opts.Now
	windowsAt := now()
	v := &agentdoor.DesktopView{Frontmost: front}
	if ws != nil {
		v.Windows = make([]agentdoor.Window, 0, len(ws))
	}
	deny := s.e.denyList(s.e.Settings().DenyAdded)
	for _, w := range ws {
		title := w.Title
		if s.e.hidden(w.App, deny) {
			// A browser's title is its tab's, which may not be shared; a
			// deny-listed application's may name a vault.
			title = ""
		}
		v.Windows = append(v.Windows, agentdoor.Window{App: w.App, Title: title, X: w.X, Y: w.Y, W: w.W, H: w.H, Active: w.Active})
	}
	budget := o.MaxChars
	if budget == 0 {
		budget = agentdoor.TextBudget(0)
	}
	snap, text, note := s.desktopElements(ctx, front, budget, o)
	parts := []part{{"the window list", windowsAt}, {"the window in front", now()}}
	desktopRefWords(v, snap, text, note)
	if o.Find == "" {
		left := agentdoor.NoBudget
		if budget > 0 {
			left = max(budget-len(text), agentdoor.AnswerRoom)
		}
		var tabsAt time.Time
		v.Tabs, tabsAt = s.tabsOnScreen(ctx, ws, front, left)
		if !tabsAt.IsZero() {
			parts = append(parts, part{"the tabs behind", tabsAt})
		}
	}
	v.Ages = ages(now(), parts)
	return v, nil
}

// part is one part of an answer, read at at.
type part struct {
	name string
	at   time.Time
}

// ages says how long before done each part was read, marking those read
// longer ago than the desktop reads as fresh: a slow application read
// after them may have kept the answer back that long.
func ages(done time.Time, parts []part) []agentdoor.Age {
	out := make([]agentdoor.Age, len(parts))
	for i, p := range parts {
		age := max(done.Sub(p.at), 0)
		out[i] = agentdoor.Age{Part: p.name, Age: age, Stale: age > gdesktop.MaxAge}
	}
	return out
}

// DesktopAct runs a desktop act through the desktop share (Control), the
// person's approval, the committed audit row and the executor, which refuses
// deny-listed applications in front or under the point right before firing.
func (s *Session) DesktopAct(ctx context.Context, r agentdoor.DesktopActRequest) (*agentdoor.ActResult, error) {
	en := audit.Entry{Agent: s.agent, Act: r.Act, Target: vocab.Target{Desktop: true, Claim: r.Element}}
	res, err := s.desktopAct(ctx, r, &en)
	if err != nil {
		return nil, s.refuse(ctx, en, err)
	}
	return res, nil
}

func (s *Session) desktopAct(ctx context.Context, r agentdoor.DesktopActRequest, en *audit.Entry) (*agentdoor.ActResult, error) {
	e := s.e
	plan := audit.Landing{Scale: 1}
	point := false // the act lands at (r.X, r.Y), not wherever the focus is
	// want is, for an act by desktop ref, the element as the person is
	// asked about it: at fire time it must still be that one.
	var want *gdesktop.Target
	switch {
	case r.Ref != "" && (r.Act.Kind == vocab.Click || r.Act.Kind == vocab.DoubleClick || r.Act.Kind == vocab.RightClick || r.Act.Kind == vocab.Type):
		if err := s.admitted(ctx); err != nil {
			return nil, err
		}
		if err := e.shares.Check(vocab.DesktopKey, "", vocab.ReadOnly); err != nil {
			return nil, err
		}
		asked, err := s.deskRef(r.Ref)
		if err != nil {
			return nil, err
		}
		deskRefTarget(&en.Target, asked)
		t, x, y, err := s.deskTarget(ctx, asked)
		if err != nil {
			return nil, err
		}
		want = &asked
		if t.Secret && r.Act.Kind == vocab.Type {
			r.Act.Secret, en.Act.Secret = true, true
		}
		plan.X, plan.Y, point = x, y, true
		r.X, r.Y = x, y
	case r.Ref != "":
		return nil, errorf(vocab.CodeBadRequest, "%s takes no ref: it goes wherever the keyboard focus is", r.Act.Kind)
	case r.Act.Kind == vocab.Click || r.Act.Kind == vocab.DoubleClick || r.Act.Kind == vocab.RightClick:
		plan.X, plan.Y, point = r.X, r.Y, true
		en.Target.Name = fmt.Sprintf("the point %.0f, %.0f", r.X, r.Y)
	case r.Act.Kind == vocab.Type || r.Act.Kind == vocab.Key:
		// Type and Key land on whatever has focus: the plan stays at the origin.
		if r.Act.Kind == vocab.Type && s.focusedSecret(ctx) {
			r.Act.Secret, en.Act.Secret = true, true
		}
	default:
		return nil, errorf(vocab.CodeBadRequest, "%q is not a desktop act; use click, type or key", r.Act.Kind)
	}
	if err := possible(en); err != nil {
		return nil, err
	}
	if err := s.admitted(ctx); err != nil {
		return nil, err
	}
	if e.Paused() {
		return nil, errorf(vocab.CodePaused, "the person has paused all agents; wait and try again later")
	}
	if err := e.shares.Check(vocab.DesktopKey, "", vocab.Control); err != nil {
		if e.shares.Get(vocab.DesktopKey).Level == vocab.ReadOnly {
			return nil, &vocab.Error{Code: vocab.CodeControlRequired, Message: "the desktop is open to agents read-only; ask the person for Control from the Reins menu", Err: err}
		}
		return nil, err
	}
	if err := e.canInput(r.Act.Kind); err != nil {
		return nil, err
	}
	if err := e.personTerminalShown(ctx); err != nil {
		return nil, err
	}
	if err := e.notOwn(ctx, r); err != nil {
		return nil, err
	}
	if point {
		if err := e.onScreen(ctx, "the point", r.X, r.Y, "look at the desktop again (desktop_observe) and pick a point inside one"); err != nil {
			return nil, err
		}
	}
	en.Target.App, en.Target.Window, en.Target.Terminal = e.seenAt(ctx, r)
	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: r.Act, Target: en.Target}
	done := ""
	if r.Element != "" {
		done = "the agent described the target as " + quoteIf(r.Element)
	}
	return s.decideAndFire(ctx, firing{
		req: req, en: en, input: true, done: done,
		ready: func(ctx context.Context) (audit.Landing, error) {
			if err := e.shares.Check(vocab.DesktopKey, "", vocab.Control); err != nil {
				return plan, err
			}
			if r.Ref == "" {
				return plan, nil
			}
			// Found again right before the row: the element may have gone,
			// changed or been covered while the person looked.
			_, x, y, err := s.deskTarget(ctx, *want)
			if err != nil {
				return plan, err
			}
			plan.X, plan.Y = x, y
			return plan, nil
		},
		perform: e.opts.Executor.Fire,
	})
}

// seenAt is what Reins itself sees where a desktop act lands, for the
// person to weigh against the agent's words: the application under the
// point (for typing and keys, the one in front, which has the keyboard) and
// the title of its window there. It is asked before the person is, so it
// shows the desktop as the agent found it; the executor checks the deny
// list again right before firing. What cannot be read is said as such.
// terminal says the application is a terminal emulator.
func (e *Engine) seenAt(ctx context.Context, r agentdoor.DesktopActRequest) (app, window string, terminal bool) {
	x := e.opts.Executor
	// Typing by ref clicks the element first: it lands at the point too.
	point := r.Act.Kind != vocab.Type && r.Act.Kind != vocab.Key || r.Ref != ""
	var a executor.App
	var err error
	if point {
		a, err = x.AppAt(ctx, r.X, r.Y)
	} else {
		a, err = x.Frontmost(ctx)
	}
	if err != nil {
		return "an application Reins cannot identify (" + plain.Text(err.Error(), plain.DetailMax) + ")", "", false
	}
	app = plain.App(a.Name, a.Exe, a.PID)
	_, terminal = denylist.Terminals.Match(a)
	ws, err := x.Windows(ctx)
	if err != nil {
		return app, "", terminal
	}
	for _, w := range ws { // front to back: the first that covers the point is the one under it
		mine := a.PID != 0 && w.App.PID == a.PID || a.PID == 0 && w.App.Name == a.Name
		if point && r.X >= w.X && r.X < w.X+w.W && r.Y >= w.Y && r.Y < w.Y+w.H ||
			!point && mine && w.Active {
			return app, w.Title, terminal
		}
	}
	if !point {
		for _, w := range ws {
			if a.PID != 0 && w.App.PID == a.PID {
				return app, w.Title, terminal
			}
		}
	}
	return app, "", terminal
}

// notOwn refuses, before the person is asked, a desktop act that would land
// on one of Reins' own windows as the desktop is now (its popup or windows,
// the terminal running reins serve), on a deny-listed application or in a
// web browser. The executor checks again right before firing.
func (e *Engine) notOwn(ctx context.Context, r agentdoor.DesktopActRequest) error {
	x := e.opts.Executor
	var a executor.App
	var err error
	if (r.Act.Kind == vocab.Type || r.Act.Kind == vocab.Key) && r.Ref == "" {
		a, err = x.Frontmost(ctx)
	} else {
		a, err = x.AppAt(ctx, r.X, r.Y)
	}
	if err != nil {
		return nil // the executor decides, failing closed when it cannot tell
	}
	e.refreshOwn() // another Reins may have started since the last act
	if a.PID > 1 && slices.Contains(e.ownProcesses(), a.PID) {
		return &vocab.Error{Code: vocab.CodeOwnWindow, Message: "that lands on a window of Reins (this one or another on the desktop) or of the terminal that started it, which no agent may click or type into; nothing was done", Err: executor.ErrOwnWindow}
	}
	// Nor is the person asked about an act on an application the deny list
	// keeps agents off; the executor checks again right before firing.
	if rule, denied := e.denyList(e.Settings().DenyAdded).Match(a); denied {
		return &vocab.Error{Code: vocab.CodeDenyListed, Message: fmt.Sprintf("that lands on %s, which is on the deny list (%s); nothing was asked or done", plain.App(a.Name, a.Exe, a.PID), plain.Text(rule, plain.NameMax)), Err: executor.ErrDenyListed}
	}
	// Nor in a web browser: the desktop at Control would otherwise reach
	// every tab, shared or not, past the tab's share and its checks.
	if isBrowser(a) {
		return &vocab.Error{Code: vocab.CodeBrowserWindow, Message: fmt.Sprintf("that lands in %s, a web browser; act on a tab the person shared with you with the browser tools (browser_click, browser_type, browser_press_key, browser_handle_dialog…); nothing was asked or done", plain.App(a.Name, a.Exe, a.PID)), Err: executor.ErrBrowser}
	}
	return nil
}
