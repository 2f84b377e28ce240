// Package policy is an organisation's managed policy for Reins: what it
// may say ([Parse], strictly: an unknown key is an error), where it comes
// from ([System]: the managed preferences of Reins' bundle id on macOS,
// /etc/reins/policy.json on Linux), and the rules by which it narrows
// what the person's settings allow.
//
// Every rule only narrows: more applications on the deny list, sites
// never shared or the only ones shared, the highest level per site and
// for the desktop, which agents may connect, whether "allow on this tab"
// and plans are offered, the bounds of the time to answer, where audit
// rows go and whether acts may fire without them, how long the log is
// kept. Nothing here can take away pause, Stop, stop sharing or deny:
// they are not rules of a policy at all.
//
// A policy that exists but cannot be honoured (bad JSON, a file anyone
// could have written, an unknown key) is a [State] with Err set, whose
// [State.Effective] policy forbids every share and act: it fails closed.
//
// The package is a leaf: it imports only vocab (and, on macOS, the
// CoreFoundation bindings), so every stage that needs a rule may read it.
package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reins-app/reins/vocab"
)

// BundleID is the macOS application id whose managed preferences hold the
// policy: a configuration profile's payload type.
const BundleID = "app.reins.Reins"

// LinuxPath is where the policy lives on Linux.
const LinuxPath = "/etc/reins/policy.json"

// Keys are the top-level keys a policy may hold, each narrowing one thing;
// "$schema" names the JSON Schema and says nothing.
var Keys = []string{
	"$schema", "denyApplications", "sites", "desktop", "agents", "allowOnTab", "plans", "maxPlanSteps",
	"approvalTimeoutSeconds", "audit", "retention", "heartbeatMinutes",
}

// The bounds of the values a policy may hold.
const (
	MinApprovalTimeout = 5 * time.Second // as the person's settings
	MaxApprovalTimeout = 5 * time.Minute
	MaxPlanSteps       = 30 // as agentdoor.MaxPlanSteps
	MinRetainMegabytes = 16
	DefaultHeartbeat   = time.Hour
	maxDeniedName      = 128
	maxSize            = 1 << 20 // bytes of a policy
)

// Policy is an organisation's policy as read and checked. A nil *Policy
// narrows nothing: every method answers as if no policy were there.
type Policy struct {
	denyApps     []string
	never, only  []Site
	onlySet      bool
	caps         []siteCap
	desktop      vocab.Level
	desktopSet   bool
	agents       []AgentRule
	agentsSet    bool
	allowOnTab   bool
	plans        bool
	maxPlanSteps int
	timeoutMin   time.Duration
	timeoutMax   time.Duration
	audit        *Audit
	retention    *Retention
	heartbeat    time.Duration
}

type siteCap struct {
	site  Site
	level vocab.Level
}

// AgentRule names a program that may connect as an agent; see [Program].
type AgentRule struct {
	// Program is an absolute path: the program's executable, or a folder
	// (ending in /) every program under which counts.
	Program string `json:"program"`
	// Script, when set, is the one script the interpreter Program may
	// run (an absolute path, as the interpreter was given it).
	Script string `json:"script,omitempty"`
}

// Audit is where audit rows go, as the policy says; it replaces the
// person's settings for the destinations it names.
type Audit struct {
	Syslog        *Syslog // a syslog receiver
	OTLP          *OTLP   // an OpenTelemetry collector
	RequireAnchor bool    // no act while no copy of the log leaves the computer
}

// Syslog is a syslog receiver: RFC 5425 over TLS (whole rows) when TLS is
// set, else plain TCP (each row's seq and hash).
type Syslog struct {
	Address  string // host:port
	TLS      *TLS
	Required bool // no act while it does not take rows
}

// OTLP is an OpenTelemetry collector's OTLP/HTTP logs endpoint.
type OTLP struct {
	URL      string
	TLS      TLS
	Headers  map[string]string
	Required bool
}

// TLS says how to trust a receiver and how to show who sends: absolute
// paths of PEM files, each optional (CA "" trusts the system's roots).
type TLS struct {
	CA, Cert, Key, ServerName string
}

// Retention is how long the audit log keeps its sealed parts; 0 keeps
// them as far as that bound goes.
type Retention struct {
	Days, Megabytes int
}

// Parse reads a policy from JSON. Every key must be known, every value
// of its type and within its bounds: what cannot be honoured is an
// error that names the key.
func Parse(data []byte) (*Policy, error) {
	if len(data) > maxSize {
		return nil, fmt.Errorf("it is %d bytes, more than a policy may be (%d)", len(data), maxSize)
	}
	if !utf8.Valid(data) {
		return nil, errors.New("it is not UTF-8 text")
	}
	top, err := object("the policy", data)
	if err != nil {
		return nil, err
	}
	p := &Policy{allowOnTab: true, plans: true, heartbeat: DefaultHeartbeat}
	var schema string
	if _, err := top.take("$schema", &schema); err != nil {
		return nil, err
	}
	var deny []string
	if ok, err := top.take("denyApplications", &deny); err != nil {
		return nil, err
	} else if ok {
		for _, n := range deny {
			name, err := checkAppName(n)
			if err != nil {
				return nil, fmt.Errorf("denyApplications: %w", err)
			}
			if !slices.ContainsFunc(p.denyApps, func(h string) bool { return strings.EqualFold(h, name) }) {
				p.denyApps = append(p.denyApps, name)
			}
		}
	}
	if err := p.takeSites(top); err != nil {
		return nil, err
	}
	var desktop string
	if ok, err := top.take("desktop", &desktop); err != nil {
		return nil, err
	} else if ok {
		if p.desktop, err = level("desktop", desktop); err != nil {
			return nil, err
		}
		p.desktopSet = true
	}
	if err := p.takeAgents(top); err != nil {
		return nil, err
	}
	if _, err := top.take("allowOnTab", &p.allowOnTab); err != nil {
		return nil, err
	}
	if _, err := top.take("plans", &p.plans); err != nil {
		return nil, err
	}
	if ok, err := top.take("maxPlanSteps", &p.maxPlanSteps); err != nil {
		return nil, err
	} else if ok && (p.maxPlanSteps < 1 || p.maxPlanSteps > MaxPlanSteps) {
		return nil, fmt.Errorf("maxPlanSteps must be from 1 to %d, not %d (\"plans\": false offers none)", MaxPlanSteps, p.maxPlanSteps)
	}
	if err := p.takeTimeout(top); err != nil {
		return nil, err
	}
	if err := p.takeAudit(top); err != nil {
		return nil, err
	}
	if err := p.takeRetention(top); err != nil {
		return nil, err
	}
	var minutes int
	if ok, err := top.take("heartbeatMinutes", &minutes); err != nil {
		return nil, err
	} else if ok {
		if minutes < 1 || minutes > 24*60 {
			return nil, fmt.Errorf("heartbeatMinutes must be from 1 to 1440, not %d", minutes)
		}
		p.heartbeat = time.Duration(minutes) * time.Minute
	}
	if err := top.rest(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Policy) takeSites(top *obj) error {
	raw, ok := top.m["sites"]
	if !ok {
		return nil
	}
	top.used["sites"] = true
	o, err := object("sites", raw)
	if err != nil {
		return err
	}
	sites := func(key string) ([]Site, bool, error) {
		var list []string
		ok, err := o.take(key, &list)
		if err != nil || !ok {
			return nil, ok, err
		}
		out := make([]Site, 0, len(list))
		for _, s := range list {
			site, err := ParseSite(s)
			if err != nil {
				return nil, true, fmt.Errorf("sites.%s: %w", key, err)
			}
			out = append(out, site)
		}
		return out, true, nil
	}
	if p.never, _, err = sites("never"); err != nil {
		return err
	}
	if p.only, p.onlySet, err = sites("only"); err != nil {
		return err
	}
	var caps map[string]string
	if _, err := o.take("maxLevel", &caps); err != nil {
		return err
	}
	keys := make([]string, 0, len(caps))
	for k := range caps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		site, err := ParseSite(k)
		if err != nil {
			return fmt.Errorf("sites.maxLevel: %w", err)
		}
		l, err := level("sites.maxLevel "+k, caps[k])
		if err != nil {
			return err
		}
		p.caps = append(p.caps, siteCap{site, l})
	}
	return o.rest()
}

func (p *Policy) takeAgents(top *obj) error {
	raw, ok := top.m["agents"]
	if !ok {
		return nil
	}
	top.used["agents"] = true
	var list []json.RawMessage
	if err := strict("agents", raw, &list); err != nil {
		return err
	}
	p.agentsSet = true
	p.agents = []AgentRule{}
	for i, r := range list {
		where := fmt.Sprintf("agents[%d]", i)
		o, err := object(where, r)
		if err != nil {
			return err
		}
		var a AgentRule
		if ok, err := o.take("program", &a.Program); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%s needs \"program\": the absolute path of the program that connects", where)
		}
		if _, err := o.take("script", &a.Script); err != nil {
			return err
		}
		if err := o.rest(); err != nil {
			return err
		}
		if !filepath.IsAbs(a.Program) || filepath.Clean(a.Program) != strings.TrimSuffix(a.Program, "/") && a.Program != "/" {
			return fmt.Errorf("%s.program must be an absolute path (a folder ends in /), not %q: a bare name can be any program", where, a.Program)
		}
		if a.Script != "" && (!filepath.IsAbs(a.Script) || strings.HasSuffix(a.Script, "/")) {
			return fmt.Errorf("%s.script must be the absolute path of a file, not %q", where, a.Script)
		}
		p.agents = append(p.agents, a)
	}
	return nil
}

func (p *Policy) takeTimeout(top *obj) error {
	raw, ok := top.m["approvalTimeoutSeconds"]
	if !ok {
		return nil
	}
	top.used["approvalTimeoutSeconds"] = true
	o, err := object("approvalTimeoutSeconds", raw)
	if err != nil {
		return err
	}
	var lo, hi int
	p.timeoutMin, p.timeoutMax = MinApprovalTimeout, MaxApprovalTimeout
	for _, b := range []struct {
		key string
		n   *int
		d   *time.Duration
	}{{"min", &lo, &p.timeoutMin}, {"max", &hi, &p.timeoutMax}} {
		if ok, err := o.take(b.key, b.n); err != nil {
			return err
		} else if ok {
			d := time.Duration(*b.n) * time.Second
			if d < MinApprovalTimeout || d > MaxApprovalTimeout {
				return fmt.Errorf("approvalTimeoutSeconds.%s must be from %d to %d, not %d", b.key, int(MinApprovalTimeout/time.Second), int(MaxApprovalTimeout/time.Second), *b.n)
			}
			*b.d = d
		}
	}
	if p.timeoutMin > p.timeoutMax {
		return fmt.Errorf("approvalTimeoutSeconds.min (%d) is more than its max (%d)", int(p.timeoutMin/time.Second), int(p.timeoutMax/time.Second))
	}
	return o.rest()
}

func (p *Policy) takeAudit(top *obj) error {
	raw, ok := top.m["audit"]
	if !ok {
		return nil
	}
	top.used["audit"] = true
	o, err := object("audit", raw)
	if err != nil {
		return err
	}
	a := &Audit{}
	if raw, ok := o.m["syslog"]; ok {
		o.used["syslog"] = true
		so, err := object("audit.syslog", raw)
		if err != nil {
			return err
		}
		s := &Syslog{}
		if ok, err := so.take("address", &s.Address); err != nil {
			return err
		} else if !ok {
			return errors.New("audit.syslog needs \"address\": host:port of the receiver")
		}
		if err := checkAddress(s.Address); err != nil {
			return fmt.Errorf("audit.syslog.address: %w", err)
		}
		if raw, ok := so.m["tls"]; ok {
			so.used["tls"] = true
			t, err := takeTLS("audit.syslog.tls", raw)
			if err != nil {
				return err
			}
			s.TLS = &t
		}
		if _, err := so.take("required", &s.Required); err != nil {
			return err
		}
		if err := so.rest(); err != nil {
			return err
		}
		a.Syslog = s
	}
	if raw, ok := o.m["otlp"]; ok {
		o.used["otlp"] = true
		oo, err := object("audit.otlp", raw)
		if err != nil {
			return err
		}
		c := &OTLP{}
		if ok, err := oo.take("url", &c.URL); err != nil {
			return err
		} else if !ok {
			return errors.New("audit.otlp needs \"url\": the collector's logs endpoint, such as https://otel.example.org:4318/v1/logs")
		}
		if err := checkCollector(c.URL); err != nil {
			return fmt.Errorf("audit.otlp.url: %w", err)
		}
		if raw, ok := oo.m["tls"]; ok {
			oo.used["tls"] = true
			if c.TLS, err = takeTLS("audit.otlp.tls", raw); err != nil {
				return err
			}
		}
		if _, err := oo.take("headers", &c.Headers); err != nil {
			return err
		}
		for k, v := range c.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n") || strings.ContainsAny(v, "\r\n") {
				return fmt.Errorf("audit.otlp.headers: %q cannot be an HTTP header", k)
			}
		}
		if _, err := oo.take("required", &c.Required); err != nil {
			return err
		}
		if err := oo.rest(); err != nil {
			return err
		}
		a.OTLP = c
	}
	if _, err := o.take("requireAnchor", &a.RequireAnchor); err != nil {
		return err
	}
	if err := o.rest(); err != nil {
		return err
	}
	p.audit = a
	return nil
}

func takeTLS(where string, raw json.RawMessage) (TLS, error) {
	o, err := object(where, raw)
	if err != nil {
		return TLS{}, err
	}
	var t TLS
	for _, f := range []struct {
		key string
		v   *string
	}{{"ca", &t.CA}, {"cert", &t.Cert}, {"key", &t.Key}, {"serverName", &t.ServerName}} {
		if _, err := o.take(f.key, f.v); err != nil {
			return TLS{}, err
		}
	}
	if err := o.rest(); err != nil {
		return TLS{}, err
	}
	if (t.Cert == "") != (t.Key == "") {
		return TLS{}, fmt.Errorf("%s: a client certificate needs both \"cert\" and \"key\"", where)
	}
	for _, f := range []string{t.CA, t.Cert, t.Key} {
		if f != "" && !filepath.IsAbs(f) {
			return TLS{}, fmt.Errorf("%s: %q must be an absolute path", where, f)
		}
	}
	return t, nil
}

func (p *Policy) takeRetention(top *obj) error {
	raw, ok := top.m["retention"]
	if !ok {
		return nil
	}
	top.used["retention"] = true
	o, err := object("retention", raw)
	if err != nil {
		return err
	}
	r := &Retention{}
	if _, err := o.take("days", &r.Days); err != nil {
		return err
	}
	if _, err := o.take("megabytes", &r.Megabytes); err != nil {
		return err
	}
	if err := o.rest(); err != nil {
		return err
	}
	switch {
	case r.Days < 0 || r.Megabytes < 0:
		return errors.New("retention counts days and megabytes from 0 (keep everything)")
	case r.Megabytes > 0 && r.Megabytes < MinRetainMegabytes:
		return fmt.Errorf("retention.megabytes must be 0 or at least %d, not %d", MinRetainMegabytes, r.Megabytes)
	}
	p.retention = r
	return nil
}

// checkAddress checks host:port.
func checkAddress(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '/' }) {
		return fmt.Errorf("%q is not host:port, such as logs.example.org:6514", s)
	}
	if _, err := parsePort(s, port); err != nil {
		return err
	}
	return nil
}

// checkCollector checks an OTLP URL: https, or http to this computer.
func checkCollector(u string) error {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "https" && p.Scheme != "http") {
		return fmt.Errorf("%q is not an https URL such as https://otel.example.org:4318/v1/logs", u)
	}
	if p.Scheme == "http" {
		h := p.Hostname()
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%s would send audit rows unencrypted over the network; use https://", u)
		}
	}
	return nil
}

// checkAppName checks a name for the deny list as the person's settings
// do: not empty, not too long, nothing invisible.
func checkAppName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return "", errors.New("an application name is empty")
	case n > maxDeniedName:
		return "", fmt.Errorf("an application name can be at most %d characters, not %d", maxDeniedName, n)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("the application name %q has an invisible or control character (%U)", name, r)
		}
	}
	return name, nil
}

func level(where, s string) (vocab.Level, error) {
	switch s {
	case "none":
		return vocab.None, nil
	case "read":
		return vocab.ReadOnly, nil
	case "control":
		return vocab.Control, nil
	}
	return vocab.None, fmt.Errorf("%s must be \"none\", \"read\" or \"control\", not %q", where, s)
}

// obj is a JSON object being read key by key, so that a key left over is
// an unknown one, named with where it sits.
type obj struct {
	path string
	m    map[string]json.RawMessage
	used map[string]bool
}

func object(path string, raw []byte) (*obj, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%s must be a JSON object ({…})", path)
	}
	o := &obj{path: path, used: map[string]bool{}}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", path, err)
	}
	return o, nil
}

// take reads key into v, reporting whether it was there.
func (o *obj) take(key string, v any) (bool, error) {
	raw, ok := o.m[key]
	if !ok {
		return false, nil
	}
	o.used[key] = true
	where := key
	if o.path != "the policy" {
		where = o.path + "." + key
	}
	return true, strict(where, raw, v)
}

// rest is an error naming the first key no take asked for.
func (o *obj) rest() error {
	var unknown []string
	for k := range o.m {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	where := ""
	if o.path != "the policy" {
		where = " in " + o.path
	}
	return fmt.Errorf("the key %q%s is not one Reins knows (a misspelling, or a newer Reins' key): Reins honours no part of a policy it cannot read whole", unknown[0], where)
}

// strict decodes raw into v; null and values of another type are errors.
func strict(where string, raw json.RawMessage, v any) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return fmt.Errorf("%s is null; leave the key out instead", where)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s must be %s, not %s", where, typeWords(v), te.Value)
		}
		return fmt.Errorf("%s: %v", where, err)
	}
	return nil
}

func typeWords(v any) string {
	switch v.(type) {
	case *bool:
		return "true or false"
	case *int:
		return "a whole number"
	case *string:
		return "text"
	case *[]string:
		return "a list of text"
	case *map[string]string:
		return "an object of text values"
	}
	return "of another type"
}
