package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// MaxBusy is how many times in a row an act is held back because the
// person was using the mouse or keyboard, and asked about again, before it
// is refused with CodePersonActive.
const MaxBusy = 3

// firing is an act on its way from the person's approval to the OS.
type firing struct {
	tab string // the tab, or "" on the desktop
	req vocab.Request
	en  *audit.Entry
	// ready checks again what time may have changed while the person
	// looked, and says where the act lands. It runs with e.fire held.
	ready func(ctx context.Context) (audit.Landing, error)
	// perform fires the committed act.
	perform func(ctx context.Context, t audit.Ticket) error
	// again prepares the request for asking once more after the person was busy: a fresh
	// picture, say. It may be nil.
	again func(ctx context.Context, req *vocab.Request)
	// done is the detail of the outcome row when the act fires; may be "".
	done string
	// said, if set, adds to done what perform did on the way: how far a
	// reach scrolled, say.
	said func() string
	// input says the act is OS input, fired by the executor.
	input bool
	// turn is, for a step of a plan, which step of which plan; nil
	// otherwise.
	turn *planTurn
	// effect is, once perform is done, where the act's events arrived, as
	// its target's frame saw them (witness.go); nil, or zero, when nothing
	// watched. A pointer: firing is passed by value.
	effect *effect
}

// canInput refuses an act that is OS input when this Reins has no display
// to send it to, before the person is asked about something that cannot
// happen.
func (e *Engine) canInput(kind vocab.ActKind) error {
	if !kind.IsInput() {
		return nil
	}
	if err := executor.InputUnavailable(e.opts.Executor); err != nil {
		return &vocab.Error{Code: vocab.CodeNoDisplay, Message: err.Error(), Err: err}
	}
	if err := executor.HandUnwatched(e.opts.Executor); err != nil {
		return &vocab.Error{Code: vocab.CodeNoInputWatch, Message: err.Error() + "; the person could not stop an act by reaching for the mouse or keyboard, so nothing was asked or fired", Err: err}
	}
	return nil
}

// possible refuses an act that could never fire as asked, before the person
// is asked about it: text longer than MaxTypedText or that no key types, a
// key chord naming no key. Text over the limit is dropped from en, the
// attempt's record, which keeps only its length (Act.Overlong).
func possible(en *audit.Entry) error {
	act := en.Act
	switch act.Kind {
	case vocab.Type:
		if n := utf8.RuneCountInString(act.Text); n > agentdoor.MaxTypedText {
			en.Act.Text, en.Act.Overlong = "", n
			return errorf(vocab.CodeTextTooLong, "the text to type is %d characters, and one act types at most %d; nothing was asked or typed: split it into several acts of at most %d characters", n, agentdoor.MaxTypedText, agentdoor.MaxTypedText)
		}
		if err := textRefused(act.Text, en.Target.Desktop); err != nil {
			return err
		}
	case vocab.Key:
		if err := executor.CheckKeys(act.Keys); err != nil {
			return &vocab.Error{Code: vocab.CodeUnknownKey, Message: err.Error() + "; nothing was asked or pressed", Err: err}
		}
	}
	return nil
}

// textRefused refuses text to type that holds a key the person would not
// see in it, before anyone is asked, saying which character and what to
// send instead; desktop says which tool presses keys there.
func textRefused(text string, desktop bool) error {
	err := executor.CheckText(text)
	if err == nil {
		return nil
	}
	tool := "browser_press_key"
	if desktop {
		tool = "desktop_press_key"
	}
	return &vocab.Error{Code: vocab.CodeHiddenKey, Message: err.Error() + " (" + tool + " presses a key of its own); nothing was asked or typed", Err: err}
}

// onScreen refuses a point on no screen before the person is asked about
// it; what says what the agent can do about it. When the screens cannot be
// read, nothing is asked either: the executor could not check the point at
// fire time.
func (e *Engine) onScreen(ctx context.Context, what string, x, y float64, advice string) error {
	screens, err := e.opts.Executor.Screens(ctx)
	return onScreens(screens, err, what, x, y, advice)
}

// onScreens is [Engine.onScreen] on the screens as read, err saying they
// could not be.
func onScreens(screens []executor.Screen, err error, what string, x, y float64, advice string) error {
	if err != nil {
		return errorf(vocab.CodeFailed, "the screens' bounds cannot be read (%v), so %s cannot be checked; nothing was asked: try again", err, what)
	}
	if executor.OnScreen(screens, x, y) {
		return nil
	}
	return &vocab.Error{Code: vocab.CodeOffScreen, Message: fmt.Sprintf("%s (%.0f, %.0f) is off every screen (%s); nothing was asked: %s", what, x, y, screenWords(screens), advice), Err: executor.ErrOffScreen}
}

// screenWords says where the screens are, for an agent to pick a point in.
func screenWords(ss []executor.Screen) string {
	if len(ss) == 0 {
		return "there is none"
	}
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%gx%g at %g, %g", s.W, s.H, s.X, s.Y))
	}
	if len(parts) == 1 {
		return "the screen is " + parts[0]
	}
	return "the screens are " + strings.Join(parts, "; ")
}

// ownWindowWait is how long approved input waits for Reins' own window to
// leave the front: the person answered in the popup a moment ago, and the
// desktop hands the focus back in its own time. Reins is on its own deny
// list, so input fired while it is in front would be refused.
const ownWindowWait = 500 * time.Millisecond

// awaitOwnWindowGone returns once the application in front is not this
// process, or after ownWindowWait; the executor's deny check decides then.
func (e *Engine) awaitOwnWindowGone(ctx context.Context) {
	pollUntil(ctx, ownWindowWait, func() bool {
		front, err := e.opts.Executor.Frontmost(ctx)
		return err != nil || front.PID != os.Getpid()
	})
}

// pollUntil asks done every 20 ms until it says yes, within has passed or
// ctx has ended, for the few things the engine can only learn by looking
// again. It reports whether done said yes.
func pollUntil(ctx context.Context, within time.Duration, done func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if done() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// decideAndFire asks the person about f's request and fires the act once
// they allow it. Input waits until the person has left the mouse and
// keyboard alone for a moment (approvals' Quiet); when they go on using them
// for PersonWait, or touch them between that moment and the first event, the
// act is held back: a row says so, and the person is asked again, up to MaxBusy
// times. An approval given before the person took the controls back is not
// leave to fight them for the pointer.
//
// A failure after the "about to fire" row is returned as *alreadyLogged.
func (s *Session) decideAndFire(ctx context.Context, f firing) (*agentdoor.ActResult, error) {
	e := s.e
	// Before the person is asked about an act that could not fire.
	if err := e.actPolicy(); err != nil {
		return nil, err
	}
	if err := e.opts.Audit.AnchorReady(); err != nil {
		return nil, err
	}
	for busy := 0; ; {
		f.en.Decision = ""
		approved, err := s.decide(ctx, &f, busy)
		if err != nil {
			return nil, err
		}
		f.en.Decision = approved.How().String()
		res, err := s.fireApproved(ctx, f, approved)
		done := f.req
		e.publish(persondoor.Event{Kind: persondoor.EventActDone, Tab: f.tab, Request: &done})
		if !errors.Is(err, executor.ErrPersonActive) {
			return res, err
		}
		var logged *alreadyLogged
		if !errors.As(err, &logged) { // held back before its "about to fire" row
			ce, outcome := classify(err)
			row := *f.en
			row.Outcome, row.Code, row.Detail = outcome, ce.Code, ce.Message
			e.record(ctx, row)
		}
		busy++
		if busy >= MaxBusy {
			return nil, &alreadyLogged{errorf(vocab.CodePersonActive,
				"the person was using the mouse or keyboard each of the %d times this act was about to fire, so nothing was fired; wait and try again later", MaxBusy)}
		}
		if e.Paused() {
			f.en.Decision = "" // not asked again
			return nil, errorf(vocab.CodePaused, "the person paused all agents while this act waited")
		}
		f.req.ID, f.req.Busy, f.req.Asked = e.newAskID("a"), busy, e.opts.Now()
		if f.again != nil {
			f.again(ctx, &f.req)
		}
	}
}

// decide returns leave for f's act: for a step of a plan, the plan's when
// the step matches it (and the person was not busy before); otherwise the
// person's, asked on their own.
func (s *Session) decide(ctx context.Context, f *firing, busy int) (approvals.Approved, error) {
	e := s.e
	if f.turn != nil && busy == 0 {
		approved, err := f.turn.plan.Step(f.turn.i, f.req)
		if err == nil {
			f.turn.page = e.topFrame(f.tab)
			return approved, nil
		}
		if live := f.turn.plan.Live(); live != nil {
			return approvals.Approved{}, errorf(vocab.CodePlanEnded, "%v; nothing was asked or done", live)
		}
		if f.again != nil {
			f.again(ctx, &f.req) // the person needs the picture after all
		}
		approved, err = e.broker.Decide(ctx, f.req)
		// A remembered "allow on this tab" may answer it; then no one was
		// asked.
		f.turn.asked = err != nil || approved.How() != vocab.Remembered
		return approved, err
	}
	return e.broker.Decide(ctx, f.req)
}

// fireApproved waits for the person to be still, checks again, commits the
// "about to fire" row, fires, and writes the outcome row.
func (s *Session) fireApproved(ctx context.Context, f firing, approved approvals.Approved) (*agentdoor.ActResult, error) {
	e := s.e
	paused := func() error {
		if e.Paused() {
			return errorf(vocab.CodePaused, "the person paused all agents while this act waited")
		}
		return nil
	}
	if err := paused(); err != nil {
		return nil, err
	}
	var still time.Time
	if f.input {
		var err error
		if still, err = e.awaitStill(ctx, approved.Quiet()); err != nil {
			return nil, err
		}
	}
	e.fire.Lock()
	defer e.fire.Unlock()
	if f.input {
		e.refreshOwn() // every Reins' windows as they are now, for the executor's checks
		e.awaitOwnWindowGone(ctx)
	}
	// From here the act stops when the person pauses or takes the tab from
	// the agent: the checks below see a change made before this, the
	// context one made after.
	shared := f.tab
	if shared == "" { // a desktop act: stopped by the desktop's share
		shared = vocab.DesktopKey
	}
	fctx, stop := e.untilStopped(ctx, shared, persondoor.AgentKey(s.agent))
	defer stop()
	// Time passed while the person looked and while this waited: everything
	// is checked again, the pause last, right before the row.
	plan, err := f.ready(fctx)
	if err != nil {
		if ctx.Err() == nil {
			switch why := context.Cause(fctx); {
			case errors.Is(why, errStoppedByPause):
				return nil, errorf(vocab.CodePaused, "the person paused all agents while this act waited; nothing was done")
			case errors.Is(why, errStoppedByShare):
				return nil, &vocab.Error{Code: vocab.CodeShareRequired, Message: "the person changed how the tab is shared while this act waited; nothing was done", Err: approvals.ErrNotShared}
			case errors.Is(why, errStoppedByHandoff):
				return nil, errorf(vocab.CodeHandedOff, "the tab was handed to the person while this act waited; nothing was done")
			case errors.Is(why, errStoppedByPolicy):
				return nil, e.policyError("it changed while this act waited, and no longer allows it", "; nothing was done")
			}
		}
		return nil, err
	}
	if approved.How() == vocab.AllowPlan {
		// The plan's leave holds only while the plan does, on the page it
		// was matched on.
		if err := e.planStill(f); err != nil {
			return nil, err
		}
	}
	if err := paused(); err != nil {
		return nil, err
	}
	plan.QuietFrom = still
	ticket, err := e.opts.Audit.Commit(context.WithoutCancel(ctx), approved, plan)
	if err != nil {
		return nil, err
	}
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: f.tab, Activity: &persondoor.Activity{
		Time: e.opts.Now(), Agent: s.agent.Label(), Act: vocab.StepSentence(f.req.Act, f.req.Target), Kind: string(f.req.Act.Kind), Outcome: "firing",
	}})
	fireErr := fctx.Err() // stopped since the last checks: the row stands, nothing fires
	if fireErr == nil {
		fireErr = f.perform(fctx, ticket)
	}
	var ef effect
	if f.effect != nil {
		ef = *f.effect
	}
	why := context.Cause(fctx)
	stop()
	if fireErr != nil && ctx.Err() == nil {
		switch {
		case errors.Is(why, errStoppedByPause) || (errors.Is(fireErr, context.Canceled) && e.Paused()):
			fireErr = &vocab.Error{Code: vocab.CodePaused, Message: "the person paused all agents while this act was under way; it was stopped there, and any key or button it held was let go", Err: fireErr}
		case errors.Is(why, errStoppedByShare):
			fireErr = &vocab.Error{Code: vocab.CodeShareRequired, Message: "the person changed how the tab is shared while this act was under way; it was stopped there, and any key or button it held was let go", Err: approvals.ErrNotShared}
		case errors.Is(why, errStoppedByHandoff):
			fireErr = errorf(vocab.CodeHandedOff, "the tab was handed to the person while this act was under way; it was stopped there, and any key or button it held was let go")
		case errors.Is(why, errStoppedByPolicy):
			fireErr = e.policyError("it changed while this act was under way, and no longer allows it", "; the act was stopped there, and any key or button it held was let go")
		}
	}
	final := audit.Entry{Agent: s.agent, Act: f.en.Act, Target: f.en.Target, Decision: f.en.Decision, Outcome: vocab.OutcomeDone, Detail: f.done}
	if f.said != nil {
		final.Detail = joinDetail(f.done, f.said())
	}
	if ef.words != "" {
		final.Detail = joinDetail(final.Detail, ef.words)
	}
	if ef.missed {
		final.Code = vocab.CodeMissed
	}
	if fireErr != nil {
		ce, outcome := classify(fireErr)
		final.Outcome, final.Code, final.Detail = outcome, ce.Code, ce.Message
		if ce.Code == vocab.CodeStoppedByPerson {
			e.personTookOver(f.tab)
		}
	}
	if _, err := e.opts.Audit.Finish(context.WithoutCancel(ctx), ticket, final.Outcome, final.Code, final.Detail); err != nil {
		e.opts.Logf("audit: the outcome of row %d could not be written: %v", ticket.Seq(), err)
	}
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: f.tab, Activity: activityOf(final, e.opts.Now())})
	if fireErr != nil {
		ce, _ := classify(fireErr)
		return nil, &alreadyLogged{ce}
	}
	return &agentdoor.ActResult{Done: f.req.Sentence(), Target: f.req.Target.Ref, Audit: ticket.Seq(), Effect: ef.words, Missed: ef.missed, Left: ef.left}, nil
}

// personTookOver follows the person reaching for the mouse or keyboard
// while an act fired on tab ("" the desktop): nothing remembered answers
// for them any more there, and the next act is asked afresh.
func (e *Engine) personTookOver(tab string) {
	if tab == "" {
		return // desktop acts are asked every time
	}
	e.broker.ForgetTab(tab)
	e.plans.end(tab, "the person took the mouse or keyboard")
}

// awaitStill returns once the person has left the mouse and keyboard alone
// for quiet, and the moment it saw that; their input after it holds the act
// (the executor checks it right before the first event). When they are
// still at the controls after PersonWait, it returns an error wrapping
// executor.ErrPersonActive. If the executor cannot tell, nothing fires.
func (e *Engine) awaitStill(ctx context.Context, quiet time.Duration) (time.Time, error) {
	deadline := time.Now().Add(e.opts.PersonWait)
	for {
		now := time.Now() // before asking: input after it is seen by the next check
		last, err := e.opts.Executor.LastInput(ctx)
		if err != nil {
			return time.Time{}, fmt.Errorf("cannot tell whether the person is using the mouse or keyboard, so nothing was fired: %w", err)
		}
		idle := now.Sub(last)
		if idle >= quiet {
			return now, nil
		}
		if !now.Before(deadline) {
			return time.Time{}, fmt.Errorf("%w: still using them %s after the act was allowed", executor.ErrPersonActive, e.opts.PersonWait)
		}
		wait := min(quiet-idle, deadline.Sub(now))
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// personTerminalShown refuses input, on the desktop or in a tab, while
// `reins serve` is the person's door and no window on the desktop belongs
// to a process Reins descends from: under tmux, screen or ssh the window
// that shows its terminal cannot be told, so Reins cannot keep agents'
// input off it.
func (e *Engine) personTerminalShown(ctx context.Context) error {
	if !e.opts.PersonTerminal {
		return nil
	}
	ws, err := e.opts.Executor.Windows(ctx)
	return e.personTerminalIn(ws, err)
}

// personTerminalIn is [Engine.personTerminalShown] on the windows as
// listed, err saying they could not be.
func (e *Engine) personTerminalIn(ws []executor.Window, err error) error {
	if !e.opts.PersonTerminal {
		return nil
	}
	const why = "so Reins puts no agent's input on the desktop or in a tab: typed text could answer its own approval there. Run reins serve in a terminal window on this desktop (not inside tmux, screen or ssh), or use the Reins menu"
	if err != nil {
		return errorf(vocab.CodePersonTerminalHidden, "Reins cannot list the windows to find the terminal running reins serve (%v), %s", err, why)
	}
	for _, w := range ws {
		if w.App.PID > 1 && w.App.PID != os.Getpid() && slices.Contains(e.opts.OwnProcesses, w.App.PID) {
			return nil
		}
	}
	return errorf(vocab.CodePersonTerminalHidden, "reins serve is the person's door, and Reins cannot tell which window shows it, %s", why)
}
