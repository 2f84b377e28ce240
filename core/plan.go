package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reins-app/reins/agentdoor"
	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/bridge/protocol"
	"github.com/reins-app/reins/grounding"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/vocab"
)

// planTurn is a step of a plan on its way: which plan, which step (from
// 0), and whether it had to be asked on its own.
type planTurn struct {
	plan  *approvals.Planned
	i     int
	asked bool
	page  grounding.FrameState // the top frame's document when the plan covered the step
}

// topFrame is the tab's top frame's document and epoch now.
func (e *Engine) topFrame(tab string) grounding.FrameState {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := e.tabs[tab]; t != nil {
		return t.frames[0]
	}
	return grounding.FrameState{}
}

// planStill refuses a step the plan covered when, by the time it is to
// fire, the plan has ended (the tab navigated, agents were paused, the
// share changed, its time ran out) or the tab's top frame shows another
// document than when the plan covered it: the plan's leave was for that
// page.
func (e *Engine) planStill(f firing) error {
	if f.turn == nil {
		return errorf(vocab.CodePlanEnded, "the step has no plan; nothing was done")
	}
	if err := f.turn.plan.Live(); err != nil {
		return errorf(vocab.CodePlanEnded, "%v; nothing was done", err)
	}
	if now := e.topFrame(f.tab); now != f.turn.page {
		return errorf(vocab.CodePlanEnded, "the tab shows another page than when the plan covered this step; nothing was done")
	}
	return nil
}

// livePlans are the plans running, by tab, so that a navigation or a pause
// ends them.
type livePlans struct {
	mu sync.Mutex
	m  map[string][]*approvals.Planned // guarded by mu
}

func (l *livePlans) add(tab string, p *approvals.Planned) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string][]*approvals.Planned{}
	}
	l.m[tab] = append(l.m[tab], p)
}

func (l *livePlans) remove(tab string, p *approvals.Planned) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[tab] = slices.DeleteFunc(l.m[tab], func(q *approvals.Planned) bool { return q == p })
	if len(l.m[tab]) == 0 {
		delete(l.m, tab)
	}
}

// end ends the plans running on tab, or on every tab when tab is "".
func (l *livePlans) end(tab, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for t, ps := range l.m {
		if tab == "" || t == tab {
			for _, p := range ps {
				p.End(why)
			}
		}
	}
}

// RunPlan puts a plan for one tab to the person in one popup and runs the
// steps they allow, in order. Each step goes the way of a single act —
// grounded afresh, re-checked, committed to the log, fired — with the
// plan's leave standing in for the person's answer only while the step
// matches the plan exactly (approvals.Planned.Step); a step that no longer
// does, or that the risk table names, is asked on its own. A step whose
// element changed since the plan is read afresh and asked on its own, so
// the person sees what it is now. The plan ends at its last step, at the
// first step not done, when the tab navigates, when agents are paused, or
// when its time runs out.
func (s *Session) RunPlan(ctx context.Context, p agentdoor.PlanRequest) (*agentdoor.PlanResult, error) {
	e := s.e
	id := e.newID("p")
	en := audit.Entry{Agent: s.agent, Act: vocab.Act{Kind: vocab.Plan, Text: p.Summary, Plan: id, Steps: len(p.Steps)}, Target: vocab.Target{Tab: p.Tab}}
	planned, snapID, err := s.proposePlan(ctx, p, &en)
	if err != nil {
		return nil, s.refuse(ctx, en, err)
	}
	// The plan's row before any step: no step runs on a plan the log does
	// not hold.
	en.Outcome = vocab.OutcomeDone
	en.Decision = fmt.Sprintf("allowed steps 1 to %d of %d", planned.Allowed(), len(p.Steps))
	en.Detail = fmt.Sprintf("plan %s allowed until %s; its steps: %s", id, planned.Until().Format("15:04:05"), stepList(planned.Request().Plan))
	if _, err := e.opts.Audit.Record(context.WithoutCancel(ctx), en); err != nil {
		e.opts.Logf("audit: %v", err)
		ce := &vocab.Error{Code: vocab.CodeAuditFailed, Message: "the person allowed the plan, but the audit log could not record it, so no step was run: " + err.Error(), Err: err}
		en.Outcome, en.Code, en.Detail = vocab.OutcomeFailed, ce.Code, ce.Message
		e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: p.Tab, Activity: activityOf(en, e.opts.Now())})
		return nil, ce
	}
	e.publish(persondoor.Event{Kind: persondoor.EventActivity, Tab: p.Tab, Activity: activityOf(en, e.opts.Now())})

	e.plans.add(p.Tab, planned)
	defer e.plans.remove(p.Tab, planned)
	res := &agentdoor.PlanResult{Plan: id, Allowed: planned.Allowed()}
	for i, st := range p.Steps {
		if err := planned.Live(); err != nil {
			res.Ended = err.Error()
			break
		}
		if i >= planned.Allowed() {
			res.Ended = fmt.Sprintf("the person allowed steps 1 to %d only", planned.Allowed())
			break
		}
		act := st.Act
		act.Plan, act.Step, act.Steps = id, i+1, len(p.Steps)
		r := agentdoor.ActRequest{Tab: p.Tab, Ref: st.Ref, Snapshot: snapID, Act: act, Element: st.Element}
		step, err := s.planStep(ctx, planned, i, r)
		res.Steps = append(res.Steps, step)
		if err != nil {
			why := fmt.Sprintf("step %d was not done (%s)", i+1, step.Code)
			if step.Code == vocab.CodeMissed {
				why = fmt.Sprintf("step %d fired but missed its element", i+1)
			}
			planned.End(why)
			res.Ended = why
			break
		}
	}
	for i := len(res.Steps); i < len(p.Steps); i++ {
		res.Steps = append(res.Steps, agentdoor.PlanStepResult{Step: i + 1, Code: vocab.CodePlanEnded, Error: "not run: " + res.Ended})
	}
	planned.End("done")

	end := audit.Entry{Agent: s.agent, Act: en.Act, Target: en.Target, Outcome: vocab.OutcomeDone,
		Detail: fmt.Sprintf("plan %s ended: %d of %d steps done", id, doneSteps(res), len(p.Steps))}
	if res.Ended != "" {
		end.Outcome, end.Code = vocab.OutcomeRefused, vocab.CodePlanEnded
		end.Detail += "; " + res.Ended
	}
	e.record(ctx, end)
	return res, nil
}

// stepList is a plan's steps as the person read them, numbered, for its
// audit row: secret text only as its length.
func stepList(steps []vocab.PlanStep) string {
	parts := make([]string, len(steps))
	for i, st := range steps {
		parts[i] = fmt.Sprintf("%d. %s", i+1, st.Sentence())
	}
	return strings.Join(parts, "; ")
}

func doneSteps(r *agentdoor.PlanResult) int {
	n := 0
	for _, s := range r.Steps {
		if s.Audit != 0 && s.Code == "" {
			n++
		}
	}
	return n
}

// planStep runs step i. When its element changed since the plan was made
// (the page relabelled it), the tab is read afresh and the step tried once
// more on the same element as that reading shows it: it no longer matches
// the plan, so it is put to the person as it is now, never fired on the
// plan's leave.
func (s *Session) planStep(ctx context.Context, planned *approvals.Planned, i int, r agentdoor.ActRequest) (agentdoor.PlanStepResult, error) {
	out := agentdoor.PlanStepResult{Step: i + 1}
	turn := &planTurn{plan: planned, i: i}
	res, err := s.actIn(ctx, r, turn)
	if again, ok := s.relabelled(ctx, r, err); ok {
		turn = &planTurn{plan: planned, i: i}
		res, err = s.actIn(ctx, again, turn)
	}
	out.Asked = turn.asked
	if err != nil {
		planned.Pass(i)
		ce, _ := classify(err)
		out.Code, out.Error = ce.Code, ce.Message
		return out, err
	}
	out.Done, out.Audit, out.Effect = res.Done, res.Audit, res.Effect
	if res.Missed {
		// It fired, but not on its element: what the plan meant to do next
		// may no longer fit the page.
		out.Code, out.Error = vocab.CodeMissed, res.Effect
		return out, errorf(vocab.CodeMissed, "%s", res.Effect)
	}
	return out, nil
}

// relabelled returns r on the element it names as a fresh reading of the
// tab shows it, when err says the element changed since r's snapshot and
// what it is now; ok is false otherwise.
func (s *Session) relabelled(ctx context.Context, r agentdoor.ActRequest, err error) (agentdoor.ActRequest, bool) {
	var re *protocol.Error
	if err == nil || r.Ref == "" || !errors.As(err, &re) || re.Code != protocol.CodeChanged || re.Now == nil {
		return r, false
	}
	was, _, lerr := s.element(r)
	if lerr != nil {
		return r, false
	}
	read, rerr := s.Snapshot(ctx, r.Tab)
	if rerr != nil {
		return r, false
	}
	e := s.e
	var snap *grounding.Snapshot
	e.mu.Lock()
	if t := e.tabs[r.Tab]; t != nil {
		snap = t.byID[read.ID]
	}
	e.mu.Unlock()
	if snap == nil {
		return r, false
	}
	for ref, el := range snap.Elements {
		if el.Frame == was.Frame && el.Doc == was.Doc && el.ID == re.Now.ID {
			r.Ref, r.Snapshot = ref, read.ID
			return r, true
		}
	}
	return r, false
}

// proposePlan checks a plan, grounds each step as a single act is grounded
// before the person is asked, and puts the plan to the person. It returns
// what they allowed and the snapshot the steps' refs come from.
func (s *Session) proposePlan(ctx context.Context, p agentdoor.PlanRequest, en *audit.Entry) (*approvals.Planned, string, error) {
	e := s.e
	switch n := len(p.Steps); {
	case n == 0:
		return nil, "", errorf(vocab.CodeBadRequest, "a plan needs at least one step")
	case n > agentdoor.MaxPlanSteps:
		return nil, "", errorf(vocab.CodeBadRequest, "a plan holds at most %d steps and this one has %d; split it into several plans", agentdoor.MaxPlanSteps, n)
	}
	if err := e.planPolicy(len(p.Steps)); err != nil {
		return nil, "", err
	}
	keys := false
	for i, st := range p.Steps {
		switch k := st.Act.Kind; {
		case !k.InPlan():
			return nil, "", errorf(vocab.CodeBadRequest, "step %d: %q cannot be a step of a plan, which stays in one document: open addresses with browser_navigate, on their own", i+1, st.Act.Kind)
		case k.OnElement() && st.Ref == "":
			return nil, "", errorf(vocab.CodeBadRequest, "step %d: %s needs a ref from a snapshot", i+1, st.Act.Kind)
		case k == vocab.Key:
			keys = true
		}
		one := audit.Entry{Act: st.Act}
		if err := possible(&one); err != nil {
			return nil, "", stepError(i, err)
		}
	}
	if err := s.admitted(ctx); err != nil {
		return nil, "", err
	}
	if e.Paused() {
		return nil, "", errorf(vocab.CodePaused, "the person has paused all agents; wait and try again later")
	}
	t, info, err := e.lookup(p.Tab)
	if err != nil {
		return nil, "", err
	}
	origin := approvals.Origin(info.URL)
	en.Target.TabTitle, en.Target.Origin = info.Title, origin
	if err := e.checkShare(s.key(), p.Tab, origin, vocab.Control); err != nil {
		en.Target.TabTitle = ""
		return nil, "", err
	}
	if err := e.handedOff(p.Tab); err != nil {
		return nil, "", err
	}
	if err := e.canInput(vocab.Click); err != nil {
		return nil, "", err
	}
	if err := e.personTerminalShown(ctx); err != nil {
		return nil, "", err
	}
	if !info.Active {
		return nil, "", errorf(vocab.CodeNotVisible, "tab %s is not the visible tab of its window; bring it to the front first", p.Tab)
	}
	if keys && !info.Focused {
		return nil, "", errorf(vocab.CodeNotVisible, "tab %s's window does not have the keyboard focus, so the plan's keys could land elsewhere; bring the tab to the front first", p.Tab)
	}

	steps := make([]vocab.PlanStep, len(p.Steps))
	at := make([]*protocol.ResolveResult, len(p.Steps))
	var snap *grounding.Snapshot
	for i, st := range p.Steps {
		tgt := vocab.Target{Tab: p.Tab, TabTitle: info.Title, Origin: origin, Ref: st.Ref, Claim: st.Element}
		act := st.Act
		act.Plan, act.Step, act.Steps = en.Act.Plan, i+1, len(p.Steps)
		if st.Ref != "" {
			el, sn, err := s.element(agentdoor.ActRequest{Tab: p.Tab, Ref: st.Ref, Snapshot: p.Snapshot})
			if err != nil {
				return nil, "", stepError(i, err)
			}
			if snap != nil && sn != snap {
				return nil, "", errorf(vocab.CodeStaleRef, "step %d: its ref comes from another snapshot than the steps before it; take one snapshot and make the plan from it", i+1)
			}
			snap = sn
			tgt.Role, tgt.Name = el.Role, el.Name
			if el.FrameOrigin != origin {
				tgt.FrameOrigin = el.FrameOrigin
			}
			act.Secret = act.Secret || el.Secret
			// Found now where it can be; a field further on may be hidden
			// or disabled until the steps before it are done, and is
			// checked again at its turn.
			res, err := e.resolve(ctx, t, el)
			withMotion(&tgt, motionOf(res, err))
			if err == nil {
				act.Secret = act.Secret || res.Secret
				at[i] = res
			} else {
				switch ce, _ := classify(err); ce.Code {
				case vocab.CodeStaleRef, vocab.CodeChanged, vocab.CodeDisconnected, vocab.CodeNoTab, vocab.CodeFailed:
					return nil, "", stepError(i, err)
				}
			}
		}
		steps[i] = vocab.PlanStep{Act: act, Target: tgt, Reason: st.Reason}
	}
	req := vocab.Request{ID: e.newAskID("a"), Agent: s.agent, Act: en.Act, Target: vocab.Target{Tab: p.Tab, TabTitle: info.Title, Origin: origin}, Plan: steps}
	req.Picture, req.Sketch = e.planPicture(ctx, t, snap, at, req.Plan)
	if err := e.opts.Audit.AnchorReady(); err != nil {
		return nil, "", err
	}
	planned, err := e.broker.DecidePlan(ctx, req)
	if err != nil {
		return nil, "", err
	}
	id := ""
	if snap != nil {
		id = snap.ID
	}
	return planned, id, nil
}

// stepError names the step an error is about.
func stepError(i int, err error) error {
	ce, _ := classify(err)
	return &vocab.Error{Code: ce.Code, Message: fmt.Sprintf("step %d: %s", i+1, ce.Message), Err: err}
}

// planPicture is the picture of a plan: one capture of the tab with each
// step's target boxed in its pixels, or, when Chrome gives none, a sketch
// of the viewport from snap with the boxes in CSS pixels. A step not found
// in view has no box.
func (e *Engine) planPicture(ctx context.Context, t *tabState, snap *grounding.Snapshot, at []*protocol.ResolveResult, steps []vocab.PlanStep) ([]byte, *vocab.Sketch) {
	var first *protocol.ResolveResult
	for _, r := range at {
		if r != nil {
			first = r
			break
		}
	}
	png, _, _ := e.picture(ctx, t, nil, nil, grounding.Element{})
	var sk *vocab.Sketch
	scale := 1.0
	switch {
	case png != nil && first != nil && first.Window.DPR > 0:
		scale = first.Window.DPR
	case png == nil && first != nil:
		if sk = sketchOf(snap, first.Viewport, grounding.Element{Frame: -1}, protocol.Point{}); sk == nil {
			return nil, nil
		}
	case png == nil:
		return nil, nil
	}
	for i, r := range at {
		if r == nil {
			continue
		}
		b := r.TopBox
		steps[i].Box = &vocab.Box{X: b.X * scale, Y: b.Y * scale, W: b.W * scale, H: b.H * scale}
	}
	return png, sk
}
