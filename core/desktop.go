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

// desktopAct walks a desktop act through its stages in order: whether the
// agent may act on the desktop at all, what Reins reads where the act
// lands (deskGround, each question asked once), the refusals that reading
// decides, then the person's approval, the audit row and the executor.
func (s *Session) desktopAct(ctx context.Context, r agentdoor.DesktopActRequest, en *audit.Entry) (*agentdoor.ActResult, error) {
	e := s.e
	if err := deskActShape(r); err != nil {
		return nil, err
	}
	byRef := r.Ref != ""
	if !byRef && r.Act.Kind != vocab.Type && r.Act.Kind != vocab.Key {
		en.Target.Name = fmt.Sprintf("the point %.0f, %.0f", r.X, r.Y)
	}
	if err := s.admitted(ctx); err != nil {
		s.typedSecret(ctx, r, en)
		return nil, err
	}
	// want is, for an act by desktop ref, the element as the person is
	// asked about it: at fire time it must still be that one. It is the
	// element of the agent's last desktop view, known without asking the
	// desktop anything, so that a refusal below still names it in the row.
	var want *gdesktop.Target
	var stale error
	if byRef {
		asked, err := s.deskRef(r.Ref)
		if err == nil {
			want = &asked
			deskRefTarget(&en.Target, asked)
			if asked.Secret && r.Act.Kind == vocab.Type {
				r.Act.Secret, en.Act.Secret = true, true
			}
		}
		stale = err
	}
	if err := s.mayActOnDesktop(r.Act.Kind); err != nil {
		s.typedSecret(ctx, r, en)
		return nil, err
	}
	if stale != nil {
		return nil, stale
	}
	g, err := s.deskGround(ctx, r, want)
	if err != nil {
		return nil, err
	}
	if g.secret && r.Act.Kind == vocab.Type {
		r.Act.Secret, en.Act.Secret = true, true
	}
	if err := possible(en); err != nil {
		return nil, err
	}
	if err := e.deskRefused(g); err != nil {
		return nil, err
	}
	en.Target.App, en.Target.Window, en.Target.Terminal = g.seen()
	plan := audit.Landing{Scale: 1}
	if g.point {
		plan.X, plan.Y = g.x, g.y
	}
	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: r.Act, Target: en.Target}
	done := ""
	if r.Element != "" {
		done = "the agent described the target as " + quoteIf(r.Element)
	}
	return s.decideAndFire(ctx, firing{
		req: req, en: en, input: true, done: done,
		// ready runs right before the row, once the person has answered:
		// what was checked before they were asked is checked again where
		// it may have changed while they looked. The share may have been
		// taken back, and a ref is refused once stale: its element is found
		// again, and the act lands where it is now.
		ready: func(ctx context.Context) (audit.Landing, error) {
			if err := e.shares.Check(vocab.DesktopKey, "", vocab.Control); err != nil {
				return plan, err
			}
			if want == nil {
				return plan, nil
			}
			_, x, y, _, err := s.deskTarget(ctx, *want)
			if err != nil {
				return plan, err
			}
			plan.X, plan.Y = x, y
			return plan, nil
		},
		perform: e.opts.Executor.Fire,
	})
}

// deskActShape refuses a desktop act that is not one, or that names a ref
// where it takes none, before anything is asked or read.
func deskActShape(r agentdoor.DesktopActRequest) error {
	switch k := r.Act.Kind; {
	case k == vocab.Click || k == vocab.DoubleClick || k == vocab.RightClick || k == vocab.Type:
		return nil
	case r.Ref != "":
		return errorf(vocab.CodeBadRequest, "%s takes no ref: it goes wherever the keyboard focus is", k)
	case k == vocab.Key:
		return nil
	default:
		return errorf(vocab.CodeBadRequest, "%q is not a desktop act; use click, type or key", k)
	}
}

// typedSecret marks text to type wherever the focus is, refused before the
// desktop was read, as secret when the focus is in a password field: its
// row keeps only its length, as the row of one refused later does. Text
// typed by ref is marked from the agent's last desktop view.
func (s *Session) typedSecret(ctx context.Context, r agentdoor.DesktopActRequest, en *audit.Entry) {
	if r.Act.Kind != vocab.Type || r.Ref != "" {
		return
	}
	e := s.e
	front, err := e.opts.Executor.Frontmost(ctx)
	if err == nil && s.focusedSecret(ctx, front, e.denyList(e.Settings().DenyAdded)) {
		en.Act.Secret = true
	}
}

// mayActOnDesktop refuses a desktop act the agent may not make at all now:
// while the person has paused agents, while the desktop is not given to
// agents at Control, and when this Reins has no display to send input to.
// The agent is admitted first.
func (s *Session) mayActOnDesktop(kind vocab.ActKind) error {
	e := s.e
	if e.Paused() {
		return errorf(vocab.CodePaused, "the person has paused all agents; wait and try again later")
	}
	if err := e.shares.Check(vocab.DesktopKey, "", vocab.Control); err != nil {
		if e.shares.Get(vocab.DesktopKey).Level == vocab.ReadOnly {
			return &vocab.Error{Code: vocab.CodeControlRequired, Message: "the desktop is open to agents read-only; ask the person for Control from the Reins menu", Err: err}
		}
		return err
	}
	return e.canInput(kind)
}

// deskGround is what Reins reads of the desktop where a desktop act lands,
// before the person is asked: each question asked once, its answer kept
// for the refusals it decides (deskRefused) and for what the person is
// shown (seen). What could not be read is kept as its error.
type deskGround struct {
	// point says the act lands at (x, y), in DIP: a click, or an act by
	// ref, whose element's centre it is; else it goes wherever the focus
	// is, in the application in front.
	point bool
	x, y  float64
	// secret says the act types into a password field: the ref's element,
	// or the one with the focus.
	secret bool
	// deny is the deny list as it stands, Reins' own processes listed
	// afresh.
	deny denylist.List
	// app is the application under the point, or in front.
	app    executor.App
	appErr error
	// windows are the windows on screen, front to back; listed when the
	// application was read or the person's terminal must be found.
	windows    []executor.Window
	windowsErr error
	// screens are read for an act at a point.
	screens    []executor.Screen
	screensErr error
}

// deskGround reads the desktop where r lands: for an act by ref, want's
// element found again in its application (deskTarget, which refuses one
// gone, changed or covered); then the application under the point or in
// front, the windows and the screens.
func (s *Session) deskGround(ctx context.Context, r agentdoor.DesktopActRequest, want *gdesktop.Target) (deskGround, error) {
	e := s.e
	x := e.opts.Executor
	e.refreshOwn() // another Reins may have started since the last act
	g := deskGround{deny: e.denyList(e.Settings().DenyAdded)}
	switch {
	case want != nil:
		t, px, py, at, err := s.deskTarget(ctx, *want)
		if err != nil {
			return g, err
		}
		g.point, g.x, g.y, g.app, g.secret = true, px, py, at, t.Secret
	case r.Act.Kind == vocab.Type || r.Act.Kind == vocab.Key:
		g.app, g.appErr = x.Frontmost(ctx)
		if g.appErr == nil && r.Act.Kind == vocab.Type {
			g.secret = s.focusedSecret(ctx, g.app, g.deny)
		}
	default:
		g.point, g.x, g.y = true, r.X, r.Y
		g.app, g.appErr = x.AppAt(ctx, r.X, r.Y)
	}
	if g.appErr == nil || e.opts.PersonTerminal {
		g.windows, g.windowsErr = x.Windows(ctx)
	}
	if g.point {
		g.screens, g.screensErr = x.Screens(ctx)
	}
	return g, nil
}

// deskRefused refuses, before the person is asked, a desktop act that
// lands where no agent's input may go, as g read the desktop: anywhere
// while the person's terminal cannot be told; on one of Reins' own windows
// (its popup or windows, the terminal running reins serve), on a
// deny-listed application or in a web browser; at a point on no screen.
// The executor checks again right before firing.
func (e *Engine) deskRefused(g deskGround) error {
	if err := e.personTerminalIn(g.windows, g.windowsErr); err != nil {
		return err
	}
	if g.appErr == nil { // else the executor decides, failing closed when it cannot tell
		if err := e.notOwn(g.app, g.deny); err != nil {
			return err
		}
	}
	if g.point {
		return onScreens(g.screens, g.screensErr, "the point", g.x, g.y, "look at the desktop again (desktop_observe) and pick a point inside one")
	}
	return nil
}

// seen is what Reins itself sees where a desktop act lands, for the person
// to weigh against the agent's words: the application under the point (for
// typing and keys, the one in front, which has the keyboard) and the title
// of its window there. It is read before the person is asked, so it shows
// the desktop as the agent found it; the executor checks the deny list
// again right before firing. What cannot be read is said as such. terminal
// says the application is a terminal emulator.
func (g deskGround) seen() (app, window string, terminal bool) {
	if g.appErr != nil {
		return "an application Reins cannot identify (" + plain.Text(g.appErr.Error(), plain.DetailMax) + ")", "", false
	}
	a := g.app
	app = plain.App(a.Name, a.Exe, a.PID)
	_, terminal = denylist.Terminals.Match(a)
	if g.windowsErr != nil {
		return app, "", terminal
	}
	for _, w := range g.windows { // front to back: the first that covers the point is the one under it
		mine := a.PID != 0 && w.App.PID == a.PID || a.PID == 0 && w.App.Name == a.Name
		if g.point && g.x >= w.X && g.x < w.X+w.W && g.y >= w.Y && g.y < w.Y+w.H ||
			!g.point && mine && w.Active {
			return app, w.Title, terminal
		}
	}
	if !g.point {
		for _, w := range g.windows {
			if a.PID != 0 && w.App.PID == a.PID {
				return app, w.Title, terminal
			}
		}
	}
	return app, "", terminal
}

// notOwn refuses an act that lands on a, as the desktop is now: one of
// Reins' own applications, one on the deny list deny or a web browser.
func (e *Engine) notOwn(a executor.App, deny denylist.List) error {
	if a.PID > 1 && slices.Contains(e.ownProcesses(), a.PID) {
		return &vocab.Error{Code: vocab.CodeOwnWindow, Message: "that lands on a window of Reins (this one or another on the desktop) or of the terminal that started it, which no agent may click or type into; nothing was done", Err: executor.ErrOwnWindow}
	}
	// Nor is the person asked about an act on an application the deny list
	// keeps agents off; the executor checks again right before firing.
	if rule, denied := deny.Match(a); denied {
		return &vocab.Error{Code: vocab.CodeDenyListed, Message: fmt.Sprintf("that lands on %s, which is on the deny list (%s); nothing was asked or done", plain.App(a.Name, a.Exe, a.PID), plain.Text(rule, plain.NameMax)), Err: executor.ErrDenyListed}
	}
	// Nor in a web browser: the desktop at Control would otherwise reach
	// every tab, shared or not, past the tab's share and its checks.
	if isBrowser(a) {
		return &vocab.Error{Code: vocab.CodeBrowserWindow, Message: fmt.Sprintf("that lands in %s, a web browser; act on a tab the person shared with you with the browser tools (browser_click, browser_type, browser_press_key, browser_handle_dialog…); nothing was asked or done", plain.App(a.Name, a.Exe, a.PID)), Err: executor.ErrBrowser}
	}
	return nil
}
