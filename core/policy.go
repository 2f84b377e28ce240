package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/internal/peercred"
	"github.com/reins-app/reins/persondoor"
	"github.com/reins-app/reins/policy"
	"github.com/reins-app/reins/settings"
	"github.com/reins-app/reins/vocab"
)

// The organisation's policy narrows what the person's settings allow:
// shares, agents, plans, "allow on this tab", the time to answer, the
// deny list and where audit rows go. The engine holds the policy in
// force; the runtime reads it at start, re-reads it as it changes
// (ApplyPolicy) and writes its hash, and the binary's, to the audit log
// at start, at each change and as a heartbeat.

// policyBook is the policy the engine runs under.
type policyBook struct {
	mu sync.Mutex
	st policy.State // guarded by mu
	// audit is the policy's audit section the log was opened with (its
	// destinations cannot change under a running log): auditKey's words.
	audit  string // guarded by mu
	binary string // "sha256:…" of this program, or "" when not known
	// changed is told of each change, for the heartbeat to start anew.
	changed chan struct{}
	// identify finds the program behind an agent's process.
	identify func(pid int) policy.Program
}

var _ persondoor.Managed = person{}

// Policy is the organisation's policy in force.
func (e *Engine) Policy() policy.State {
	e.pol.mu.Lock()
	defer e.pol.mu.Unlock()
	return e.pol.st
}

// Policy is the organisation's policy in force, for the person's windows.
func (d person) Policy() policy.State { return d.e.Policy() }

// rules is the policy every rule is read from; nil narrows nothing.
func (e *Engine) rules() *policy.Policy { return e.Policy().Effective() }

// initPolicy takes the policy the engine starts under; called by New.
func (e *Engine) initPolicy() {
	e.pol.st = e.opts.Policy
	e.pol.audit = auditKey(e.opts.Policy)
	e.pol.binary = e.opts.Binary
	e.pol.changed = make(chan struct{}, 1)
	e.pol.identify = osIdentify
	e.applyRules(e.opts.Policy.Effective())
}

// ApplyPolicy makes st the policy in force, as the runtime finds it
// changed: what it no longer allows ends now — shares narrowed to what it
// allows (and acts under way under them stopped), plans and remembered
// answers it does not offer, agents it does not list — and a row in the
// audit log says which policy is in force.
func (e *Engine) ApplyPolicy(st policy.State) {
	e.pol.mu.Lock()
	was := e.pol.st
	e.pol.st = st
	e.pol.mu.Unlock()
	if st.Same(was) {
		return
	}
	select {
	case e.pol.changed <- struct{}{}:
	default:
	}
	e.recordPolicy("the policy changed")
	p := st.Effective()
	e.applyRules(p)
	e.narrowShares(st)
	e.narrowAgents(st)
	e.narrowPlans(p, was.Effective())
	e.publish(persondoor.Event{Kind: persondoor.EventPolicy, Detail: st.Words()})
	e.publish(persondoor.Event{Kind: persondoor.EventSettings})
	e.publish(persondoor.Event{Kind: persondoor.EventTabs})
}

// applyRules gives the broker and the executor what p says of them.
func (e *Engine) applyRules(p *policy.Policy) {
	e.broker.OfferRemember(p.AllowOnTab())
	e.prefs.mu.Lock()
	chosen := e.prefs.s.ApprovalTimeout
	added := e.prefs.s.DenyAdded
	e.prefs.mu.Unlock()
	if chosen > 0 {
		e.broker.SetTimeout(p.ClampTimeout(chosen))
	}
	e.opts.Executor.SetDenyList(e.denyList(added))
}

// errStoppedByPolicy: the organisation's policy changed and no longer
// allows what the act was under.
var errStoppedByPolicy = errors.New("the organisation's policy changed")

// policyError is a refusal naming the policy and its rule, then what
// follows for whoever reads it.
func (e *Engine) policyError(rule, then string) *vocab.Error {
	return &vocab.Error{Code: vocab.CodePolicy, Message: e.Policy().Refusal(rule) + then}
}

// brokenPolicy refuses everything while a policy is there that cannot be
// honoured; nil otherwise.
func (e *Engine) brokenPolicy() *vocab.Error {
	if st := e.Policy(); st.Err != nil {
		return &vocab.Error{Code: vocab.CodePolicy, Message: st.Broken()}
	}
	return nil
}

// sharePolicy refuses a share the policy does not allow, before anything
// is recorded or asked; stopping a share is never refused.
func (e *Engine) sharePolicy(tab, origin string, level vocab.Level) error {
	if level == vocab.None {
		return nil
	}
	if err := e.brokenPolicy(); err != nil {
		return err
	}
	p := e.rules()
	l := p.Site(origin)
	what := origin
	if tab == vocab.DesktopKey {
		l, what = p.Desktop(), "the desktop"
	}
	if l.Allows(level) {
		return nil
	}
	most := "may not be shared"
	if l.Level == vocab.ReadOnly {
		most = "may be shared at Read at most"
	}
	return e.policyError(fmt.Sprintf("%s %s (%s)", what, most, l.Rule), "")
}

// sitePolicy refuses an agent's read or act on a tab whose site the
// policy does not allow at need. The agent is not told which rule: the
// tab may not be its to know about.
func (e *Engine) sitePolicy(origin string, need vocab.Level) error {
	if err := e.brokenPolicy(); err != nil {
		return err
	}
	if l := e.rules().Site(origin); !l.Allows(need) {
		if l.Level == vocab.ReadOnly {
			return e.policyError("agents may read this tab's site but not act in it", "; nothing was done")
		}
		return e.policyError("agents may not use this tab's site", "; nothing was read or done")
	}
	return nil
}

// actPolicy refuses an act, before the person is asked, while the policy
// cannot be honoured, or while it names other audit destinations than
// the running log sends rows to.
func (e *Engine) actPolicy() error {
	if err := e.brokenPolicy(); err != nil {
		return err
	}
	e.pol.mu.Lock()
	stale := auditKey(e.pol.st) != e.pol.audit
	e.pol.mu.Unlock()
	if stale {
		return e.policyError("it changed where audit rows go, which takes effect when Reins starts again", "; until then no act fires: quit and open Reins")
	}
	return nil
}

// planPolicy refuses a plan the policy does not offer, or one longer than
// it allows, before the person is asked.
func (e *Engine) planPolicy(steps int) error {
	if err := e.brokenPolicy(); err != nil {
		return err
	}
	p := e.rules()
	if !p.Plans() {
		return e.policyError("plans is false: plans are not offered", "; ask for each step on its own")
	}
	if n := p.MaxPlanSteps(); n > 0 && steps > n {
		return e.policyError(fmt.Sprintf("maxPlanSteps is %d and this plan has %d steps", n, steps), "; split it")
	}
	return nil
}

// agentPolicy refuses a session whose program the policy does not list.
func (e *Engine) agentPolicy(s *Session) *vocab.Error {
	if err := e.brokenPolicy(); err != nil {
		return err
	}
	if ok, why := e.rules().AgentAllowed(s.program); !ok {
		return e.policyError(why, "; this agent may not use Reins on this computer, and the person was not asked")
	}
	return nil
}

// timeoutPolicy refuses a time to answer outside the policy's bounds.
func (e *Engine) timeoutPolicy(d time.Duration) error {
	if err := e.brokenPolicy(); err != nil {
		return err
	}
	lo, hi, ok := e.rules().ApprovalTimeout()
	if ok && (d < lo || d > hi) {
		return fmt.Errorf("%w: %s", settings.ErrInvalid, e.Policy().Refusal(fmt.Sprintf("the time to answer must be from %s to %s", spoken(lo), spoken(hi))))
	}
	return nil
}

// narrowShares lowers each share to what st allows, stopping what was
// under way under it, and says so in the log and to the person.
func (e *Engine) narrowShares(st policy.State) {
	p := st.Effective()
	keys := []string{vocab.DesktopKey}
	for _, t := range e.Tabs() {
		keys = append(keys, t.ID)
	}
	for _, key := range keys {
		g := e.shares.Get(key)
		if g.Level == vocab.None {
			continue
		}
		l := p.Site(g.Origin)
		where := vocab.Target{Tab: key, Origin: g.Origin}
		if key == vocab.DesktopKey {
			l, where = p.Desktop(), vocab.Target{Desktop: true, Name: "desktop"}
		}
		if l.Allows(g.Level) {
			continue
		}
		if err := e.shares.SetFor(key, g.Origin, g.Program, g.Agent, l.Level); err != nil {
			e.opts.Logf("policy: narrowing the share of %s: %v", key, err)
			continue
		}
		e.stopAllFiringOn(key, errStoppedByPolicy)
		e.plans.end(key, "the organisation's policy changed")
		e.broker.ForgetTab(key)
		rule := l.Rule
		if st.Err != nil {
			rule = "it cannot be honoured"
		}
		detail := fmt.Sprintf("Reins ended the share at %s: the organisation's policy (%s) allows %s (%s)", g.Level, st.Source, l.Level, rule)
		// The row sits with the person's share changes, as the end of a
		// loopback tab's share does: Reins ended it for them.
		e.record(context.Background(), audit.Entry{
			Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Share}, Target: where,
			Outcome: vocab.OutcomeDone, Code: vocab.CodePolicy, Detail: detail,
		})
		e.publish(persondoor.Event{Kind: persondoor.EventShare, Tab: key, Level: l.Level, Detail: "the organisation's policy changed"})
	}
}

// narrowAgents withdraws the allowance of every agent the policy no longer
// lists, and stops its acts under way.
func (e *Engine) narrowAgents(st policy.State) {
	p := st.Effective()
	if !p.AgentsPinned() {
		return
	}
	b := e.agentBook()
	type gone struct {
		key string
		who vocab.Agent
		ask *connectAsk
	}
	var out []gone
	b.mu.Lock()
	for key, en := range b.agents {
		if ok, _ := p.AgentAllowed(en.program); !ok {
			out = append(out, gone{key, en.last, en.ask})
			en.allowed = false
		}
	}
	b.mu.Unlock()
	for _, g := range out {
		e.stopFiringFor(g.key, errStoppedByPolicy)
		if g.ask != nil {
			g.ask.withdraw()
		}
		e.record(context.Background(), audit.Entry{
			Agent: vocab.Agent{Name: vocab.PersonName}, Act: vocab.Act{Kind: vocab.Connect}, Target: vocab.Target{Name: g.who.Label()},
			Outcome: vocab.OutcomeDone, Code: vocab.CodePolicy,
			Detail: "Reins withdrew the agent's allowance: the organisation's policy (" + st.Source + ") does not list its program",
		})
	}
	if len(out) > 0 {
		e.publish(persondoor.Event{Kind: persondoor.EventAgents})
	}
}

// narrowPlans ends the plans the policy no longer offers.
func (e *Engine) narrowPlans(p, was *policy.Policy) {
	if !p.Plans() {
		e.plans.end("", "the organisation's policy does not offer plans")
		return
	}
	n := p.MaxPlanSteps()
	if n == 0 || n == was.MaxPlanSteps() {
		return
	}
	e.plans.mu.Lock()
	var long []*approvals.Planned
	for _, ps := range e.plans.m {
		for _, pl := range ps {
			if len(pl.Request().Plan) > n {
				long = append(long, pl)
			}
		}
	}
	e.plans.mu.Unlock()
	for _, pl := range long {
		pl.End(fmt.Sprintf("the organisation's policy allows plans of %d steps at most", n))
	}
}

// stopFiringFor stops every act under way of the agent of key.
func (e *Engine) stopFiringFor(key string, why error) {
	e.pauseMu.Lock()
	defer e.pauseMu.Unlock()
	for id, f := range e.firing {
		if f.agent == key {
			f.cancel(why)
			delete(e.firing, id)
		}
	}
}

// recordPolicy writes which policy is in force and which binary runs, to
// the audit log (and so to the organisation's copies of it) and Reins' own
// log, with why: at start and as a heartbeat while there is a policy, and
// at each change, so that a Reins running without its policy shows, by
// the change's row and by the heartbeats that stop.
func (e *Engine) recordPolicy(why string) {
	st := e.Policy()
	en := audit.Entry{Agent: vocab.Agent{Name: "Reins"}, Act: vocab.Act{Kind: vocab.Policy}, Outcome: vocab.OutcomeDone}
	binary := e.pol.binary
	if binary == "" {
		binary = "unknown"
	}
	switch {
	case st.Err != nil:
		en.Outcome, en.Code = vocab.OutcomeRefused, vocab.CodePolicy
		en.Detail = fmt.Sprintf("%s: policy %s from %s cannot be honoured (%v), so nothing is shared and no act fires; binary %s", why, orNone(st.Hash), st.Source, st.Err, binary)
	case st.Policy == nil:
		en.Detail = fmt.Sprintf("%s: no organisation's policy; binary %s", why, binary)
	default:
		en.Detail = fmt.Sprintf("%s: policy %s from %s; binary %s", why, st.Hash, st.Source, binary)
	}
	if _, err := e.opts.Audit.Record(context.Background(), en); err != nil {
		e.opts.Logf("audit: %v", err)
	}
	e.opts.Logf("policy: %s", en.Detail)
}

func orNone(s string) string {
	if s == "" {
		return "(unreadable)"
	}
	return s
}

// auditKey is the policy's audit section in words that differ when it
// does; "" when it says nothing of the audit.
func auditKey(st policy.State) string {
	if st.Err != nil {
		return "" // refused anyway; the section cannot be read
	}
	a := st.Policy.Audit()
	if a == nil {
		return ""
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// ManagedAnchor is the audit log's copies as the person's settings name
// them (AnchorOptions' result), with the organisation's policy applied: a
// destination the policy names replaces the person's, and the policy's
// requirements add to theirs.
func ManagedAnchor(ao audit.AnchorOptions, p *policy.Policy) audit.AnchorOptions {
	a := p.Audit()
	if a == nil {
		return ao
	}
	tls := func(t policy.TLS) audit.TLSOptions {
		return audit.TLSOptions{CAFile: t.CA, CertFile: t.Cert, KeyFile: t.Key, ServerName: t.ServerName}
	}
	if s := a.Syslog; s != nil {
		ao.Remote, ao.RemoteRequired, ao.RemoteTLS = s.Address, s.Required, nil
		if s.TLS != nil {
			t := tls(*s.TLS)
			ao.RemoteTLS = &t
		}
	}
	if o := a.OTLP; o != nil {
		ao.OTLP = &audit.OTLPOptions{URL: o.URL, TLS: tls(o.TLS), Headers: o.Headers, Required: o.Required}
	}
	ao.RequireAnchor = ao.RequireAnchor || a.RequireAnchor
	return ao
}

// ManagedRetention is the audit log's retention as the person's settings
// say (RetentionOptions' result), replaced by the policy's when it says.
func ManagedRetention(ro audit.RetentionOptions, p *policy.Policy) audit.RetentionOptions {
	r := p.Retention()
	if r == nil {
		return ro
	}
	ro.MaxAge, ro.MaxBytes = time.Duration(r.Days)*24*time.Hour, int64(r.Megabytes)<<20
	return ro
}

// spoken says a duration: "30 seconds", "1 minute".
func spoken(d time.Duration) string {
	n, unit := int(d/time.Second), "second"
	if d >= time.Minute && d%time.Minute == 0 {
		n, unit = int(d/time.Minute), "minute"
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// osProcs answers policy.Identify from the OS.
type osProcs struct{}

func (osProcs) Parent(pid int) (int, error)  { return peercred.Parent(pid) }
func (osProcs) Exe(pid int) (string, error)  { return peercred.Exe(pid) }
func (osProcs) Arg1(pid int) (string, error) { return peercred.Arg1(pid) }

func osIdentify(pid int) policy.Program {
	return policy.Identify(pid, osProcs{}, func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	})
}

// BinaryHash is "sha256:…" of the program running, for the rows about the
// policy; "" when it cannot be read.
func BinaryHash() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// policyPoll is how often the policy's source is read again.
const policyPoll = time.Second

// watchPolicy re-reads the policy from src until ctx ends, applying each
// change, and writes the heartbeat row as often as the policy says.
func (r *Runtime) watchPolicy(ctx context.Context, src policy.Source) {
	watched := make(chan struct{})
	defer func() { <-watched }()
	go func() {
		defer close(watched)
		policy.Watch(ctx, src, policyPoll, r.Policy(), r.ApplyPolicy)
	}()
	for {
		t := time.NewTimer(r.rules().Heartbeat())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-r.pol.changed:
			t.Stop()
		case <-t.C:
			if r.Policy().Managed() {
				r.recordPolicy("heartbeat")
			}
		}
	}
}

// policyCheck is doctor's line about the organisation's policy.
func policyCheck(st policy.State) Check {
	switch {
	case st.Err != nil:
		return Check{What: "organisation's policy from " + st.Source, Fix: st.Broken()}
	case st.Policy == nil:
		return Check{What: "organisation's policy: none here; the person's settings decide", OK: true}
	}
	return Check{What: "organisation's policy from " + st.Source + " (" + st.Hash + ") is in force", OK: true}
}

// PolicyReport is the organisation's policy in force as `reins doctor`
// prints it under its checks: where it comes from, its hash, each rule,
// and what the organisation receives of each audit row.
func PolicyReport() []string {
	return policyReport(policy.System().Read())
}

func policyReport(st policy.State) []string {
	switch {
	case st.Err != nil:
		return []string{"Policy: " + st.Broken() + "."}
	case st.Policy == nil:
		return []string{"Policy: none. On Linux an organisation puts it in " + policy.LinuxPath + "; on macOS a configuration profile sets the managed preferences of " + policy.BundleID + "."}
	}
	out := []string{"Policy in force, from " + st.Source + " (" + st.Hash + "):"}
	for _, l := range st.Policy.Lines() {
		out = append(out, "  "+l+".")
	}
	for _, l := range persondoor.OrganisationReceives(st.Policy) {
		out = append(out, "  "+l)
	}
	return out
}
