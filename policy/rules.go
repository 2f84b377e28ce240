package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reins-app/reins/vocab"
)

// Limit is the highest level something may be shared at, and, when the
// policy sets it below Control, the rule that says so.
type Limit struct {
	Level vocab.Level
	Rule  string // "sites.never lists *.bank.example"; "" when nothing limits
}

// Allows reports whether the limit allows level.
func (l Limit) Allows(level vocab.Level) bool { return level <= l.Level }

// Site is the highest level a tab on origin may be shared at: none when
// sites.never names it or sites.only does not, else the lowest of the
// sites.maxLevel entries that name it.
func (p *Policy) Site(origin string) Limit {
	if p == nil {
		return Limit{Level: vocab.Control}
	}
	for _, s := range p.never {
		if s.Match(origin) {
			return Limit{Level: vocab.None, Rule: "sites.never lists " + s.String()}
		}
	}
	if p.onlySet && !slices.ContainsFunc(p.only, func(s Site) bool { return s.Match(origin) }) {
		if len(p.only) == 0 {
			return Limit{Level: vocab.None, Rule: "sites.only lists no site"}
		}
		return Limit{Level: vocab.None, Rule: "sites.only does not list it"}
	}
	l := Limit{Level: vocab.Control}
	for _, c := range p.caps {
		if c.site.Match(origin) && c.level < l.Level {
			l = Limit{Level: c.level, Rule: fmt.Sprintf("sites.maxLevel caps %s at %s", c.site, c.level)}
		}
	}
	return l
}

// Desktop is the highest level the desktop may be shared at.
func (p *Policy) Desktop() Limit {
	if p == nil || !p.desktopSet || p.desktop == vocab.Control {
		return Limit{Level: vocab.Control}
	}
	return Limit{Level: p.desktop, Rule: "desktop is " + p.desktop.String()}
}

// DenyApplications are the applications no act may touch, beside the
// built-in deny list and the person's additions.
func (p *Policy) DenyApplications() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.denyApps)
}

// AgentsPinned reports whether the policy names the only agents that may
// connect.
func (p *Policy) AgentsPinned() bool { return p != nil && p.agentsSet }

// AgentRules are the programs that may connect, when AgentsPinned.
func (p *Policy) AgentRules() []AgentRule {
	if p == nil {
		return nil
	}
	return slices.Clone(p.agents)
}

// AgentAllowed reports whether the program may connect as an agent, and
// if not, the rule's words for why.
func (p *Policy) AgentAllowed(prog Program) (bool, string) {
	if !p.AgentsPinned() {
		return true, ""
	}
	for _, r := range p.agents {
		if r.Matches(prog) {
			return true, ""
		}
	}
	if len(p.agents) == 0 {
		return false, "agents lists no program"
	}
	return false, "agents does not list " + prog.String()
}

// Matches reports whether the rule names prog: its executable (or, with
// no script named, the launcher that started its interpreter) is the
// rule's program or under the rule's folder, and its script is the
// rule's script when the rule names one.
func (r AgentRule) Matches(prog Program) bool {
	under := func(path string) bool {
		if path == "" {
			return false
		}
		if strings.HasSuffix(r.Program, "/") {
			return strings.HasPrefix(path, r.Program)
		}
		return path == r.Program
	}
	if r.Script != "" {
		return under(prog.Exe) && prog.Script != "" && (prog.Script == r.Script || prog.ScriptResolved == r.Script)
	}
	return under(prog.Exe) || under(prog.Launcher)
}

// String is the rule as a person reads it.
func (r AgentRule) String() string {
	if r.Script != "" {
		return r.Program + " running " + r.Script
	}
	if strings.HasSuffix(r.Program, "/") {
		return "any program under " + r.Program
	}
	return r.Program
}

// AllowOnTab reports whether "allow on this tab" may be offered.
func (p *Policy) AllowOnTab() bool { return p == nil || p.allowOnTab }

// Plans reports whether agents' plans may be put to the person.
func (p *Policy) Plans() bool { return p == nil || p.plans }

// MaxPlanSteps is the most steps a plan may hold; 0 when the policy sets
// no bound of its own.
func (p *Policy) MaxPlanSteps() int {
	if p == nil {
		return 0
	}
	return p.maxPlanSteps
}

// ApprovalTimeout is the bounds of the time to answer the policy sets;
// ok is false when it sets none.
func (p *Policy) ApprovalTimeout() (lo, hi time.Duration, ok bool) {
	if p == nil || p.timeoutMax == 0 {
		return 0, 0, false
	}
	return p.timeoutMin, p.timeoutMax, true
}

// ClampTimeout is d within the policy's bounds of the time to answer.
func (p *Policy) ClampTimeout(d time.Duration) time.Duration {
	lo, hi, ok := p.ApprovalTimeout()
	if !ok {
		return d
	}
	return min(max(d, lo), hi)
}

// Audit is where audit rows go as the policy says; nil when it says
// nothing of them.
func (p *Policy) Audit() *Audit {
	if p == nil || p.audit == nil {
		return nil
	}
	a := *p.audit
	return &a
}

// Retention is how long the audit log is kept as the policy says; nil
// when it says nothing of it.
func (p *Policy) Retention() *Retention {
	if p == nil || p.retention == nil {
		return nil
	}
	r := *p.retention
	return &r
}

// Heartbeat is how often Reins writes the policy's and its own hash to
// the audit log while it runs.
func (p *Policy) Heartbeat() time.Duration {
	if p == nil {
		return DefaultHeartbeat
	}
	return p.heartbeat
}

// closed is the policy a policy that cannot be honoured stands for:
// nothing shared, no agent, no act.
func closed() *Policy {
	all, _ := ParseSite("*")
	return &Policy{
		never: []Site{all}, desktop: vocab.None, desktopSet: true, agentsSet: true, agents: []AgentRule{},
		heartbeat: DefaultHeartbeat,
	}
}

// Lines are the policy in force as a person reads it, one rule a line,
// in the order of its keys; nothing for a nil policy.
func (p *Policy) Lines() []string {
	if p == nil {
		return nil
	}
	var out []string
	if len(p.denyApps) > 0 {
		out = append(out, "Applications agents never touch, beside the built-in list: "+strings.Join(p.denyApps, ", "))
	}
	if len(p.never) > 0 {
		out = append(out, "Sites never shared: "+siteList(p.never))
	}
	if p.onlySet {
		if len(p.only) == 0 {
			out = append(out, "No site may be shared")
		} else {
			out = append(out, "The only sites that may be shared: "+siteList(p.only))
		}
	}
	for _, c := range p.caps {
		out = append(out, fmt.Sprintf("%s may be shared at %s at most", c.site, levelWords(c.level)))
	}
	if l := p.Desktop(); l.Level < vocab.Control {
		if l.Level == vocab.None {
			out = append(out, "The desktop may not be shared")
		} else {
			out = append(out, "The desktop may be shared at Read at most")
		}
	}
	if p.agentsSet {
		if len(p.agents) == 0 {
			out = append(out, "No agent may connect")
		} else {
			var names []string
			for _, a := range p.agents {
				names = append(names, a.String())
			}
			out = append(out, "The only agents that may connect: "+strings.Join(names, "; "))
		}
	}
	if !p.allowOnTab {
		out = append(out, "“Allow on this tab” is not offered: every act is asked on its own")
	}
	switch {
	case !p.plans:
		out = append(out, "Plans are not offered: each step is asked on its own")
	case p.maxPlanSteps > 0:
		out = append(out, fmt.Sprintf("A plan holds at most %d steps", p.maxPlanSteps))
	}
	if lo, hi, ok := p.ApprovalTimeout(); ok {
		out = append(out, fmt.Sprintf("Time to answer: from %s to %s", spoken(lo), spoken(hi)))
	}
	if a := p.audit; a != nil {
		if s := a.Syslog; s != nil {
			how := "each row's seq and hash over plain TCP"
			if s.TLS != nil {
				how = "whole rows over TLS"
			}
			out = append(out, "Audit rows go to the syslog receiver "+s.Address+" ("+how+")"+requiredWords(s.Required))
		}
		if o := a.OTLP; o != nil {
			out = append(out, "Audit rows go to the OpenTelemetry collector "+o.URL+" (whole rows)"+requiredWords(o.Required))
		}
		if a.RequireAnchor {
			out = append(out, "No act fires while no copy of the audit log leaves this computer")
		}
	}
	if r := p.retention; r != nil {
		var parts []string
		if r.Days > 0 {
			parts = append(parts, fmt.Sprintf("%d days", r.Days))
		}
		if r.Megabytes > 0 {
			parts = append(parts, fmt.Sprintf("%d MB in all", r.Megabytes))
		}
		if len(parts) == 0 {
			out = append(out, "The audit log is kept whole")
		} else {
			out = append(out, "The audit log's sealed parts are kept for at most "+strings.Join(parts, " and "))
		}
	}
	if p.heartbeat != DefaultHeartbeat {
		out = append(out, fmt.Sprintf("The policy's hash is written to the audit log every %s", spoken(p.heartbeat)))
	}
	return out
}

func requiredWords(required bool) string {
	if required {
		return "; no act fires while it does not take them"
	}
	return ""
}

func siteList(ss []Site) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.String())
	}
	return strings.Join(out, ", ")
}

func levelWords(l vocab.Level) string {
	switch l {
	case vocab.None:
		return "nothing (never shared)"
	case vocab.ReadOnly:
		return "Read"
	}
	return "Control"
}

// spoken says a duration: "30 seconds", "2 minutes", "1 hour".
func spoken(d time.Duration) string {
	unit := func(n time.Duration, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(d/time.Hour, "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(d/time.Minute, "minute")
	}
	return unit(d/time.Second, "second")
}

// Program is an agent's program as Reins identifies it: the process
// that connected (for `reins mcp`, the one that started it), passing
// over shells, which only pass a command on.
type Program struct {
	// Exe is the executable of the nearest such process that is not a
	// shell, as the kernel knows it.
	Exe string
	// Script is, when Exe is an interpreter (node, python…), the script it
	// was started with: its first argument when that is an absolute path,
	// else "" (unknown); ScriptResolved is that path with its links
	// followed.
	Script, ScriptResolved string
	// Launcher is, when Exe is an interpreter, the executable of the
	// nearest process above it that is neither a shell nor an interpreter.
	Launcher string
}

// String is the program as a person reads it.
func (p Program) String() string {
	if p.Exe == "" {
		return "a program Reins could not identify"
	}
	s := p.Exe
	if p.Script != "" {
		s += " running " + p.Script
	}
	if p.Launcher != "" {
		s += ", started by " + p.Launcher
	}
	return s
}

// shells pass a command on; an agent started through one is the
// program that started the shell.
var shells = []string{"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "busybox", "env", "nohup", "timeout", "script"}

// interpreters run a script, which says what the program is.
var interpreters = []string{"node", "nodejs", "deno", "bun", "python", "python2", "python3", "pypy", "pypy3", "ruby", "perl", "php", "java", "osascript", "uv", "uvx", "npx"}

// IsShell reports whether the executable at exe is a shell or a launcher
// that only passes a command on.
func IsShell(exe string) bool { return slices.Contains(shells, filepath.Base(exe)) }

// IsInterpreter reports whether the executable at exe runs scripts.
func IsInterpreter(exe string) bool {
	base := filepath.Base(exe)
	if slices.Contains(interpreters, base) {
		return true
	}
	// python3.12, node22 and the like.
	for _, i := range []string{"python", "node", "ruby", "perl", "php"} {
		if rest, ok := strings.CutPrefix(base, i); ok && rest != "" && strings.Trim(rest, "0123456789.") == "" {
			return true
		}
	}
	return false
}

// Processes is what [Identify] asks of the OS about a process.
type Processes interface {
	Parent(pid int) (int, error)
	Exe(pid int) (string, error)
	Arg1(pid int) (string, error)
}

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 16

// Identify finds the program behind pid, the process Reins names as the
// agent: shells are passed over to the process that started them; an
// interpreter is known by its script and by what launched it.
func Identify(pid int, procs Processes, resolve func(string) string) Program {
	var p Program
	for i := 0; pid > 1 && i < maxAncestors; i++ {
		exe, err := procs.Exe(pid)
		if err != nil || exe == "" {
			return p
		}
		switch {
		case IsShell(exe):
		case p.Exe == "" && IsInterpreter(exe):
			p.Exe = exe
			if arg, err := procs.Arg1(pid); err == nil && filepath.IsAbs(arg) {
				p.Script = filepath.Clean(arg)
				if resolve != nil {
					p.ScriptResolved = resolve(p.Script)
				}
			}
		case p.Exe == "":
			p.Exe = exe
			return p
		case IsInterpreter(exe):
		default:
			p.Launcher = exe
			return p
		}
		parent, err := procs.Parent(pid)
		if err != nil {
			return p
		}
		pid = parent
	}
	return p
}
