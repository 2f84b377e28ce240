package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/denylist"
	"github.com/reins-app/reins/deskread"
	"github.com/reins-app/reins/executor"
	"github.com/reins-app/reins/executor/hand"
	"github.com/reins-app/reins/internal/atomicfile"
	"github.com/reins-app/reins/internal/plain"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// The self-test checks, on the person's own computer and for real, what
// Reins needs there. After one approval — the popup, as for an agent's
// plan, and the log, as for any act — it fires through the executor, each
// act under its own committed row, into a window of its own child process
// (selftestwindow.go), whose handlers say what arrived; and it reads what
// it needs only read: the permissions, the tray item, the application in
// front, an application that is always there through the accessibility
// reader, the deny list against what runs, a picture of its own window
// with the password field blacked out, Chrome's pairing helpers and
// pairing. Nothing it does lands outside its own window: every point is
// checked to be over that window's process before it fires, and keys only
// go once that window is in front.

var _ persondoor.SelfTester = runtimePerson{}

// SelfTest runs the self-test; see persondoor.SelfTester.
func (d runtimePerson) SelfTest(ctx context.Context, o persondoor.SelfTestOptions) (persondoor.SelfTestReport, error) {
	return d.r.SelfTest(ctx, o)
}

// The checks, as the report names them.
const (
	CheckApproval       = "approval"
	CheckWindow         = "test window"
	CheckFront          = "front app"
	CheckClick          = "click"
	CheckDoubleClick    = "double-click"
	CheckTyping         = "typing"
	CheckSelectAll      = "select-all chord"
	CheckScroll         = "scroll"
	CheckDrag           = "drag"
	CheckDenyAtFire     = "deny list at fire time"
	CheckDenyRunning    = "deny list vs running apps"
	CheckReleaseGuard   = "release guard"
	CheckHandOwn        = "hand watch: Reins' input"
	CheckHandPerson     = "hand watch: your input"
	CheckPicture        = "picture, secret hidden"
	CheckAccessibility  = "accessibility reader"
	CheckTray           = "tray item"
	CheckPermissions    = "permissions"
	CheckAXPermission   = "Accessibility permission"
	CheckScreenRec      = "Screen Recording permission"
	CheckInputMonitor   = "Input Monitoring permission"
	CheckPairingHelpers = "pairing helpers"
	CheckPairing        = "pairing"
)

// SelfTestText is what the self-test types, a character off most layouts
// (€, é) and a line break among them.
const SelfTestText = "aq@é€\n"

// SelfTestReportFile and SelfTestPictureFile are where the last report and
// the picture of the test window, its secret blacked out, are kept in the
// data folder.
const (
	SelfTestReportFile  = "selftest.json"
	SelfTestPictureFile = "selftest-window.png"
)

// selfTestKey is what the self-test's acts are filed under among the acts
// firing and the plans running, in place of a tab: no share change names
// it, and a pause stops it as it stops every act.
const selfTestKey = "self-test"

// selfTestAgentName is the name the self-test's approval and rows carry,
// after the real process that asked.
const selfTestAgentName = "Reins self-test"

// How long the window has to show what an act did, and the person to move
// the mouse when asked.
const (
	eventWait      = 3 * time.Second
	personMoveWait = 20 * time.Second
)

// SelfTest asks the person for one approval and runs the self-test, then
// writes its report, as JSON, in the data folder. Only one runs at a time.
// It returns an error only when it could not run at all; a check that
// failed is a line of the report.
func (r *Runtime) SelfTest(ctx context.Context, o persondoor.SelfTestOptions) (persondoor.SelfTestReport, error) {
	if !r.selfTesting.CompareAndSwap(false, true) {
		return persondoor.SelfTestReport{}, errors.New("a self-test is already running; its report comes when it ends")
	}
	defer r.selfTesting.Store(false)
	if r.Paused() {
		return persondoor.SelfTestReport{}, errors.New("agents are paused, and the self-test acts as one does: resume agents from the Reins menu and run it again")
	}
	s := &selfTest{r: r, e: r.Engine, x: r.exec, rd: r.Engine.opts.Reader, o: o, agent: selfTestAgent(o.Asker)}
	s.report = persondoor.SelfTestReport{Started: time.Now(), OS: runtime.GOOS, Arch: runtime.GOARCH, Version: osVersion()}
	s.run(ctx)
	s.report.Took = time.Since(s.report.Started)
	path := filepath.Join(r.DataDir, SelfTestReportFile)
	s.report.File = path
	b, err := json.MarshalIndent(s.report, "", "  ")
	if err == nil {
		err = atomicfile.Write(path, append(b, '\n'), 0o600)
	}
	if err != nil {
		s.report.File = ""
		r.opts.Logf("the self-test's report could not be written: %v", err)
	}
	return s.report, nil
}

// selfTestAgent is who the self-test's approval and rows name: the process
// that asked, or Reins itself when the person asked from its menu.
func selfTestAgent(a persondoor.SelfTestAsker) vocab.Agent {
	if a.PID == 0 {
		exe, _ := os.Executable()
		return vocab.Agent{Name: selfTestAgentName, PID: os.Getpid(), Exe: exe}
	}
	return vocab.Agent{Name: selfTestAgentName, PID: a.PID, Exe: a.Exe}
}

// selfTest is one run.
type selfTest struct {
	r      *Runtime
	e      *Engine
	x      executor.Executor
	rd     deskread.Reader
	o      persondoor.SelfTestOptions
	agent  vocab.Agent
	report persondoor.SelfTestReport

	win      *testWindow
	place    placed
	planID   string
	steps    []vocab.PlanStep
	planned  *approvals.Planned
	allowed  denylist.List // the deny list while the acts run
	hoverErr error         // why the pointer could not rest where the drags end
}

// add puts a check on the report and tells Progress.
func (s *selfTest) add(name, result string, from time.Time, saw string) {
	c := persondoor.SelfTestCheck{Name: name, Result: result, Saw: plain.Text(saw, 2000)}
	if !from.IsZero() {
		c.Took = time.Since(from)
	}
	s.report.Checks = append(s.report.Checks, c)
	if s.o.Progress != nil {
		s.o.Progress(persondoor.SelfTestEvent{Check: &c})
	}
}

func (s *selfTest) pass(name string, from time.Time, saw string, args ...any) {
	s.add(name, persondoor.SelfTestPass, from, fmt.Sprintf(saw, args...))
}

func (s *selfTest) fail(name string, from time.Time, saw string, args ...any) {
	s.add(name, persondoor.SelfTestFail, from, fmt.Sprintf(saw, args...))
}

func (s *selfTest) skip(name string, from time.Time, saw string, args ...any) {
	s.add(name, persondoor.SelfTestSkip, from, fmt.Sprintf(saw, args...))
}

// passIf adds a pass or a failure.
func (s *selfTest) passIf(ok bool, name string, from time.Time, saw string, args ...any) {
	if ok {
		s.pass(name, from, saw, args...)
	} else {
		s.fail(name, from, saw, args...)
	}
}

func (s *selfTest) say(line string) {
	if s.o.Progress != nil {
		s.o.Progress(persondoor.SelfTestEvent{Say: line})
	}
}

// errNotAllowed: the person did not allow the test; nothing more runs.
var errNotAllowed = errors.New("the self-test was not allowed")

func (s *selfTest) run(ctx context.Context) {
	if err := s.r.InputUnavailable(); err != nil {
		s.fail(CheckWindow, time.Time{}, "Reins has no display to send input to, so nothing was fired: %v", err)
	} else if err := s.acts(ctx); errors.Is(err, errNotAllowed) {
		return
	}
	s.readingChecks(ctx)
}

// acts shows the test window, asks the person, and fires into the window.
func (s *selfTest) acts(ctx context.Context) error {
	t0 := time.Now()
	win, err := startTestWindow(ctx, s.r.selfTestProgram, []string{SelfTestWindowMode})
	if err != nil {
		s.fail(CheckWindow, t0, "%v", err)
		return nil
	}
	defer win.close()
	s.win = win
	if err := s.findWindow(ctx); err != nil {
		s.fail(CheckWindow, t0, "%v", err)
		return nil
	}
	p := s.place
	s.pass(CheckWindow, t0, "pid %d, listed as %s, %gx%g at %g,%g; its content at %.1f,%.1f, %g DIP to the window's unit",
		win.pid(), plain.App(p.app.Name, p.app.Exe, p.app.PID), p.window.W, p.window.H, p.window.X, p.window.Y, p.ox, p.oy, p.k)

	t0 = time.Now()
	s.steps = s.planSteps()
	if err := s.ask(ctx); err != nil {
		s.fail(CheckApproval, t0, "%v; nothing was fired", err)
		return errNotAllowed
	}
	s.pass(CheckApproval, t0, "allowed, all %d steps, in %s; the log holds the plan and each step's row", len(s.steps), time.Since(t0).Round(100*time.Millisecond))
	defer s.endPlan(ctx)

	// One act at a time reaches the OS: no agent's act fires between
	// the test's, nor while the deny list is set for the test. Pausing
	// agents stops the test as it stops an agent's plan, mid-act too.
	s.e.fire.Lock()
	defer s.e.fire.Unlock()
	s.e.plans.add(selfTestKey, s.planned)
	defer s.e.plans.remove(selfTestKey, s.planned)
	ctx, stop := s.e.untilStopped(ctx, selfTestKey, "")
	defer stop()
	restore := s.narrowDenyList(ctx)
	defer restore()
	watch, watchErr := hand.Start(ctx, hand.Options{Display: s.r.display})
	if watchErr == nil {
		defer watch.Close()
	}

	s.stepClick(ctx, 0)
	s.frontCheck(ctx)
	s.stepDoubleClick(ctx, 1)
	s.stepType(ctx, 2)
	s.stepScroll(ctx, 3)
	s.stepHover(ctx, 4)
	s.stepDrag(ctx, 5)
	s.stepDenied(ctx, 6)
	s.stepGuard(ctx, 7)
	s.handChecks(ctx, watch, watchErr)
	s.pictureCheck(ctx)
	return nil
}

// findWindow waits for the executor to list the window's process, and
// places its content on screen.
func (s *selfTest) findWindow(ctx context.Context) error {
	var found *executor.Window
	var lastErr error
	pollUntil(ctx, 10*time.Second, func() bool {
		ws, err := s.x.Windows(ctx)
		if err != nil {
			lastErr = err
			return false
		}
		for i := range ws {
			if ws[i].App.PID == s.win.pid() && ws[i].W > 0 && ws[i].H > 0 {
				found = &ws[i]
				return true
			}
		}
		return false
	})
	switch {
	case found == nil && lastErr != nil:
		return fmt.Errorf("the windows cannot be listed: %w", lastErr)
	case found == nil:
		return fmt.Errorf("the test window (pid %d) showed, but the executor lists no window of its process", s.win.pid())
	}
	p, err := place(*found, s.win.ready.W, s.win.ready.H)
	if err != nil {
		return err
	}
	s.place = p
	return nil
}

// appLabel is the test window's application as the person reads it: its
// name is the window's title, "Reins self-test".
func (s *selfTest) appLabel() string {
	return plain.App(s.place.app.Name, s.place.app.Exe, s.win.pid())
}

// planSteps are the acts the person allows, in order.
func (s *selfTest) planSteps() []vocab.PlanStep {
	in := func(name, claim string) vocab.Target {
		return vocab.Target{Desktop: true, App: s.appLabel(), Window: TestWindowTitle, Name: name, Claim: claim}
	}
	dragBy := s.dragDistance()
	steps := []vocab.PlanStep{
		{Act: vocab.Act{Kind: vocab.Click}, Target: in("the box “Click”", "")},
		{Act: vocab.Act{Kind: vocab.DoubleClick}, Target: in("the box “Double-click”", "")},
		{Act: vocab.Act{Kind: vocab.Type, Text: SelfTestText, Clear: true}, Target: in("its text field, which has the keys", "")},
		{Act: vocab.Act{Kind: vocab.Scroll, DY: 3}, Target: in("the box “Scroll”", "")},
		{Act: vocab.Act{Kind: vocab.Hover}, Target: in("the spot where the drags end", "the pointer rests there, so that putting it back after a drag leaves it where the drop was")},
		{Act: vocab.Act{Kind: vocab.Drag, DX: dragBy}, Target: in("the box “Drag”", "")},
		{Act: vocab.Act{Kind: vocab.Click}, Target: in("the box “Click”", "the test window is on the deny list for this step, so the click must be refused")},
		{Act: vocab.Act{Kind: vocab.Drag, DX: dragBy}, Target: in("the box “Drag”", "the release guard's parent is killed while the button is held; the guard must let go")},
	}
	s.planID = s.e.newID("p")
	for i := range steps {
		steps[i].Act.Plan, steps[i].Act.Step, steps[i].Act.Steps = s.planID, i+1, len(steps)
	}
	return steps
}

// dragDistance is how far, in DIP, the drags go: from the handle's middle
// to near the window's right edge.
func (s *selfTest) dragDistance() int {
	b := s.win.ready.Areas[AreaDrag]
	cx, _ := b.Centre()
	return int((s.win.ready.W - 60 - cx) * s.place.k)
}

// ask puts the whole test to the person as one plan.
func (s *selfTest) ask(ctx context.Context) error {
	req := vocab.Request{
		ID: s.e.newAskID("a"), Agent: s.agent,
		Act: vocab.Act{Kind: vocab.Plan, Plan: s.planID, Steps: len(s.steps),
			Text: "Reins' self-test: each step lands in its own test window; nothing of yours is touched"},
		Target: vocab.Target{Desktop: true, App: s.appLabel(), Window: TestWindowTitle},
		Plan:   s.steps,
	}
	en := audit.Entry{Agent: s.agent, Act: req.Act, Target: req.Target}
	planned, err := s.e.broker.DecideSelfTest(ctx, req)
	if err != nil {
		ce, outcome := classify(err)
		en.Outcome, en.Code, en.Detail = outcome, ce.Code, ce.Message
		s.e.record(ctx, en)
		return err
	}
	if planned.Allowed() < len(s.steps) {
		planned.End("the person allowed only part of it")
		en.Outcome, en.Code = vocab.OutcomeDenied, vocab.CodeDenied
		en.Detail = fmt.Sprintf("the self-test needs all %d steps; %d were allowed, so none ran", len(s.steps), planned.Allowed())
		s.e.record(ctx, en)
		return fmt.Errorf("only steps 1 to %d were allowed, and the test needs all %d", planned.Allowed(), len(s.steps))
	}
	en.Outcome, en.Decision = vocab.OutcomeDone, fmt.Sprintf("allowed steps 1 to %d of %d", planned.Allowed(), len(s.steps))
	en.Detail = fmt.Sprintf("plan %s allowed until %s; its steps: %s", s.planID, planned.Until().Format("15:04:05"), stepList(planned.Request().Plan))
	if _, err := s.e.opts.Audit.Record(context.WithoutCancel(ctx), en); err != nil {
		planned.End("the log could not hold it")
		return fmt.Errorf("the audit log could not record the allowed test, so nothing was fired: %w", err)
	}
	s.e.publish(persondoor.Event{Kind: persondoor.EventActivity, Activity: activityOf(en, s.e.opts.Now())})
	s.planned = planned
	return nil
}

// endPlan ends the plan and writes its last row.
func (s *selfTest) endPlan(ctx context.Context) {
	s.planned.End("done")
	var failed []string
	for _, c := range s.report.Checks {
		if c.Failed() {
			failed = append(failed, c.Name)
		}
	}
	detail := fmt.Sprintf("plan %s ended: the self-test's acts are done", s.planID)
	if len(failed) > 0 {
		detail += "; failed: " + strings.Join(failed, ", ")
	}
	s.e.record(ctx, audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Plan, Plan: s.planID, Steps: len(s.steps)},
		Target: vocab.Target{Desktop: true, App: s.appLabel(), Window: TestWindowTitle}, Outcome: vocab.OutcomeDone, Detail: detail})
}

// fire runs step i at plan, as any act of a plan fires: the plan's leave
// for exactly that step, the person still, the committed row, the
// executor, the outcome row. It returns the executor's error, or why the
// step did not fire.
func (s *selfTest) fire(ctx context.Context, i int, plan audit.Landing) error {
	st := s.steps[i]
	req := vocab.Request{ID: s.e.newAskID("a"), Agent: s.agent, Act: st.Act, Target: st.Target}
	approved, err := s.planned.Step(i, req)
	if err != nil {
		return fmt.Errorf("the plan did not cover the step: %w", err)
	}
	if s.e.Paused() {
		return errorf(vocab.CodePaused, "the person paused all agents while the self-test ran; nothing more was fired")
	}
	still, err := s.e.awaitStill(ctx, approved.Quiet())
	if err != nil {
		return err
	}
	plan.QuietFrom = still
	plan.Scale = 1
	ticket, err := s.e.opts.Audit.Commit(context.WithoutCancel(ctx), approved, plan)
	if err != nil {
		return err
	}
	s.e.publish(persondoor.Event{Kind: persondoor.EventActivity, Activity: &persondoor.Activity{
		Time: s.e.opts.Now(), Agent: s.agent.Label(), Act: vocab.StepSentence(st.Act, st.Target), Kind: string(st.Act.Kind), Outcome: "firing",
	}})
	fireErr := s.x.Fire(ctx, ticket)
	final := audit.Entry{Agent: s.agent, Act: st.Act, Target: st.Target, Decision: approved.How().String(), Outcome: vocab.OutcomeDone}
	if fireErr != nil {
		ce, outcome := classify(fireErr)
		final.Outcome, final.Code, final.Detail = outcome, ce.Code, ce.Message
	}
	if _, err := s.e.opts.Audit.Finish(context.WithoutCancel(ctx), ticket, final.Outcome, final.Code, final.Detail); err != nil {
		s.e.opts.Logf("audit: the outcome of row %d could not be written: %v", ticket.Seq(), err)
	}
	s.e.publish(persondoor.Event{Kind: persondoor.EventActivity, Activity: activityOf(final, s.e.opts.Now())})
	return fireErr
}

// over refuses a point that is not over the test window's process, before
// anything fires there.
func (s *selfTest) over(ctx context.Context, x, y float64) error {
	a, err := s.x.AppAt(ctx, x, y)
	if err != nil {
		return fmt.Errorf("which application is at %.0f,%.0f cannot be read (%v), so nothing was fired there", x, y, err)
	}
	if a.PID != s.win.pid() {
		return fmt.Errorf("%.0f,%.0f is over %s, not the test window (pid %d), so nothing was fired there", x, y, plain.App(a.Name, a.Exe, a.PID), s.win.pid())
	}
	return nil
}

// inFront refuses keys while the test window is not in front: they would
// go to whatever is.
func (s *selfTest) inFront(ctx context.Context) error {
	var front executor.App
	var err error
	if pollUntil(ctx, 2*time.Second, func() bool {
		front, err = s.x.Frontmost(ctx)
		return err == nil && front.PID == s.win.pid()
	}) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the application in front cannot be read (%v), so no key was pressed", err)
	}
	return fmt.Errorf("%s is in front, not the test window (pid %d), so no key was pressed", plain.App(front.Name, front.Exe, front.PID), s.win.pid())
}

// narrowDenyList sets the executor's deny list for the test and returns
// what puts the person's back. Rules that name the test window's program
// by name (Reins' own rule: the window is the reins binary) are set aside,
// while Reins' own windows stay refused by process; the application in
// front as the test began is added, by process, so that no key can reach
// it should the test window fail to come to the front.
func (s *selfTest) narrowDenyList(ctx context.Context) (restore func()) {
	front, err := s.x.Frontmost(ctx)
	if err != nil {
		front = executor.App{}
	}
	s.allowed = selfTestDenyList(s.e.denyList(s.e.Settings().DenyAdded), s.place.app, front)
	s.x.SetDenyList(s.allowed)
	return func() { s.x.SetDenyList(s.e.denyList(s.e.Settings().DenyAdded)) }
}

// selfTestDenyList is full without the rules that name window's program,
// and with front, by process, unless front is the window or Reins.
func selfTestDenyList(full denylist.List, window, front executor.App) denylist.List {
	var kept denylist.List
	for _, rule := range full {
		if _, match := (denylist.List{rule}).Match(window); match && len(rule.PIDs) == 0 {
			continue
		}
		kept = append(kept, rule)
	}
	if front.PID > 1 && front.PID != window.PID && front.PID != os.Getpid() {
		kept = append(kept, denylist.Rule{Label: "the application in front as the self-test began", PIDs: []int{front.PID}})
	}
	return kept
}

// raise brings the test window to the front, its text field taking the
// keys, and waits until the executor too sees it in front.
func (s *selfTest) raise(ctx context.Context) error {
	if err := s.win.raise(ctx, eventWait); err != nil {
		return err
	}
	return s.inFront(ctx)
}

// Step checks. Each aims at an area's middle, fires, and reads what the
// window's own handlers saw.

func (s *selfTest) stepClick(ctx context.Context, i int) {
	t0 := time.Now()
	s.raise(ctx) // a click needs no focus; the keys later do
	evs, x, y, err := s.pointStep(ctx, i, AreaClick, 0, 0)
	if err != nil {
		s.fail(CheckClick, t0, "%v", err)
		return
	}
	s.judge(CheckClick, t0, evs, "tap", AreaClick, x, y)
}

func (s *selfTest) stepDoubleClick(ctx context.Context, i int) {
	t0 := time.Now()
	evs, x, y, err := s.pointStep(ctx, i, AreaDouble, 0, 0)
	if err != nil {
		s.fail(CheckDoubleClick, t0, "%v", err)
		return
	}
	s.judge(CheckDoubleClick, t0, evs, "doubletap", AreaDouble, x, y)
}

// pointStep fires step i at the middle of area (a drag goes by dx, dy DIP
// from there) and returns the window's events up to the one the step
// expects, or to eventWait.
func (s *selfTest) pointStep(ctx context.Context, i int, area string, dx, dy float64) ([]TestWindowEvent, float64, float64, error) {
	x, y := s.place.centre(s.win.ready.Areas[area])
	if err := s.over(ctx, x, y); err != nil {
		s.planned.Pass(i)
		return nil, x, y, err
	}
	if dx != 0 || dy != 0 {
		if err := s.over(ctx, x+dx, y+dy); err != nil {
			s.planned.Pass(i)
			return nil, x, y, err
		}
	}
	mark := s.win.mark()
	plan := audit.Landing{X: x, Y: y}
	if dx != 0 || dy != 0 {
		plan.X2, plan.Y2 = x+dx, y+dy
	}
	if err := s.fire(ctx, i, plan); err != nil {
		return nil, x, y, fmt.Errorf("not fired: %v", err)
	}
	want := map[string]string{AreaClick: "tap", AreaDouble: "doubletap", AreaScroll: "scroll", AreaDrag: "dragend"}[area]
	s.win.await(ctx, mark, eventWait, func(evs []TestWindowEvent) bool { return find(evs, want, area) >= 0 })
	// And whatever else the act set off, up to now.
	s.win.sync(ctx, eventWait)
	return s.win.since(mark), x, y, nil
}

// judge passes a check when the window saw exactly one event ev on area
// and no click anywhere else, and says where, against where Reins aimed.
func (s *selfTest) judge(name string, t0 time.Time, evs []TestWindowEvent, ev, area string, x, y float64) {
	n := count(evs, ev, area)
	stray := strays(evs, area)
	ax, ay := s.win.ready.Areas[area].Centre()
	where := ""
	if i := find(evs, ev, area); i >= 0 {
		where = fmt.Sprintf(" at %.0f,%.0f of its content (aimed at %.0f,%.0f)", evs[i].X, evs[i].Y, ax, ay)
	}
	switch {
	case n == 1 && len(stray) == 0:
		s.pass(name, t0, "the window's %s box took one %s%s; Reins aimed at %.0f,%.0f, over the window's process (pid %d)", area, ev, where, x, y, s.win.pid())
	case n == 0:
		s.fail(name, t0, "the window's %s box took no %s; the window saw: %s", area, ev, eventWords(evs))
	default:
		s.fail(name, t0, "the window's %s box took %d %s events%s; besides: %s", area, n, ev, where, eventWords(stray))
	}
}

func (s *selfTest) frontCheck(ctx context.Context) {
	t0 := time.Now()
	front, err := s.x.Frontmost(ctx)
	if err != nil {
		s.fail(CheckFront, t0, "the application in front cannot be read: %v", err)
		return
	}
	s.passIf(front.PID == s.win.pid(), CheckFront, t0, "in front after the click: %s%s", plain.App(front.Name, front.Exe, front.PID), idWords(front))
}

func idWords(a executor.App) string {
	var parts []string
	if a.ID != "" {
		parts = append(parts, "bundle "+a.ID)
	}
	if a.Class != "" {
		parts = append(parts, "class "+a.Class)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// stepType types SelfTestText into the text field, clearing it first with
// the select-all chord: two checks, one act. The window gives the field
// the keys and must be in front; the act types wherever the keys go, with
// no click first, so that nothing hangs on how soon a toolkit turns a
// click into focus.
func (s *selfTest) stepType(ctx context.Context, i int) {
	t0 := time.Now()
	chord := selectAllWords()
	if err := s.raise(ctx); err != nil {
		s.planned.Pass(i)
		s.fail(CheckSelectAll, t0, "%v", err)
		s.fail(CheckTyping, t0, "%v", err)
		return
	}
	mark := s.win.mark()
	if err := s.fire(ctx, i, audit.Landing{}); err != nil {
		s.fail(CheckSelectAll, t0, "not fired: %v", err)
		s.fail(CheckTyping, t0, "not fired: %v", err)
		return
	}
	s.win.await(ctx, mark, eventWait, func(evs []TestWindowEvent) bool { return lastText(evs) == SelfTestText })
	s.win.sync(ctx, eventWait)
	evs := s.win.since(mark)
	selected := false
	var seen []string
	for _, ev := range evs {
		if ev.Ev == "shortcut" {
			seen = append(seen, fmt.Sprintf("%s selecting %s", ev.Text, quoteText(ev.Selected)))
			if strings.Contains(ev.Text, "SelectAll") && ev.Selected == TestWindowSeed {
				selected = true
			}
		}
	}
	if len(seen) == 0 {
		seen = []string{"no shortcut"}
	}
	s.passIf(selected, CheckSelectAll, t0, "%s, on this keyboard's layout: the field's own handler saw %s", chord, strings.Join(seen, ", "))
	got := lastText(evs)
	s.passIf(got == SelfTestText && len(strays(evs, AreaText)) == 0, CheckTyping, t0,
		"the field went from %s to %s (want %s)%s", quoteText(TestWindowSeed), quoteText(got), quoteText(SelfTestText), strayWords(strays(evs, AreaText)))
}

// selectAllWords is the select-all chord as this OS presses it.
func selectAllWords() string {
	if runtime.GOOS == "darwin" {
		return "Command+A"
	}
	return "Control+A"
}

func (s *selfTest) stepScroll(ctx context.Context, i int) {
	t0 := time.Now()
	evs, x, y, err := s.pointStep(ctx, i, AreaScroll, 0, 0)
	if err != nil {
		s.fail(CheckScroll, t0, "%v", err)
		return
	}
	var down, up int
	for _, ev := range evs {
		if ev.Ev == "scroll" && ev.Area == AreaScroll {
			switch {
			case ev.DY > 0:
				down++
			case ev.DY < 0:
				up++
			}
		}
	}
	stray := strays(evs, AreaScroll)
	s.passIf(down > 0 && up == 0 && len(stray) == 0, CheckScroll, t0,
		"3 notches down at %.0f,%.0f: the window's scroll box took %d wheel events down and %d up%s", x, y, down, up, strayWords(stray))
}

// stepHover leaves the pointer where the drags end. An act puts the
// pointer back where it found it, and a toolkit that reads the pointer
// late (GLFW, under fyne, on a slow desktop) may take a drop at the place
// it went back to: with the pointer resting at the drop, the two are one.
// It has no line of its own; a drag that fails after it says so.
func (s *selfTest) stepHover(ctx context.Context, i int) {
	x, y := s.dropSpot()
	if err := s.over(ctx, x, y); err != nil {
		s.planned.Pass(i)
		s.hoverErr = err
		return
	}
	s.hoverErr = s.fire(ctx, i, audit.Landing{X: x, Y: y})
}

// dropSpot is where the drags end, in DIP.
func (s *selfTest) dropSpot() (float64, float64) {
	x, y := s.place.centre(s.win.ready.Areas[AreaDrag])
	return x + float64(s.dragDistance()), y
}

func (s *selfTest) stepDrag(ctx context.Context, i int) {
	t0 := time.Now()
	dx := float64(s.steps[i].Act.DX)
	evs, x, _, err := s.pointStep(ctx, i, AreaDrag, dx, 0)
	if err != nil {
		s.fail(CheckDrag, t0, "%v", err)
		return
	}
	start := s.win.ready.Areas[AreaDrag]
	endX := (x + dx - s.place.ox) / s.place.k
	d, dok := first(evs, "down", AreaDrag)
	u, uok := first(evs, "up", AreaDrag)
	if !uok {
		// A toolkit may say only that the drag ended, where it was last.
		u, uok = first(evs, "dragend", AreaDrag)
	}
	drags := count(evs, "drag", AreaDrag)
	ok := dok && uok && start.Contains(d.X, d.Y) && abs64(u.X-endX) <= 12 && drags > 0
	hover := ""
	if s.hoverErr != nil {
		hover = "; the pointer could not first rest where the drag ends: " + s.hoverErr.Error()
	}
	s.passIf(ok && len(strays(evs, AreaDrag)) == 0, CheckDrag, t0,
		"pressed at %s, %d drag events, let go at %s; the drag ends at %.0f of the content%s%s",
		pointWords(d, dok), drags, pointWords(u, uok), endX, strayWords(strays(evs, AreaDrag)), hover)
}

// stepDenied puts the test window on the deny list and clicks it: the
// executor must refuse before any event, and the window see nothing.
func (s *selfTest) stepDenied(ctx context.Context, i int) {
	t0 := time.Now()
	x, y := s.place.centre(s.win.ready.Areas[AreaClick])
	rule := denylist.Rule{Label: "Reins' test window, on the deny list for this step"}
	if s.place.app.Name != "" {
		rule.Names = []string{s.place.app.Name}
	}
	if s.place.app.ID != "" {
		rule.IDs = []string{s.place.app.ID}
	}
	if len(rule.Names)+len(rule.IDs) == 0 {
		rule.Exes = []string{filepath.Base(s.place.app.Exe)}
	}
	s.x.SetDenyList(append(denylist.List{rule}, s.allowed...))
	defer s.x.SetDenyList(s.allowed)
	mark := s.win.mark()
	err := s.fire(ctx, i, audit.Landing{X: x, Y: y})
	s.win.sync(ctx, eventWait)
	evs := s.win.since(mark)
	taps := count(evs, "tap", AreaClick) + count(evs, "tap", AreaElsewhere)
	s.passIf(errors.Is(err, executor.ErrDenyListed) && taps == 0, CheckDenyAtFire, t0,
		"a click with the test window on the deny list: the executor said %s; the window took %d clicks",
		quoteText(errText(err)), taps)
}

// stepGuard drags with a release guard whose parent, a helper, is killed
// once the window says the button is down: the guard must let go of it
// before the drag would have.
func (s *selfTest) stepGuard(ctx context.Context, i int) {
	t0 := time.Now()
	x, y := s.place.centre(s.win.ready.Areas[AreaDrag])
	dx := float64(s.steps[i].Act.DX)
	for _, p := range [][2]float64{{x, y}, {x + dx, y}} {
		if err := s.over(ctx, p[0], p[1]); err != nil {
			s.planned.Pass(i)
			s.fail(CheckReleaseGuard, t0, "%v", err)
			return
		}
	}
	args := []string{SelfTestGuardParentMode}
	if s.r.display != "" {
		args = append(args, "-display", s.r.display)
	}
	var said tailBuffer
	g := executor.StartGuard(executor.GuardOptions{Program: s.r.selfTestProgram, Args: args, Stderr: &said, Logf: func(string, ...any) {}})
	defer g.Close()
	if g.PID() == 0 {
		s.planned.Pass(i)
		s.fail(CheckReleaseGuard, t0, "the release guard under a parent of its own did not start: %s", said.String())
		return
	}
	restore, ok := executor.ReplaceGuard(s.x, g)
	if !ok {
		s.planned.Pass(i)
		s.skip(CheckReleaseGuard, t0, "this executor sends no input of its own")
		return
	}
	defer restore()
	mark := s.win.mark()
	fired := make(chan error, 1)
	go func() { fired <- s.fire(ctx, i, audit.Landing{X: x, Y: y, X2: x + dx, Y2: y}) }()
	_, down := s.win.await(ctx, mark, eventWait, func(evs []TestWindowEvent) bool { return find(evs, "down", AreaDrag) >= 0 })
	parent := g.PID()
	var killed time.Time
	if down && parent != 0 {
		if p, err := os.FindProcess(parent); err == nil && p.Kill() == nil {
			killed = time.Now()
		}
	}
	ferr := <-fired
	s.win.await(ctx, mark, eventWait, func(evs []TestWindowEvent) bool { return find(evs, "up", AreaDrag) >= 0 })
	s.win.sync(ctx, eventWait)
	evs := s.win.since(mark)
	endX := (x + dx - s.place.ox) / s.place.k
	u, uok := first(evs, "up", AreaDrag)
	letGo := strings.Contains(said.String(), "let go of")
	early := uok && u.X < endX-12
	var when string
	if uok && !killed.IsZero() {
		when = fmt.Sprintf(", %s after the kill", u.at.Sub(killed).Round(time.Millisecond))
	}
	saw := fmt.Sprintf("parent pid %d killed while the window held the button down: %t; the button came up at %s%s, the drag ends at %.0f; the guard said %s",
		parent, !killed.IsZero(), pointWords(u, uok), when, endX, quoteText(strings.TrimSpace(lastLine(said.String()))))
	if ferr != nil {
		saw += "; the act: " + errText(ferr)
	}
	if runtime.GOOS == "darwin" {
		saw += "; Reins, whom macOS credits for the guard, was alive: a Reins that died is the case this stands for"
	}
	s.passIf(!killed.IsZero() && early && letGo, CheckReleaseGuard, t0, "%s", saw)
}

// handChecks read the watch on the person's hand that ran through the
// acts, and, when the person agreed to it, a watch on their own move.
func (s *selfTest) handChecks(ctx context.Context, w *hand.Watch, watchErr error) {
	t0 := time.Now()
	if watchErr != nil {
		s.fail(CheckHandOwn, t0, "no watch on the person's hand: %v", watchErr)
		s.skip(CheckHandPerson, t0, "no watch to see it with")
		return
	}
	err := w.Check(ctx)
	if err == nil {
		s.pass(CheckHandOwn, t0, "the watch on the person's hand ran through all of the test's acts and took none of Reins' events for the person's")
	} else {
		in, seen := w.First()
		detail := ""
		if seen {
			detail = fmt.Sprintf(" (%s from device %d)", in.Kind, in.Device)
		}
		s.fail(CheckHandOwn, t0, "the watch tripped during the test's acts: %v%s; if you did not touch the mouse or keyboard then, it took Reins' own input for yours", err, detail)
	}
	if !s.o.Hand {
		s.skip(CheckHandPerson, time.Time{}, "not asked: run reins selftest -hand to move the mouse for it")
		return
	}
	t0 = time.Now()
	l, err := hand.Start(ctx, hand.Options{Display: s.r.display})
	if err != nil {
		s.fail(CheckHandPerson, t0, "no watch on the person's hand: %v", err)
		return
	}
	defer l.Close()
	s.say(fmt.Sprintf("Move the mouse a little now (within %s), and touch nothing else.", personMoveWait.Round(time.Second)))
	t := time.NewTimer(personMoveWait)
	defer t.Stop()
	select {
	case <-l.Tripped():
	case <-t.C:
	case <-ctx.Done():
	}
	in, seen := l.First()
	switch {
	case seen && errors.Is(l.Err(), hand.ErrPersonsHand):
		s.pass(CheckHandPerson, t0, "the watch saw your hand: %s from device %d, %s after asking", in.Kind, in.Device, in.At.Sub(t0).Round(time.Millisecond))
	case l.Err() != nil:
		s.fail(CheckHandPerson, t0, "the watch stopped: %v", l.Err())
	default:
		s.fail(CheckHandPerson, t0, "the watch saw nothing of yours within %s", personMoveWait)
	}
}

// Helpers on the window's events.

func find(evs []TestWindowEvent, ev, area string) int {
	for i, e := range evs {
		if e.Ev == ev && e.Area == area {
			return i
		}
	}
	return -1
}

func first(evs []TestWindowEvent, ev, area string) (TestWindowEvent, bool) {
	if i := find(evs, ev, area); i >= 0 {
		return evs[i], true
	}
	return TestWindowEvent{}, false
}

func count(evs []TestWindowEvent, ev, area string) int {
	n := 0
	for _, e := range evs {
		if e.Ev == ev && e.Area == area {
			n++
		}
	}
	return n
}

// strays are the clicks, double clicks, wheel turns and presses the window
// took outside area.
func strays(evs []TestWindowEvent, area string) []TestWindowEvent {
	var out []TestWindowEvent
	for _, e := range evs {
		switch e.Ev {
		case "tap", "doubletap", "scroll", "down":
			if e.Area != area {
				out = append(out, e)
			}
		}
	}
	return out
}

func strayWords(evs []TestWindowEvent) string {
	if len(evs) == 0 {
		return ""
	}
	return "; elsewhere: " + eventWords(evs)
}

func lastText(evs []TestWindowEvent) string {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Ev == "text" {
			return evs[i].Text
		}
	}
	return TestWindowSeed
}

// eventWords says what the window saw, briefly.
func eventWords(evs []TestWindowEvent) string {
	var parts []string
	for _, e := range evs {
		switch e.Ev {
		case "synced":
			continue
		case "text":
			parts = append(parts, "text "+quoteText(e.Text))
		case "shortcut":
			parts = append(parts, e.Text)
		case "scroll":
			parts = append(parts, fmt.Sprintf("scroll %+.0f on %s", e.DY, e.Area))
		default:
			parts = append(parts, fmt.Sprintf("%s on %s at %.0f,%.0f", e.Ev, e.Area, e.X, e.Y))
		}
		if len(parts) == 12 {
			parts = append(parts, "…")
			break
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

func pointWords(e TestWindowEvent, ok bool) string {
	if !ok {
		return "nowhere (not seen)"
	}
	return fmt.Sprintf("%.0f,%.0f", e.X, e.Y)
}

// quoteText shows text the test typed or saw, a line break as ⏎.
func quoteText(s string) string {
	return "“" + strings.ReplaceAll(s, "\n", "⏎") + "”"
}

func errText(err error) string {
	if err == nil {
		return "nothing: it fired"
	}
	return err.Error()
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func abs64(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
